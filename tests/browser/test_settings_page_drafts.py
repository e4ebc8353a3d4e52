"""Issue 36 on the settings page, in a real headless Chromium: drafts are never lost (a row action merges into
the draft instead of counting as "changed elsewhere"; Reload after a conflict sets the draft aside and offers it
back; Discard and leaving the page ask), Remove is confirmed, the focus lands on a control after each action,
toggles are named with their server, success messages expire, and axe-core (pinned from npm by
scripts/install_axe.sh) finds no WCAG 2 A/AA violation in light and dark, at 1280 and 390 px, after each flow."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.conftest import missing
from tests.browser.test_settings_page import (
    INDICATOR_ACTION,
    INDICATOR_TEXT,
    SEED_ORDER,
    SUCCESS,
    editor_document,
    fill_editor,
    open_add_form,
    open_page,
    row,
    submit_add,
)
from tests.fixtures.ports import free_port

try:
    from playwright.sync_api import Dialog, Page, expect
except ImportError as exc:  # a missing tool skips locally and fails under CI
    if os.environ.get("CI"):
        raise
    pytest.skip(f"playwright is not installed ({exc})", allow_module_level=True)

if TYPE_CHECKING:
    from tests.browser.conftest import PageFactory, Screenshot, UiProcess

AXE_TAGS = ["wcag2a", "wcag2aa"]


def axe_source() -> str:
    """axe.min.js as scripts/install_axe.sh installs it ($OPENCLAW_AXE_JS overrides); absent: skip, under CI fail."""
    given = os.environ.get("OPENCLAW_AXE_JS")
    if given:
        path = Path(given)
    else:
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        base = Path(os.environ.get("OPENCLAW_AXE_DIR") or cache / "openclaw-axe")
        path = base / "node_modules" / "axe-core" / "axe.min.js"
    if not path.is_file():
        missing(f"axe-core not found at {path} (run bash scripts/install_axe.sh)")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def axe() -> str:
    return axe_source()


def axe_violations(page: Page, axe: str) -> list[str]:
    """Run axe-core on the page (WCAG 2 A and AA rules); one line per violating node."""
    if not page.evaluate("typeof window.axe === 'object'"):
        # evaluated through the DevTools protocol: the page's CSP (script-src 'self') stays as it is
        page.evaluate(axe + "\n;0")
    results: list[dict[str, Any]] = page.evaluate(
        """async (tags) => {
            const found = await window.axe.run(document, { runOnly: { type: "tag", values: tags } });
            return found.violations.map((v) => ({
                id: v.id,
                nodes: v.nodes.map((n) => [n.target.join(" "), n.failureSummary]),
            }));
        }""",
        AXE_TAGS,
    )
    lines = []
    for violation in results:
        for target, summary in violation["nodes"]:
            lines.append(f"{violation['id']}: {target}: {summary}")
    return lines


def assert_axe_clean(page: Page, axe: str, where: str) -> None:
    violations = axe_violations(page, axe)
    assert violations == [], f"axe-core ({where}):\n" + "\n".join(violations)


def focused(page: Page) -> dict[str, str]:
    found: dict[str, str] = page.evaluate(
        """() => {
            const node = document.activeElement;
            const row = node && node.closest ? node.closest('[data-mcp-name]') : null;
            return {
                tag: node ? node.tagName.toLowerCase() : '',
                cls: node && node.className ? String(node.className) : '',
                id: node && node.id ? node.id : '',
                row: row ? row.dataset.mcpName : '',
            };
        }"""
    )
    return found


def leaving_is_held(page: Page) -> bool:
    """Whether the page's beforeunload handler asks the browser to confirm leaving."""
    held: bool = page.evaluate(
        """() => {
            const event = new Event("beforeunload", { cancelable: true });
            dispatchEvent(event);
            return event.defaultPrevented;
        }"""
    )
    return held


def dirty_draft(page: Page) -> dict[str, Any]:
    """Edit context7's command in the editor (unsaved) and return the draft."""
    document = editor_document(page)
    document["servers"]["context7"]["command"] = "uvx-draft"
    fill_editor(page, document)
    return document


# -- drafts -------------------------------------------------------------------------------------------------


