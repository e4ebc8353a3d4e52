"""Hardening of ``openclaw mcp ui`` (issue 32, defects 5–7): the browser is opened on a 0600 redirect file
holding a single-use code (never the token), the page's redaction walks values whatever the config's shape,
and hostile JSON bodies (deep, wide, odd) get one-line 4xx answers and write nothing. Rules over the domain
functions, then the real process over raw HTTP on loopback."""

from __future__ import annotations

import json
import re
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from openclaw_mcp.domain.settings_page import REDACTED, SentinelMisplaced, redact_mcp, restore_redacted
from tests.browser.conftest import UiProcess, seed_config
from tests.browser.hardening_cases import SECRETS, OpenedUi, odd_mcp


def test_redaction_walks_values_whatever_their_shape() -> None:
    mcp = odd_mcp()
    shown, paths = redact_mcp(mcp)
    text = json.dumps(shown)
    for secret in SECRETS:
        assert secret not in text, secret
    assert "abc123" in text and "--token" in text  # a bare word in args is not a secret (§2.2)
    assert "https://h.example/mcp" in text  # clean URLs stay
    assert ("servers", "bare") in paths
    assert ("servers", "url-list", "url", "0") in paths
    assert ("servers", "env-list", "env", "0") in paths
    assert ("servers", "env-string", "env") in paths
    assert ("servers", "meta-token", "oauth", "clientMetadataUrl") in paths
    assert mcp == odd_mcp()  # the input is not changed


def test_restore_puts_back_whatever_was_redacted() -> None:
    mcp = odd_mcp()
    shown, paths = redact_mcp(mcp)
    assert restore_redacted(shown, mcp, paths) == mcp
    assert isinstance(shown, dict)
    shown["servers"]["url-list"]["url"].append(REDACTED)  # an index nothing was redacted at
    with pytest.raises(SentinelMisplaced) as caught:
        restore_redacted(shown, mcp, paths)
    assert str(caught.value) == "mcp.servers.url-list.url.1: redacted placeholder cannot be saved here"


def test_redaction_survives_a_deep_stored_document() -> None:
    deep: Any = "https://x:deep-secret@h.example/"
    for _ in range(20_000):
        deep = [deep]
    shown, paths = redact_mcp({"servers": {"x": {"command": "a", "extra": deep}}})
    assert len(paths) == 1
    assert "deep-secret" not in repr(paths)
    node: Any = shown
    for key in ("servers", "x", "extra"):
        node = node[key]
    for _ in range(20_000):
        node = node[0]
    assert node == REDACTED


def test_launch_code_is_single_use_and_short_lived() -> None:
    from openclaw_mcp.entrypoints.ui.app import LaunchCode

    now = [100.0]
    used: list[str] = []
    code = LaunchCode("c0de", ttl=60.0, clock=lambda: now[0], on_done=lambda: used.append("done"))
    assert not code.redeem("wrong")
    assert code.redeem("c0de")
    assert not code.redeem("c0de")
    assert used == ["done"]
    late = LaunchCode("late", ttl=60.0, clock=lambda: now[0])
    now[0] += 61
    assert not late.redeem("late")


# -- the real process ------------------------------------------------------------------------------------------


def _send(ui: UiProcess, method: str, path: str, body: bytes | None) -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    status, _, raw = ui.request(method, path, headers=headers, body=body, bearer=True)
    return status, json.loads(raw)


def _tree(directory: Path) -> list[str]:
    return sorted(str(path.relative_to(directory)) for path in directory.rglob("*") if path.name != "ui.stderr")


@pytest.fixture
def ui(tmp_path: Path) -> Iterator[UiProcess]:
    process = UiProcess(tmp_path, seed_config())
    process.start()
    try:
        yield process
    finally:
        assert process.stop() == 0
        assert "Traceback" not in process.stderr()
        assert "Exception in ASGI application" not in process.stderr()


def _nest(depth: int, inner: str = "0", kind: str = "[") -> str:
    if kind == "[":
        return "[" * depth + inner + "]" * depth
    return '{"a":' * depth + inner + "}" * depth


def _fill(template: str, base: str, value: str = "") -> bytes:
    return template.replace("BASE", base).replace("VALUE", value).encode()


