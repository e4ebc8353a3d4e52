"""Acceptance tests of ``openclaw mcp ui`` in a real headless Chromium (spec mcp-settings-page §12, 1–13),
against the DOM/API contract of docs/ui-contract.md, plus layout checks (narrow viewport, dark scheme) and
keyboard access. Every test runs its own ``openclaw mcp ui`` process over its own copy of the §0.3 seed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.conftest import OPENCLAW, seed_config

try:
    from playwright.sync_api import Locator, Page, Request, expect
except ImportError as exc:  # a missing tool skips locally and fails under CI
    if os.environ.get("CI"):
        raise
    pytest.skip(f"playwright is not installed ({exc})", allow_module_level=True)

if TYPE_CHECKING:
    from tests.browser.conftest import PageFactory, Screenshot, UiFactory, UiProcess

SENTINEL = "__OPENCLAW_REDACTED__"
ROWS = "#mcp-server-list > div.settings-row.mcp-server-row[data-mcp-name]"
SUCCESS = ".mcp-server-message.mcp-server-message--success[role=status]"
FAILURE = ".mcp-server-message.mcp-server-message--error[role=alert]"
INDICATOR_TEXT = ".settings-save-indicator[role=status] .settings-save-indicator__text"
INDICATOR_ACTION = ".settings-save-indicator__action"
INDICATOR_MESSAGE = ".settings-save-indicator__message"
SEED_ORDER = ["context7", "docs", "local-tools", "mtls-remote", "o'brien legacy", "profiled"]
GITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
DOCS_URL = "https://alice:s3cret@mcp.example.com/mcp?token=abc&page=2"
AUTHORIZATION = "Bearer abcdefghijklmnop123456"
NOTES_COMMAND = "npx -y \"@scope/server notes\" --flag 'a b' c\\ d"
NOTES_STORED = {"command": "npx", "args": ["-y", "@scope/server notes", "--flag", "a b", "c d"]}


# -- helpers ------------------------------------------------------------------------------------------------


def open_page(page: Page, ui: UiProcess, *, rows: int = len(SEED_ORDER)) -> None:
    """Load the page with its token and wait until the rows, the editor and the change stream are live."""
    with page.expect_response(lambda response: response.url.endswith("/api/mcp/events")):
        page.goto(ui.url)
    expect(page.locator(ROWS)).to_have_count(rows)
    expect(page.locator("#mcp-editor")).not_to_have_value("")
    # the stream takes its baseline hash right after its headers; give it that moment before writing the file
    page.wait_for_timeout(200)


def row(page: Page, name: str) -> Locator:
    return page.locator(ROWS).and_(page.locator(f'[data-mcp-name="{name}"]'))


def row_lines(locator: Locator) -> list[str]:
    text: str = locator.evaluate("node => node.innerText")
    return [line.strip() for line in text.split("\n") if line.strip()]


def row_names(page: Page) -> list[str]:
    names: list[str] = page.locator(ROWS).evaluate_all("nodes => nodes.map(node => node.dataset.mcpName)")
    return names


def cards(page: Page) -> list[tuple[str, str]]:
    pairs: list[list[str]] = page.locator(".mcp-page__summary .settings-row").evaluate_all(
        """nodes => nodes.map(node => [
            node.querySelector('.settings-row__label').textContent.trim(),
            node.querySelector('.settings-row__value').textContent.trim(),
        ])"""
    )
    return [(label, value) for label, value in pairs]


def expect_servers_card(page: Page, count: int) -> None:
    value = page.locator(".mcp-page__summary .settings-row").filter(
        has=page.locator(".settings-row__label", has_text="Servers")
    )
    expect(value.locator(".settings-row__value")).to_have_text(str(count))


def open_add_form(page: Page) -> None:
    page.locator("button#mcp-add-toggle").click()
    expect(page.locator("form#mcp-add-form")).to_be_visible()


def submit_add(page: Page, name: str, transport: str, target: str) -> None:
    page.locator("input#mcp-name").fill(name)
    page.locator("select#mcp-transport").select_option(transport)
    page.locator("input#mcp-target").fill(target)
    page.locator("button#mcp-add-submit").click()


def editor_document(page: Page) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(page.locator("textarea#mcp-editor").input_value())
    return document


def fill_editor(page: Page, document: dict[str, Any]) -> None:
    page.locator("textarea#mcp-editor").fill(json.dumps(document, indent=2, ensure_ascii=False))


def without(document: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key not in keys}


def rejected_files(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*") if ".rejected." in path.name)


# -- §12.1 ---------------------------------------------------------------------------------------------------


def test_page_needs_its_token_and_the_server_guards_host_and_bearer(
    ui: UiProcess, page: Page, screenshot: Screenshot
) -> None:
    page.goto(ui.page_url_without_token)
    notice = page.locator("#mcp-auth-required[role=alert]")
    expect(notice).to_be_visible()
    expect(notice).to_have_text("This page needs its access token. Open the URL printed by openclaw mcp ui.")
    expect(page.locator("body")).to_contain_text("This page needs its access token.")
    expect(page.locator(".mcp-server-row")).to_have_count(0)
    screenshot(page, "01-auth-required.png")

    status, headers, body = ui.request("GET", "/api/mcp")
    assert status == 401
    assert json.loads(body) == {"ok": False, "error": {"type": "unauthorized", "message": "Unauthorized"}}
    assert headers.get("cache-control") == "no-store"
    status, _, body = ui.request("GET", "/api/mcp", headers={"Authorization": "Bearer not-the-token"})
    assert status == 401
    assert json.loads(body)["error"]["type"] == "unauthorized"

    for path in ("/settings/mcp", "/api/mcp"):
        status, _, body = ui.request("GET", path, headers={"Host": "evil.example"}, bearer=True)
        assert status == 421, path
        assert json.loads(body)["error"]["type"] == "misdirected"
    status, _, _ = ui.request("GET", "/api/mcp", headers={"Origin": "http://evil.example"}, bearer=True)
    assert status == 403
    status, _, body = ui.request("GET", "/api/mcp", bearer=True)
    assert status == 200
    assert json.loads(body)["hash"] == ui.file_hash()

    page.goto(ui.url)
    expect(page.locator(ROWS)).to_have_count(len(SEED_ORDER))
    assert page.evaluate("location.hash") == ""
    assert page.evaluate("location.pathname") == "/settings/mcp"
    expect(page.locator("#mcp-auth-required")).to_be_hidden()
    screenshot(page, "01-authenticated.png")

    assert ui.stop() == 0
    assert ui.extra_stdout == []


# -- §12.2 ---------------------------------------------------------------------------------------------------


def test_summary_cards_count_the_seed(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    expect(page.locator("h1")).to_have_text("MCP")
    heading = page.locator("section.mcp-page__summary h2")
    assert (heading.text_content() or "").strip() == "Servers"
    assert cards(page) == [("Servers", "6"), ("Enabled", "5"), ("OAuth", "3"), ("Filtered", "2")]
    screenshot(page, "02-cards.png")


# -- §12.3 ---------------------------------------------------------------------------------------------------


def test_rows_show_the_seed_in_order_without_secrets(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    assert row_names(page) == SEED_ORDER
    expected = {
        "context7": ["context7", "uvx", "stdio · tool filter", "Enabled", "openclaw mcp probe context7", "Disable"],
        "docs": [
            "docs",
            SENTINEL,
            "streamable-http · oauth · tool filter · parallel",
            "Enabled",
            "openclaw mcp login docs",
            "Disable",
        ],
        "local-tools": ["local-tools", "node", "stdio", "Enabled", "openclaw mcp probe local-tools", "Disable"],
        "mtls-remote": [
            "mtls-remote",
            "https://mtls.example.com/mcp",
            "streamable-http · oauth · mTLS",
            "Enabled",
            "Each person signs in through this connector in chat.",
            "Disable",
        ],
        "o'brien legacy": [
            "o'brien legacy",
            "https://legacy.example.com/sse",
            "sse · TLS verify off",
            "Disabled",
            "openclaw mcp probe 'o'\\''brien legacy'",
            "Enable",
        ],
        "profiled": [
            "profiled",
            "https://p.example.com/mcp",
            "streamable-http · oauth",
            "Enabled",
            "Sign in through the linked account in Models.",
            "Disable",
        ],
    }
    assert {name: row_lines(row(page, name)) for name in SEED_ORDER} == expected

    for name in SEED_ORDER:
        expect(row(page, name).locator("button.mcp-server-row__remove")).to_have_attribute(
            "aria-label", f"Remove {name}"
        )
        expect(row(page, name).locator("button.mcp-server-row__probe")).to_have_attribute("aria-label", f"Probe {name}")
    for text in page.locator(".mcp-server-row").all_inner_texts():
        for secret in ("s3cret", "abc123", "ghp_", "Bearer", "internal.example"):
            assert secret not in text
    body = page.locator("body").inner_text()
    editor = page.locator("textarea#mcp-editor").input_value()
    for secret in ("s3cret", GITHUB_TOKEN, "abcdefghijklmnop123456", "internal.example"):
        assert secret not in body
        assert secret not in editor
    screenshot(page, "03-rows.png")


# -- §12.4 ---------------------------------------------------------------------------------------------------


def test_add_form_refuses_invalid_entries_without_writing(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    before = ui.file_hash()
    open_page(page, ui)
    open_add_form(page)
    expect(page.locator("button#mcp-add-submit")).to_have_text("Add server")
    expect(page.locator("button#mcp-add-cancel")).to_have_text("Cancel")

    submit_add(page, "bad name!", "streamable-http", "https://x.example.com/mcp")
    expect(page.locator(FAILURE)).to_have_text("Server names use letters, numbers, dots, dashes, or underscores.")
    screenshot(page, "04-add-invalid-name.png")

    submit_add(page, "x", "stdio", "https://x.example.com/mcp")
    expect(page.locator(FAILURE)).to_have_text("Enter a URL for HTTP transports or a valid command line for stdio.")

    submit_add(page, "docs", "streamable-http", "https://x.example.com/mcp")
    expect(page.locator(FAILURE)).to_have_text("An MCP server named “docs” already exists.")
    expect(page.locator(".mcp-server-message")).to_have_count(1)
    screenshot(page, "04-add-invalid.png")

    assert ui.file_hash() == before
    assert row_names(page) == SEED_ORDER


# -- §12.5 ---------------------------------------------------------------------------------------------------


def test_add_form_stores_a_tokenized_stdio_server(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    seed = seed_config()
    open_page(page, ui)
    open_add_form(page)
    submit_add(page, "notes", "stdio", NOTES_COMMAND)
    expect(page.locator(SUCCESS)).to_have_text("Added MCP server notes.")
    expect(page.locator("form#mcp-add-form")).to_be_hidden()
    expect(row(page, "notes")).to_have_count(1)
    expect_servers_card(page, 7)
    assert row_names(page) == ["context7", "docs", "local-tools", "mtls-remote", "notes", "o'brien legacy", "profiled"]
    assert row_lines(row(page, "notes")) == ["notes", "npx", "stdio", "Enabled", "openclaw mcp probe notes", "Disable"]
    screenshot(page, "05-add-valid.png")

    stored = ui.config()
    assert stored["mcp"]["servers"]["notes"] == NOTES_STORED
    assert without(stored, "mcp", "meta") == without(seed, "mcp", "meta")
    assert without(stored["mcp"], "servers") == without(seed["mcp"], "servers")
    assert without(stored["mcp"]["servers"], "notes") == seed["mcp"]["servers"]
    raw = ui.raw()
    for secret in (GITHUB_TOKEN, DOCS_URL, AUTHORIZATION, "https://internal.example", "blue"):
        assert json.dumps(secret).encode() in raw
    assert SENTINEL.encode() not in raw
    assert ui.config_path.with_name("openclaw.json.bak").is_file()


# -- §12.6 ---------------------------------------------------------------------------------------------------


def test_toggle_disables_and_enables_servers(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    context7 = row(page, "context7")
    context7.locator("button.mcp-server-row__toggle").click()
    expect(page.locator(SUCCESS)).to_have_text("Disabled MCP server context7.")
    expect(context7.locator("button.mcp-server-row__toggle")).to_have_text("Enable")
    assert row_lines(context7)[3] == "Disabled"
    assert ui.servers()["context7"]["enabled"] is False
    assert '"enabled": false' in ui.raw().decode()

    legacy = row(page, "o'brien legacy")
    legacy.locator("button.mcp-server-row__toggle").click()
    expect(page.locator(SUCCESS)).to_have_text("Enabled MCP server o'brien legacy.")
    expect(legacy.locator("button.mcp-server-row__toggle")).to_have_text("Disable")
    assert row_lines(legacy)[3] == "Enabled"
    assert "enabled" not in ui.servers()["o'brien legacy"]
    assert ui.servers()["context7"]["enabled"] is False
    expect(page.locator(".mcp-server-message")).to_have_count(1)
    assert cards(page)[1] == ("Enabled", "5")
    screenshot(page, "06-toggle.png")


# -- §12.7 ---------------------------------------------------------------------------------------------------


def test_remove_button_deletes_the_server(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    open_add_form(page)
    submit_add(page, "notes", "stdio", NOTES_COMMAND)
    expect(page.locator(SUCCESS)).to_have_text("Added MCP server notes.")
    expect(row(page, "notes")).to_have_count(1)

    remove = page.locator('button.mcp-server-row__remove[aria-label="Remove notes"]')
    expect(remove).to_have_attribute("title", "Remove notes")
    remove.click()
    # Remove asks first (issue 36): nothing is written until the row's confirmation is pressed
    assert "notes" in ui.servers()
    row(page, "notes").locator("button.mcp-server-row__remove-confirm").click()
    expect(page.locator(SUCCESS)).to_have_text("Removed MCP server notes.")
    expect(row(page, "notes")).to_have_count(0)
    assert row_names(page) == SEED_ORDER
    assert "notes" not in ui.servers()
    expect_servers_card(page, 6)
    screenshot(page, "07-remove.png")


# -- §12.8 ---------------------------------------------------------------------------------------------------


def test_editor_save_keeps_the_redacted_secrets(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    expect(page.locator("label[for=mcp-editor]")).to_have_text("MCP config (JSON)")
    text = page.locator("textarea#mcp-editor").input_value()
    document = json.loads(text)
    assert text == json.dumps(document, indent=2, ensure_ascii=False)
    servers = document["servers"]
    assert servers["local-tools"]["env"] == {"API_BASE": SENTINEL, "GITHUB_TOKEN": SENTINEL}
    assert servers["docs"]["url"] == SENTINEL
    assert servers["docs"]["headers"] == {"X-Team": SENTINEL, "Authorization": SENTINEL}
    assert servers["o'brien legacy"]["url"] == "https://legacy.example.com/sse"

    servers["context7"]["command"] = "uvx2"
    fill_editor(page, document)
    page.locator("button#mcp-editor-save").click()
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Saved")
    screenshot(page, "08-editor-saved.png")
    expect(page.locator(".settings-save-indicator__note")).to_have_text(
        "Saved. Running agents pick this up on next use; run openclaw mcp reload in long-lived processes."
    )

    stored = ui.servers()
    assert stored["context7"]["command"] == "uvx2"
    assert stored["local-tools"]["env"] == {"API_BASE": "https://internal.example", "GITHUB_TOKEN": GITHUB_TOKEN}
    assert stored["docs"]["url"] == DOCS_URL
    assert stored["docs"]["headers"] == {"X-Team": "blue", "Authorization": AUTHORIZATION}
    assert SENTINEL.encode() not in ui.raw()
    expect(row(page, "context7")).to_contain_text("uvx2")
    assert editor_document(page)["servers"]["context7"]["command"] == "uvx2"


# -- §12.9 ---------------------------------------------------------------------------------------------------


def test_editor_reports_invalid_values_and_malformed_json(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    before = ui.file_hash()
    open_page(page, ui)
    document = editor_document(page)
    document["servers"]["context7"]["auth"] = "bogus"
    fill_editor(page, document)
    page.locator("button#mcp-editor-save").click()
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Save failed")
    expect(page.locator(INDICATOR_MESSAGE)).to_have_text(
        'mcp.servers.context7.auth: Invalid input: expected "oauth" (allowed: "oauth")'
    )
    expect(page.locator(INDICATOR_ACTION)).to_have_text("Retry")
    screenshot(page, "09-editor-invalid.png")
    assert ui.file_hash() == before

    api_requests: list[str] = []

    def count(request: Request) -> None:
        if "/api/" in request.url:
            api_requests.append(f"{request.method} {request.url}")

    page.on("request", count)
    page.locator("textarea#mcp-editor").fill("{")
    page.locator("button#mcp-editor-save").click()
    error = page.locator("#mcp-editor-error[role=alert]")
    expect(error).to_be_visible()
    expect(error).to_have_text(re.compile(r"^Invalid JSON: \S"))
    page.wait_for_timeout(500)  # a request the click might still send would have gone out by now
    assert api_requests == []
    screenshot(page, "09-editor-malformed.png")
    assert ui.file_hash() == before


# -- §12.10 --------------------------------------------------------------------------------------------------


def test_editor_save_over_an_external_change_reports_the_conflict(
    ui: UiProcess, page: Page, screenshot: Screenshot
) -> None:
    open_page(page, ui)
    document = editor_document(page)
    document["servers"]["context7"]["command"] = "uvx-draft"
    fill_editor(page, document)

    external = ui.config()
    external["mcp"]["servers"]["external-add"] = {"command": "external-tool"}
    ui.write_config(external)
    written = ui.file_hash()

    page.locator("button#mcp-editor-save").click()
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Settings changed elsewhere")
    reload = page.locator(INDICATOR_ACTION)
    expect(reload).to_be_visible()
    expect(reload).to_have_text("Reload")
    screenshot(page, "10-conflict.png")
    assert ui.file_hash() == written
    assert ui.servers()["context7"]["command"] == "uvx"
    assert "uvx-draft" not in ui.raw().decode()

    reload.click()
    expect(row(page, "external-add")).to_have_count(1)
    expect(page.locator("textarea#mcp-editor")).to_have_value(re.compile(r'"external-add"'))
    reloaded = editor_document(page)
    assert reloaded["servers"]["external-add"] == {"command": "external-tool"}
    assert reloaded["servers"]["context7"]["command"] == "uvx"
    expect(page.locator(INDICATOR_TEXT)).not_to_have_text("Settings changed elsewhere")
    screenshot(page, "10-conflict-reloaded.png")


# -- §12.11 --------------------------------------------------------------------------------------------------


def test_external_change_appears_on_a_clean_page(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    external = ui.config()
    external["mcp"]["servers"]["external-1"] = {"url": "https://external.example.com/mcp"}
    written = time.monotonic()
    ui.write_config(external)
    expect(row(page, "external-1")).to_have_count(1, timeout=3_000)
    elapsed = time.monotonic() - written
    assert elapsed < 3.0
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    expect_servers_card(page, 7)
    assert editor_document(page)["servers"]["external-1"] == {"url": "https://external.example.com/mcp"}
    screenshot(page, "11-external-change.png")


# -- §12.12 --------------------------------------------------------------------------------------------------


def test_page_toggles_racing_cli_writes_all_land(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    context7 = row(page, "context7")
    toggle = context7.locator("button.mcp-server-row__toggle")
    enabled = True
    conflicts: list[str] = []
    page.on("response", lambda response: conflicts.append(response.url) if response.status == 409 else None)
    for index in range(20):
        name = f"other{index}"
        cli = subprocess.Popen(
            [str(OPENCLAW), "mcp", "set", name, '{"command":"x"}'],
            env=ui.env,
            cwd=ui.directory,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            # spread the click over the CLI's run so that some rounds click before its write, some after it
            # (then the page's base hash is stale and the toggle must go through the 409 retry); every
            # fourth round clicks right after the CLI's write, which makes sure the retry path is taken
            if index % 4 == 3:
                cli.wait(timeout=30)
            else:
                page.wait_for_timeout(40 * (index % 4))
            toggle.click()
            enabled = not enabled
            verb = "Enabled" if enabled else "Disabled"
            expect(page.locator(SUCCESS)).to_have_text(f"{verb} MCP server context7.")
        finally:
            out, err = cli.communicate(timeout=30)
        assert cli.returncode == 0, f"round {index}: mcp set exited {cli.returncode}: {out!r} {err!r}"
        expect(row(page, name)).to_have_count(1)
        expect(toggle).to_have_text("Disable" if enabled else "Enable")

        servers = json.loads(ui.raw())["mcp"]["servers"]
        for earlier in range(index + 1):
            assert servers[f"other{earlier}"] == {"command": "x"}, f"round {index}: other{earlier} lost"
        assert servers["context7"].get("enabled", True) is enabled, f"round {index}: toggle lost"
        assert rejected_files(ui.directory) == [], f"round {index}"

    final = json.loads(ui.raw())
    servers = final["mcp"]["servers"]
    assert {f"other{index}" for index in range(20)} <= set(servers)
    assert "enabled" not in servers["context7"]
    assert without(servers, *(f"other{index}" for index in range(20))) == seed_config()["mcp"]["servers"]
    assert rejected_files(ui.directory) == []
    expect(page.locator(ROWS)).to_have_count(26)
    expect_servers_card(page, 26)
    assert conflicts, "no toggle ever met a stale base hash: the rounds did not race"
    screenshot(page, "12-concurrency.png")


# -- §12.13 --------------------------------------------------------------------------------------------------


def test_page_never_starts_a_transport(
    ui_factory: UiFactory, page: Page, screenshot: Screenshot, tmp_path: Path
) -> None:
    marker = tmp_path / "transport-started"
    script = tmp_path / "touch-marker.sh"
    script.write_text(f'#!/bin/sh\ntouch "${{MCP_MARKER:-{marker}}}"\n', encoding="utf-8")
    script.chmod(0o755)
    check = tmp_path / "script-works"
    subprocess.run([str(script)], env={"MCP_MARKER": str(check)}, check=True, timeout=10)
    assert check.exists()  # the script does touch its marker when something runs it

    config = seed_config()
    config["mcp"]["servers"]["marker-tool"] = {"command": str(script)}
    ui = ui_factory(config)
    open_page(page, ui, rows=len(SEED_ORDER) + 1)

    open_add_form(page)
    submit_add(page, "marker-add", "stdio", f"{script} --serve")
    expect(page.locator(SUCCESS)).to_have_text("Added MCP server marker-add.")
    toggle = row(page, "marker-tool").locator("button.mcp-server-row__toggle")
    toggle.click()
    expect(page.locator(SUCCESS)).to_have_text("Disabled MCP server marker-tool.")
    toggle.click()
    expect(page.locator(SUCCESS)).to_have_text("Enabled MCP server marker-tool.")
    page.locator('button.mcp-server-row__remove[aria-label="Remove marker-add"]').click()
    row(page, "marker-add").locator("button.mcp-server-row__remove-confirm").click()
    expect(page.locator(SUCCESS)).to_have_text("Removed MCP server marker-add.")
    page.locator("button#mcp-editor-save").click()
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Saved")
    page.reload()
    expect(page.locator(ROWS)).to_have_count(len(SEED_ORDER) + 1)
    page.wait_for_timeout(1_000)  # time for anything the page might have spawned to run
    screenshot(page, "13-no-transports.png")
    assert not marker.exists()
    assert ui.servers()["marker-tool"] == {"command": str(script)}


# -- layout and keyboard ---------------------------------------------------------------------------------------


def test_narrow_viewport_has_no_horizontal_scroll_and_dark_scheme_differs(
    ui: UiProcess, new_page: PageFactory, screenshot: Screenshot
) -> None:
    backgrounds: dict[str, str] = {}
    for scheme in ("light", "dark"):
        page = new_page(viewport={"width": 400, "height": 900}, color_scheme=scheme)
        open_page(page, ui)
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 400, scheme
        open_add_form(page)
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 400, f"{scheme}, add form open"
        backgrounds[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
        screenshot(page, f"{scheme}-400px.png")
    assert backgrounds["light"] != backgrounds["dark"], backgrounds


def test_keyboard_reaches_the_add_toggle_and_opens_the_form(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.id") == "mcp-add-toggle":
            break
    else:
        raise AssertionError("Tab never reached #mcp-add-toggle")
    expect(page.locator("form#mcp-add-form")).to_be_hidden()
    page.keyboard.press("Enter")
    expect(page.locator("form#mcp-add-form")).to_be_visible()
    expect(page.locator("#mcp-add-toggle")).to_have_attribute("aria-expanded", "true")
    screenshot(page, "keyboard-add-form.png")