def test_a_row_action_merges_into_a_dirty_draft(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    dirty_draft(page)

    row(page, "docs").locator("button.mcp-server-row__toggle").click()
    expect(page.locator(SUCCESS)).to_have_text("Disabled MCP server docs.")
    page.wait_for_timeout(1_500)  # the change stream reports the page's own write meanwhile
    expect(page.locator(INDICATOR_TEXT)).not_to_have_text("Settings changed elsewhere")
    draft = editor_document(page)
    assert draft["servers"]["context7"]["command"] == "uvx-draft"
    assert draft["servers"]["docs"]["enabled"] is False
    screenshot(page, "36-draft-merged.png")

    page.locator("button#mcp-editor-save").click()
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Saved")
    stored = ui.servers()
    assert stored["context7"]["command"] == "uvx-draft"
    assert stored["docs"]["enabled"] is False
    assert stored["docs"]["url"].startswith("https://alice:")  # the redacted secrets came back on save


def test_remove_and_add_merge_into_a_dirty_draft(ui: UiProcess, page: Page) -> None:
    open_page(page, ui)
    dirty_draft(page)
    row(page, "profiled").locator("button.mcp-server-row__remove").click()
    row(page, "profiled").locator("button.mcp-server-row__remove-confirm").click()
    expect(page.locator(SUCCESS)).to_have_text("Removed MCP server profiled.")
    open_add_form(page)
    submit_add(page, "notes", "stdio", "npx notes-server")
    expect(page.locator(SUCCESS)).to_have_text("Added MCP server notes.")
    draft = editor_document(page)
    assert "profiled" not in draft["servers"]
    assert draft["servers"]["notes"] == {"command": "npx", "args": ["notes-server"]}
    assert draft["servers"]["context7"]["command"] == "uvx-draft"
    page.locator("button#mcp-editor-save").click()
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Saved")
    stored = ui.servers()
    assert "profiled" not in stored
    assert stored["notes"] == {"command": "npx", "args": ["notes-server"]}
    assert stored["context7"]["command"] == "uvx-draft"


def test_reload_after_a_conflict_keeps_the_draft(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    dirty_draft(page)
    external = ui.config()
    external["mcp"]["servers"]["external-add"] = {"command": "external-tool"}
    ui.write_config(external)
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Settings changed elsewhere")
    page.locator(INDICATOR_ACTION).click()
    expect(row(page, "external-add")).to_have_count(1)
    assert editor_document(page)["servers"]["context7"]["command"] == "uvx"
    restore = page.locator(INDICATOR_ACTION)
    expect(restore).to_have_text("Restore draft")
    screenshot(page, "36-reload-draft-set-aside.png")
    restore.click()
    restored = editor_document(page)
    assert restored["servers"]["context7"]["command"] == "uvx-draft"
    expect(page.locator("textarea#mcp-editor")).to_be_focused()


def test_discard_and_leaving_ask_while_the_editor_is_dirty(ui: UiProcess, page: Page) -> None:
    open_page(page, ui)
    dialogs: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog: Dialog) -> None:
        dialogs.append(dialog.type)
        if answer["accept"]:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", on_dialog)
    # clean: Discard does not ask, leaving does not ask
    page.locator("button#mcp-editor-discard").click()
    assert leaving_is_held(page) is False
    assert dialogs == []

    dirty_draft(page)
    assert leaving_is_held(page) is True
    page.locator("button#mcp-editor-discard").click()
    page.wait_for_timeout(300)
    assert dialogs == ["confirm"]
    assert editor_document(page)["servers"]["context7"]["command"] == "uvx-draft"  # dismissed: kept
    answer["accept"] = True
    page.locator("button#mcp-editor-discard").click()
    expect(page.locator("textarea#mcp-editor")).not_to_have_value(json.dumps("uvx-draft"))
    page.wait_for_function("() => !document.querySelector('#mcp-editor').value.includes('uvx-draft')")
    assert dialogs == ["confirm", "confirm"]


# -- remove, focus, names -----------------------------------------------------------------------------------


def test_remove_is_confirmed_and_the_focus_moves_on(ui: UiProcess, page: Page, screenshot: Screenshot) -> None:
    open_page(page, ui)
    docs = row(page, "docs")
    expect(docs.locator("button.mcp-server-row__toggle")).to_have_accessible_name("Disable docs")
    docs.locator("button.mcp-server-row__remove").click()
    cancel = docs.locator("button.mcp-server-row__remove-cancel")
    expect(cancel).to_be_focused()
    screenshot(page, "36-remove-confirm.png")
    page.keyboard.press("Escape")
    expect(docs.locator("button.mcp-server-row__remove")).to_be_focused()
    assert "docs" in ui.servers()

    docs.locator("button.mcp-server-row__remove").click()
    docs.locator("button.mcp-server-row__remove-confirm").click()
    expect(page.locator(SUCCESS)).to_have_text("Removed MCP server docs.")
    assert "docs" not in ui.servers()
    # the next row's toggle ("local-tools" follows "docs")
    expect(row(page, "local-tools").locator("button.mcp-server-row__toggle")).to_be_focused()


def test_focus_after_toggle_and_add_and_messages_expire(ui: UiProcess, page: Page) -> None:
    open_page(page, ui)
    toggle = row(page, "context7").locator("button.mcp-server-row__toggle")
    toggle.click()
    expect(page.locator(SUCCESS)).to_have_text("Disabled MCP server context7.")
    expect(toggle).to_be_focused()
    expect(toggle).to_have_accessible_name("Enable context7")

    open_add_form(page)
    submit_add(page, "notes", "stdio", "npx notes-server")
    expect(page.locator(SUCCESS)).to_have_text("Added MCP server notes.")
    expect(page.locator(".mcp-server-message")).to_have_count(1)  # the old one was replaced
    expect(row(page, "notes").locator("button.mcp-server-row__toggle")).to_be_focused()
    expect(page.locator(".mcp-server-message")).to_have_count(0, timeout=12_000)


def test_a_failed_add_focuses_its_message(ui: UiProcess, page: Page) -> None:
    open_page(page, ui)
    open_add_form(page)
    submit_add(page, "docs", "stdio", "npx other")
    message = page.locator(".mcp-server-message--error")
    expect(message).to_be_visible()
    expect(message).to_be_focused()
    assert focused(page)["tag"] == "div"


# -- accessibility ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_wcag_aa_violation(
    ui: UiProcess, new_page: PageFactory, screenshot: Screenshot, axe: str, scheme: str, width: int
) -> None:
    page = new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
    open_page(page, ui)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    assert_axe_clean(page, axe, f"{scheme} {width}px, loaded")
    screenshot(page, f"36-axe-{scheme}-{width}.png")

    open_add_form(page)
    assert_axe_clean(page, axe, f"{scheme} {width}px, add form open")
    submit_add(page, "notes", "stdio", "/nonexistent/openclaw-notes-server")
    expect(page.locator(SUCCESS)).to_have_text("Added MCP server notes.")
    assert_axe_clean(page, axe, f"{scheme} {width}px, after add")

    row(page, "notes").locator("button.mcp-server-row__probe").click()
    probe = page.locator('.mcp-probe-result[data-mcp-probe-for="notes"]')
    expect(probe).not_to_contain_text("Probing", timeout=30_000)
    expect(probe).to_have_class("mcp-probe-result mcp-probe-result--error")  # a failed probe looks failed
    assert_axe_clean(page, axe, f"{scheme} {width}px, failed probe")

    row(page, "docs").locator("button.mcp-server-row__toggle").click()
    expect(page.locator(SUCCESS)).to_have_text("Disabled MCP server docs.")
    assert_axe_clean(page, axe, f"{scheme} {width}px, after toggle")

    row(page, "notes").locator("button.mcp-server-row__remove").click()
    assert_axe_clean(page, axe, f"{scheme} {width}px, remove asking")
    row(page, "notes").locator("button.mcp-server-row__remove-confirm").click()
    expect(page.locator(SUCCESS)).to_have_text("Removed MCP server notes.")

    open_add_form(page)
    submit_add(page, "docs", "stdio", "npx other")
    expect(page.locator(".mcp-server-message--error")).to_be_visible()
    assert_axe_clean(page, axe, f"{scheme} {width}px, failed add")

    dirty_draft(page)
    external = ui.config()
    external["mcp"]["servers"]["external-add"] = {"command": "external-tool"}
    ui.write_config(external)
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Settings changed elsewhere")
    assert_axe_clean(page, axe, f"{scheme} {width}px, conflict")
    page.locator(INDICATOR_ACTION).click()
    expect(page.locator(INDICATOR_ACTION)).to_have_text("Restore draft")
    assert_axe_clean(page, axe, f"{scheme} {width}px, draft set aside")

    screenshot(page, f"36-axe-{scheme}-{width}-flows.png")


