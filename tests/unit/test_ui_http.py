"""``openclaw mcp ui`` over raw HTTP on loopback (spec mcp-settings-page §11.1–§11.3): the guards, bad input,
redaction and the success shapes, against the real process; and its command-line behaviour."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import OPENCLAW, UiProcess, seed_config

REDACTED = "__OPENCLAW_REDACTED__"
NOT_FOUND = 'No MCP server named "{name}" in {path}. Run openclaw mcp list to see configured servers.'


@pytest.fixture
def ui(tmp_path: Path) -> Iterator[UiProcess]:
    process = UiProcess(tmp_path, seed_config())
    process.start()
    try:
        yield process
    finally:
        process.stop()


def _json(ui: UiProcess, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    sent = {"Content-Type": "application/json", **headers} if data is not None else dict(headers)
    status, _, raw = ui.request(method, path, headers=sent, body=data, bearer=True)
    return status, json.loads(raw) if raw else None


def _tree(directory: Path) -> list[str]:
    return sorted(str(path.relative_to(directory)) for path in directory.rglob("*") if path.name != "ui.stderr")


# -- guards ------------------------------------------------------------------------------------------------


def test_token_host_origin_and_headers(ui: UiProcess) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Bearer {ui.token}x"}):
        status, _, body = ui.request("GET", "/api/mcp", headers=headers)
        assert status == 401
        assert json.loads(body) == {"ok": False, "error": {"type": "unauthorized", "message": "Unauthorized"}}
    status, _, _ = ui.request("GET", "/api/mcp/events", headers={"Authorization": "Basic x"})
    assert status == 401
    for host in ("evil.example", f"127.0.0.1:{ui.port + 1}", "127.0.0.1"):
        for path in ("/settings/mcp", "/api/mcp"):
            status, _, _ = ui.request("GET", path, headers={"Host": host}, bearer=True)
            assert status == 421, (host, path)
    status, _, _ = ui.request("GET", "/api/mcp", headers={"Host": f"localhost:{ui.port}"}, bearer=True)
    assert status == 200
    status, _, _ = ui.request("GET", "/api/mcp", headers={"Origin": "http://evil.example"}, bearer=True)
    assert status == 403
    status, _, _ = ui.request("GET", "/api/mcp", headers={"Origin": ui.origin}, bearer=True)
    assert status == 200
    for path in ("/settings/mcp", "/mcp", "/api/mcp", "/nope"):
        status, headers, _ = ui.request("GET", path, bearer=True)
        assert headers["cache-control"] == "no-store"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
        policy = headers["content-security-policy"]
        for part in ("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'none'"):
            assert part in policy
    status, headers, body = ui.request("GET", "/nope")
    assert (status, headers["content-type"].split(";")[0], body) == (404, "text/plain", b"Not Found")
    status, _, page = ui.request("GET", "/settings/mcp")
    assert status == 200 and ui.token.encode() not in page
    assert ui.token not in ui.stderr()


# -- bad input ---------------------------------------------------------------------------------------------


def test_bad_bodies_are_refused_and_write_nothing(ui: UiProcess) -> None:
    before, tree = ui.raw(), _tree(ui.directory)
    base = ui.file_hash()
    path = "/api/mcp/servers/context7/enabled"
    big = json.dumps({"baseHash": base, "enabled": False, "pad": "x" * (1024 * 1024)}).encode()
    assert _json(ui, "POST", path, big)[0] == 413
    status, _, _ = ui.request(
        "POST", path, headers={"Content-Type": "text/plain"}, body=b'{"enabled": false}', bearer=True
    )
    assert status == 415
    status, answer = _json(ui, "POST", path, b"{")
    assert status == 422 and answer["error"]["message"].startswith("Invalid JSON")
    status, answer = _json(ui, "POST", path, b'{"baseHash": "a", "baseHash": "b", "enabled": false}')
    assert status == 422 and "duplicate key" in answer["error"]["message"]
    assert _json(ui, "POST", path, {"baseHash": base, "enabled": "no"})[0] == 422
    assert _json(ui, "PUT", "/api/mcp", {"baseHash": base, "mcp": []})[0] == 422
    assert _json(ui, "POST", path, [1])[0] == 422
    assert _json(ui, "PATCH", "/api/mcp", {})[0] == 405
    status, answer = _json(ui, "POST", "/api/mcp/servers/nope/enabled", {"baseHash": base, "enabled": False})
    assert status == 404
    assert answer["error"]["message"] == NOT_FOUND.format(name="nope", path=ui.config_path)
    status, answer = _json(ui, "DELETE", "/api/mcp/servers/..%2F..%2Fetc", {"baseHash": base})
    assert status == 404 and '"../../etc"' in answer["error"]["message"]
    for name in ("../evil", "a/b", "..", " .x", "__proto__", "bad name!"):
        status, answer = _json(
            ui, "POST", "/api/mcp/servers", {"baseHash": base, "name": name, "transport": "stdio", "target": "x"}
        )
        assert status == 422
        assert answer["error"]["message"] == "Server names use letters, numbers, dots, dashes, or underscores."
    deep, deep_600, wide = "[" * 100_000 + "]" * 100_000, "[" * 600 + "]" * 600, ",".join(["0"] * 100_000)
    for method, where, hostile in (  # deep, wide and out-of-range JSON (issue 32)
        ("POST", path, f'{{"baseHash": "{base}", "enabled": false, "x": {deep}}}'),
        ("PUT", "/api/mcp", f'{{"baseHash": "{base}", "mcp": {{"servers": {{"x": {{"args": {deep_600}}}}}}}}}'),
        ("PUT", "/api/mcp", f'{{"baseHash": "{base}", "mcp": {{"servers": {{"x": {{"args": [{wide}]}}}}}}}}'),
        ("POST", path, f'{{"baseHash": "{base}", "enabled": 1e999}}'),
    ):
        status, answer = _json(ui, method, where, hostile.encode())
        assert 400 <= status < 500 and "\n" not in answer["error"]["message"], hostile[:80]
    status, answer = _json(ui, "POST", path, {"baseHash": "sha256:stale", "enabled": False})
    assert status == 409
    assert answer["error"] == {
        "type": "conflict",
        "message": "config changed since last load; re-run config.get and retry",
    }
    assert ui.raw() == before
    assert _tree(ui.directory) == tree


# -- redaction and the editor --------------------------------------------------------------------------------


def test_snapshot_is_redacted_and_a_save_restores_the_secrets(ui: UiProcess) -> None:
    status, snapshot = _json(ui, "GET", "/api/mcp")
    assert status == 200
    text = json.dumps(snapshot)
    for secret in ("s3cret", "ghp_", "abcdefghijklmnop123456", "internal.example", "token=abc"):
        assert secret not in text
    assert REDACTED in text and "abc123" in text  # args are sent in clear (§2.2)
    original = ui.config()
    status, answer = _json(ui, "PUT", "/api/mcp", {"baseHash": snapshot["hash"], "mcp": snapshot["mcp"]})
    assert status == 200 and answer["ok"] is True and answer["changedPaths"] == []
    assert ui.config()["mcp"] == original["mcp"]
    mcp = snapshot["mcp"]
    mcp["servers"]["context7"]["command"] = REDACTED
    status, answer = _json(ui, "PUT", "/api/mcp", {"baseHash": ui.file_hash(), "mcp": mcp})
    assert status == 422
    assert answer["error"]["message"] == "mcp.servers.context7.command: redacted placeholder cannot be saved here"
    mcp["servers"]["context7"]["command"] = "uvx"
    mcp["servers"]["context7"]["auth"] = "bogus"
    status, answer = _json(ui, "PUT", "/api/mcp", {"baseHash": ui.file_hash(), "mcp": mcp})
    assert status == 422
    assert answer["error"]["message"] == 'mcp.servers.context7.auth: Invalid input: expected "oauth" (allowed: "oauth")'
    assert answer["error"]["issues"][0]["path"] == "mcp.servers.context7.auth"
    after = ui.config()
    assert (after["gateway"], after["agents"]) == (original["gateway"], original["agents"])


def test_success_shapes(ui: UiProcess) -> None:
    status, answer = _json(
        ui,
        "POST",
        "/api/mcp/servers",
        {"baseHash": ui.file_hash(), "name": "notes", "transport": "stdio", "target": "npx -y 'a b'"},
    )
    assert status == 200
    assert answer == {
        "ok": True,
        "hash": ui.file_hash(),
        "changedPaths": ["mcp.servers.notes"],
        "message": "Added MCP server notes.",
    }
    status, answer = _json(
        ui, "POST", "/api/mcp/servers/context7/enabled", {"baseHash": ui.file_hash(), "enabled": False}
    )
    assert (answer["message"], answer["changedPaths"]) == (
        "Disabled MCP server context7.",
        ["mcp.servers.context7.enabled"],
    )
    assert ui.servers()["context7"]["enabled"] is False
    status, answer = _json(
        ui, "POST", "/api/mcp/servers/o%27brien%20legacy/enabled", {"baseHash": ui.file_hash(), "enabled": True}
    )
    assert answer["message"] == "Enabled MCP server o'brien legacy."
    assert "enabled" not in ui.servers()["o'brien legacy"]
    status, answer = _json(ui, "DELETE", "/api/mcp/servers/notes", {"baseHash": ui.file_hash()})
    assert answer["message"] == "Removed MCP server notes."
    assert "notes" not in ui.servers()
    assert (ui.directory / "openclaw.json.bak").exists()


def test_read_only_mode_refuses_mutations(tmp_path: Path) -> None:
    process = UiProcess(tmp_path, seed_config())
    process.env["OPENCLAW_CONFIG_READONLY"] = "1"
    process.start()
    try:
        before = process.raw()
        status, answer = _json(
            process, "POST", "/api/mcp/servers/context7/enabled", {"baseHash": process.file_hash(), "enabled": False}
        )
        assert status == 409 and answer["error"]["type"] == "readonly"
        assert process.raw() == before
    finally:
        process.stop()


def test_events_announce_an_external_write(ui: UiProcess) -> None:
    with socket.create_connection(("127.0.0.1", ui.port), timeout=5) as sock:
        request = (
            f"GET /api/mcp/events HTTP/1.1\r\nHost: 127.0.0.1:{ui.port}\r\nAuthorization: Bearer {ui.token}\r\n\r\n"
        )
        sock.sendall(request.encode())
        received = b""
        while b": connected" not in received:
            received += sock.recv(4096)
        assert b"text/event-stream" in received
        document = ui.config()
        document["mcp"]["servers"]["external"] = {"command": "x"}
        ui.write_config(document)
        deadline = time.monotonic() + 3
        while b"event: config.changed" not in received and time.monotonic() < deadline:
            received += sock.recv(4096)
        assert b"event: config.changed" in received
        assert ui.file_hash().encode() in received


def test_invalid_config_is_reported_and_mutations_refused(tmp_path: Path) -> None:
    process = UiProcess(tmp_path, {"mcp": {"servers": {"x": {"command": 1}}}})
    process.start()
    try:
        status, snapshot = _json(process, "GET", "/api/mcp")
        assert status == 200 and snapshot["valid"] is False and snapshot["issues"]
        status, _ = _json(
            process, "POST", "/api/mcp/servers/x/enabled", {"baseHash": process.file_hash(), "enabled": False}
        )
        assert status == 422
    finally:
        process.stop()


# -- the command ---------------------------------------------------------------------------------------------


def _env(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENCLAW_")}
    (tmp_path / "home").mkdir(exist_ok=True)
    env.update(
        OPENCLAW_STATE_DIR=str(tmp_path),
        HOME=str(tmp_path / "home"),
        OPENCLAW_CONFIG_PATH=str(tmp_path / "openclaw.json"),
    )
    return env


def test_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [str(OPENCLAW), "mcp", "ui", "--no-open", "--port", str(port)],
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == f"Cannot listen on 127.0.0.1:{port}: address already in use.\n"


def test_help_and_hidden_from_the_group_help(tmp_path: Path) -> None:
    env = _env(tmp_path)
    done = subprocess.run(
        [str(OPENCLAW), "mcp", "ui", "--help"], env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0
    for flag in ("--port", "--no-open", "--print-url", "--apps-port"):
        assert flag in done.stdout
    group = subprocess.run(
        [str(OPENCLAW), "mcp", "--help"], env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert " ui " not in group.stdout


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signals_end_it_with_exit_0(tmp_path: Path, signo: signal.Signals) -> None:
    process = UiProcess(tmp_path, seed_config())
    process.start()
    os.kill(process.pid, signo)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and process._process is not None and process._process.poll() is None:
        time.sleep(0.02)
    assert process.stop() == 0
    assert "Traceback" not in process.stderr()