PUT = '{"baseHash": "BASE", "mcp": {"servers": {"x": {"command": "a", "toolFilter": VALUE}}}}'


def hostile_bodies(base: str) -> list[tuple[str, str, bytes]]:
    """(method, path, body): deep and wide JSON in every body the API reads, plus odd values."""
    templates = [
        ("PUT", "/api/mcp", PUT),
        ("PUT", "/api/mcp", '{"baseHash": "BASE", "mcp": {"servers": VALUE}}'),
        ("POST", "/api/mcp/servers/context7/enabled", '{"baseHash": "BASE", "enabled": false, "extra": VALUE}'),
        (
            "POST",
            "/api/mcp/servers",
            '{"baseHash": "BASE", "name": "n", "transport": "stdio", "target": "x", "x": VALUE}',
        ),
        ("DELETE", "/api/mcp/servers/context7", '{"baseHash": "BASE", "x": VALUE}'),
        ("POST", "/api/mcp/servers/context7/probe", '{"x": VALUE}'),
        ("POST", "/api/mcp/apps/run", '{"server": "context7", "tool": "t", "arguments": VALUE}'),
        ("POST", "/api/mcp/session", '{"code": VALUE}'),
        ("PUT", "/api/mcp", "VALUE"),
    ]
    cases: list[tuple[str, str, bytes]] = []
    for depth in (600, 100_000):
        for kind in ("[", "{"):
            deep = _nest(depth, kind=kind)
            cases += [(method, path, _fill(template, base, deep)) for method, path, template in templates]
    wide_array = "[" + ",".join(["0"] * 200_000) + "]"
    wide_object = "{" + ",".join(f'"k{index}":0' for index in range(60_000)) + "}"
    cases += [
        ("PUT", "/api/mcp", _fill(PUT, base, wide_array)),
        ("PUT", "/api/mcp", _fill('{"baseHash": "BASE", "mcp": VALUE}', base, wide_object)),
        ("PUT", "/api/mcp", _fill(PUT, base, "[1e999]")),
        ("PUT", "/api/mcp", _fill(PUT, base, "-1e999")),
        ("PUT", "/api/mcp", _fill('{"baseHash": "BASE", "mcp": {"\\ud800": 1}}', base)),
        ("PUT", "/api/mcp", _fill('{"baseHash": "BASE", "mcp": {"servers": {"\\udfff": {"command": 1}}}}', base)),
        ("PUT", "/api/mcp", _fill(PUT, base, "1" * 5000)),
        ("PUT", "/api/mcp", _fill('{"baseHash": "BASE", "mcp": {"a\\nb\\u2028c": 1}}', base)),
        ("POST", "/api/mcp/apps/tools", b'{"server": "a\\nb"}'),
    ]
    return cases


def test_hostile_bodies_get_one_line_4xx_and_write_nothing(ui: UiProcess) -> None:
    before, tree = ui.raw(), _tree(ui.directory)
    for method, path, body in hostile_bodies(ui.file_hash()):
        status, answer = _send(ui, method, path, body)
        label = (method, path, body[:60], status, str(answer)[:200])
        assert 400 <= status < 500, label
        message = answer["error"]["message"]
        assert isinstance(message, str) and message and "\n" not in message, label
        assert "Traceback" not in message and "Recursion" not in message, label
        assert ui.raw() == before, label
        assert _tree(ui.directory) == tree, label
    status, answer = _send(ui, "PUT", "/api/mcp", _nest(100_000).encode())
    assert answer["error"]["message"] == "Invalid JSON: nested deeper than 64 levels"


def test_a_deep_stored_config_is_a_4xx_not_a_500(ui: UiProcess) -> None:
    document = ui.config()
    text = json.dumps(document)[:-1] + ', "deep": ' + _nest(5000) + "}"
    ui.config_path.write_text(text, encoding="utf-8")
    status, answer = _send(ui, "GET", "/api/mcp", None)
    assert 400 <= status < 500
    assert "\n" not in answer["error"]["message"]


def test_odd_shapes_are_redacted_in_the_snapshot(tmp_path: Path) -> None:
    process = UiProcess(tmp_path, {"mcp": odd_mcp()})
    process.start()
    try:
        status, _, raw = process.request("GET", "/api/mcp", bearer=True)
        assert status == 200
        for secret in SECRETS:
            assert secret.encode() not in raw, secret
        assert REDACTED.encode() in raw
    finally:
        assert process.stop() == 0