def test_rows_keep_their_controls_in_two_even_lines(ui: UiProcess, new_page: PageFactory) -> None:
    """Every row lays out the same way: the status line above the actions line, Remove apart from Disable."""
    for width in (1280, 390):
        page = new_page(viewport={"width": width, "height": 900})
        open_page(page, ui)
        for name in SEED_ORDER:
            boxes = row(page, name).evaluate(
                """node => {
                    const box = (selector) => node.querySelector(selector).getBoundingClientRect();
                    const status = box('.mcp-server-row__status');
                    const toggle = box('.mcp-server-row__toggle');
                    const probe = box('.mcp-server-row__probe');
                    const remove = box('.mcp-server-row__remove');
                    return { statusBottom: status.bottom, toggleTop: toggle.top, probeTop: probe.top,
                             removeTop: remove.top, gap: remove.left - toggle.right };
                }"""
            )
            assert boxes["toggleTop"] >= boxes["statusBottom"] - 1, (width, name, boxes)
            assert abs(boxes["toggleTop"] - boxes["probeTop"]) < 2, (width, name, boxes)
            assert abs(boxes["toggleTop"] - boxes["removeTop"]) < 2, (width, name, boxes)
            assert boxes["gap"] >= 20, (width, name, boxes)


# -- JSON5, an unreadable file, the live Apps panel -----------------------------------------------------------