def test_a_redacted_client_metadata_url_is_restored_on_save(tmp_path: Path) -> None:
    config = seed_config()
    meta = "https://auth.example.com/client.json?token=metatoken123"
    config["mcp"]["servers"]["docs"]["oauth"]["clientMetadataUrl"] = meta
    process = UiProcess(tmp_path, config)
    process.start()
    try:
        before = process.raw()
        status, snapshot = _send(process, "GET", "/api/mcp", None)
        assert status == 200 and snapshot["valid"] is True
        assert snapshot["mcp"]["servers"]["docs"]["oauth"]["clientMetadataUrl"] == REDACTED
        assert "metatoken123" not in json.dumps(snapshot)
        body = json.dumps({"baseHash": snapshot["hash"], "mcp": snapshot["mcp"]}).encode()
        status, answer = _send(process, "PUT", "/api/mcp", body)
        assert (status, answer["changedPaths"]) == (200, [])
        assert process.config()["mcp"]["servers"]["docs"]["oauth"]["clientMetadataUrl"] == meta
        assert process.config()["mcp"] == json.loads(before)["mcp"]
    finally:
        assert process.stop() == 0


# -- the opened URL --------------------------------------------------------------------------------------------


def recording_browser(directory: Path) -> Path:
    """A ``$BROWSER`` that records the argv it is started with (how ``webbrowser`` launches a browser)."""
    script = directory / "record-browser"
    script.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$RECORDED_ARGV"\n', encoding="utf-8")
    script.chmod(0o755)
    return script


def test_opened_url_holds_a_single_use_code_in_a_private_file_not_the_token(tmp_path: Path) -> None:
    argv_file = tmp_path / "argv.txt"
    browser = recording_browser(tmp_path)
    process = OpenedUi(
        tmp_path / "state",
        seed_config(),
        env={"BROWSER": str(browser), "RECORDED_ARGV": str(argv_file), "DISPLAY": ""},
    )
    process.start()
    try:
        deadline = 200
        while not argv_file.exists() and deadline:
            time.sleep(0.05)
            deadline -= 1
        argv = argv_file.read_text(encoding="utf-8")
        assert process.token not in argv
        opened = urlsplit(argv.strip())
        assert opened.scheme == "file"
        page = Path(unquote(opened.path))
        assert page.is_relative_to(process.directory)
        assert stat.S_IMODE(page.stat().st_mode) == 0o600
        html = page.read_text(encoding="utf-8")
        assert process.token not in html
        found = re.search(rf"{re.escape(process.origin)}/settings/mcp#code=([A-Za-z0-9_-]+)", html)
        assert found is not None, html
        code = found.group(1)
        assert code not in argv

        def redeem(value: str) -> tuple[int, dict[str, Any]]:
            status, _, raw = process.request(
                "POST",
                "/api/mcp/session",
                headers={"Content-Type": "application/json"},
                body=json.dumps({"code": value}).encode(),
            )
            return status, json.loads(raw)

        assert redeem("not-the-code")[0] == 401
        assert redeem(code) == (200, {"ok": True, "token": process.token})
        assert not page.exists()  # the file is gone once used
        assert redeem(code) == (401, {"ok": False, "error": {"type": "unauthorized", "message": "Unauthorized"}})
    finally:
        assert process.stop() == 0
    assert all(line.startswith("MCP Apps sandbox: ") for line in process.extra_stdout)
    assert not list(process.directory.rglob("*.html"))


def test_a_stored_lone_surrogate_or_infinity_is_still_answered_as_json(ui: UiProcess) -> None:
    text = ui.config_path.read_text(encoding="utf-8")
    ui.config_path.write_text(text.replace('"context7-mcp"', '"context7-\\ud800", Infinity, NaN', 1), encoding="utf-8")
    status, _, raw = ui.request("GET", "/api/mcp", bearer=True)
    assert status == 200
    snapshot = json.loads(raw)
    assert snapshot["mcp"]["servers"]["context7"]["args"] == ["context7-\ud800", None, None]