def test_the_editor_accepts_json5_and_the_server_still_validates(ui: UiProcess, page: Page) -> None:
    open_page(page, ui)
    text = page.locator("textarea#mcp-editor").input_value()
    commented = text.replace('"command": "uvx"', '// a comment\n      command: /* inline */ "uvx-json5"', 1)
    assert commented != text
    commented = commented.rstrip().removesuffix("}") + ",}"  # a trailing comma
    page.locator("textarea#mcp-editor").fill(commented)
    page.locator("button#mcp-editor-save").click()
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Saved")
    assert ui.servers()["context7"]["command"] == "uvx-json5"

    page.locator("textarea#mcp-editor").fill('{servers: {context7: {command: "uvx", auth: "bogus"}},}')
    page.locator("button#mcp-editor-save").click()
    expect(page.locator(INDICATOR_TEXT)).to_have_text("Save failed")  # the server's rules, not the page's

    page.locator("textarea#mcp-editor").fill("{servers: {a: Infinity}}")
    page.locator("button#mcp-editor-save").click()
    expect(page.locator("#mcp-editor-error")).to_have_text(re.compile(r"^Invalid JSON: non-finite number"))


def test_an_unreadable_config_does_not_look_empty(ui_factory: Any, page: Page, screenshot: Screenshot) -> None:
    ui = ui_factory()
    ui.config_path.write_text('{ "mcp": { broken', encoding="utf-8")
    page.goto(ui.url)
    issues = page.locator("#mcp-config-issues[role=alert]")
    expect(issues).to_contain_text("could not be read")
    expect(page.locator(".mcp-unreadable")).to_be_visible()
    expect(page.locator(".mcp-empty", has_text="No MCP servers configured.")).to_have_count(0)
    expect(page.locator("textarea#mcp-editor")).to_have_value("")
    expect(page.locator("button#mcp-editor-save")).to_be_disabled()
    screenshot(page, "36-unreadable.png")


def test_the_apps_panel_follows_the_servers(ui: UiProcess, page: Page) -> None:
    open_page(page, ui)
    apps = page.locator("#mcp-apps-list > [data-mcp-app-server]")
    expect(page.locator('[data-mcp-app-server="docs"]')).to_have_count(1)
    expect(page.locator("#mcp-apps")).to_contain_text("starts the server's command")
    before = apps.count()
    row(page, "docs").locator("button.mcp-server-row__toggle").click()
    expect(page.locator(SUCCESS)).to_have_text("Disabled MCP server docs.")
    expect(page.locator('[data-mcp-app-server="docs"]')).to_have_count(0)
    open_add_form(page)
    submit_add(page, "notes", "stdio", "/nonexistent/openclaw-notes-server")
    expect(page.locator('[data-mcp-app-server="notes"]')).to_have_count(1)
    expect(apps).to_have_count(before)
    external = ui.config()
    external["mcp"]["servers"]["external-add"] = {"command": "external-tool"}
    ui.write_config(external)
    expect(page.locator('[data-mcp-app-server="external-add"]')).to_have_count(1)


def test_a_server_without_app_tools_is_marked(ui_factory: Any, page: Page) -> None:
    server = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers" / "contract_server.py"
    config = {
        "mcp": {"apps": {"enabled": True}, "servers": {"plain": {"command": sys.executable, "args": [str(server)]}}}
    }
    ui = ui_factory(config, args=("--port", str(free_port()), "--apps-port", str(free_port())))
    page.goto(ui.url)
    plain = page.locator('[data-mcp-app-server="plain"]')
    plain.get_by_role("button", name="Open app").click()
    expect(plain).to_contain_text("This server has no app tools.", timeout=30_000)
    expect(plain).to_have_class(re.compile(r"\bmcp-app-server--none\b"))
    expect(plain.locator("button")).to_have_text("No app views")
