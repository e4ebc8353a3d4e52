"""MCP Apps on the settings page in a real headless Chromium (spec mcp-apps §14, 1–14): the sandbox listener,
the proxy's guards, the capability, the panel, rendering through the two frames, the app's bridge calls and
their refusals, isolation, lease expiry, the rate limit, nothing on disk, and that the sandbox origin never
receives the page's token. App server: tests/fixtures/app_server.py (a real stdio process per page process)."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.conftest import OPENCLAW
from tests.fixtures.ports import free_port

try:
    from playwright.sync_api import Browser, FrameLocator, Page, expect
except ImportError as exc:  # a missing tool skips locally and fails under CI
    if os.environ.get("CI"):
        raise
    pytest.skip(f"playwright is not installed ({exc})", allow_module_level=True)

if TYPE_CHECKING:
    from tests.browser.conftest import Screenshot, UiFactory, UiProcess

APP_SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "app_server.py"
MIME = "text/html;profile=mcp-app"
CAPABILITY = {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}
NO_CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "media-src 'self' data:; connect-src 'none'; webrtc 'block'; frame-src 'none'; base-uri 'self'; "
    "object-src 'none'; form-action 'none'; frame-ancestors http: https:"
)
SANDBOX_HEADERS = {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": NO_CSP,
    "permissions-policy": "camera=(), microphone=(), geolocation=(), clipboard-write=()",
    "cross-origin-resource-policy": "cross-origin",
    "origin-agent-cluster": "?1",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
}
EXPIRED = "MCP App view expired or is not authorized for this session"


class Apps:
    """One page process with the app server configured, and where its logs go."""

    def __init__(self, ui: UiProcess, apps_port: int, logs: Path) -> None:
        self.ui = ui
        self.apps_port = apps_port
        self.server_log = logs / "app-server.jsonl"
        self.request_log = logs / "sandbox-requests.jsonl"

    @property
    def sandbox_origin(self) -> str:
        return f"http://localhost:{self.apps_port}"

    def server_requests(self, method: str) -> list[dict[str, Any]]:
        if not self.server_log.exists():
            return []
        lines = [json.loads(line) for line in self.server_log.read_text().splitlines() if line.strip()]
        return [line for line in lines if line.get("method") == method]

    def sandbox_requests(self) -> list[dict[str, Any]]:
        if not self.request_log.exists():
            return []
        return [json.loads(line) for line in self.request_log.read_text().splitlines() if line.strip()]


def app_config(logs: Path, page_port: int, *flags: str, enabled: bool = True) -> dict[str, Any]:
    server = {
        "command": sys.executable,
        "args": [str(APP_SERVER), *flags],
        "env": {
            "APP_SERVER_LOG": str(logs / "app-server.jsonl"),
            "APP_SERVER_FETCH_URL": f"http://127.0.0.1:{page_port}/api/mcp",
        },
    }
    return {"mcp": {"apps": {"enabled": enabled}, "servers": {"clock": server}}}


@pytest.fixture
def start_apps(ui_factory: UiFactory, tmp_path: Path) -> Iterator[Any]:
    count = [0]

    def start(*flags: str, enabled: bool = True, env: dict[str, str] | None = None) -> Apps:
        count[0] += 1
        logs = tmp_path / f"logs-{count[0]}"
        logs.mkdir()
        page_port, apps_port = free_port(), free_port()
        extra = {"OPENCLAW_MCP_APPS_REQUEST_LOG": str(logs / "sandbox-requests.jsonl"), **(env or {})}
        ui = ui_factory(
            app_config(logs, page_port, *flags, enabled=enabled),
            name=f"state-{count[0]}",
            args=("--port", str(page_port), "--apps-port", str(apps_port)),
            env=extra,
        )
        return Apps(ui, apps_port, logs)

    yield start


def sandbox_get(apps: Apps, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("localhost", apps.apps_port, timeout=10)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        return response.status, {key.lower(): value for key, value in response.getheaders()}, response.read()
    finally:
        connection.close()


def open_panel(page: Page, apps: Apps) -> None:
    page.goto(apps.ui.url)
    server = page.locator('[data-mcp-app-server="clock"]')
    expect(server).to_be_visible()
    server.get_by_role("button", name="Open app").click()
    expect(page.locator('[data-mcp-app-tool="show-clock"]')).to_be_visible()


def run_clock(page: Page, apps: Apps) -> FrameLocator:
    open_panel(page, apps)
    page.locator('[data-mcp-app-tool="show-clock"]').get_by_role("button", name="Run").click()
    return page.frame_locator("iframe.mcp-app-frame").frame_locator("iframe")


# -- 1. the listener ----------------------------------------------------------------------------------------


def test_1_the_sandbox_listener_exists_only_with_apps_and_serves_only_the_proxy(start_apps: Any) -> None:
    off = start_apps(enabled=False)
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", off.apps_port), timeout=2):
        pass
    on = start_apps()
    status, headers, body = sandbox_get(on, "/mcp-app-sandbox")
    assert status == 200
    assert {key: headers[key] for key in SANDBOX_HEADERS} == SANDBOX_HEADERS
    assert set(headers) - set(SANDBOX_HEADERS) <= {"content-length", "date", "server", "connection", "keep-alive"}
    assert b"<title>MCP App sandbox</title>" in body
    status, _, body = sandbox_get(on, "/mcp-app-sandbox?csp=garbage")
    assert (status, body) == (400, b"invalid MCP App sandbox policy")
    assert sandbox_get(on, "/")[:1] == (404,)
    assert sandbox_get(on, "/mcp-app-sandbox", "POST")[0] == 404
    assert sandbox_get(on, "/settings/mcp")[0] == 404


# -- 2. top-level guard -------------------------------------------------------------------------------------


def test_2_the_proxy_refuses_to_run_as_a_top_level_page(start_apps: Any, browser: Browser) -> None:
    apps = start_apps()
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{apps.sandbox_origin}/mcp-app-sandbox")
        page.wait_for_timeout(300)
        assert any("invalid MCP App sandbox host" in error for error in errors), errors
    finally:
        context.close()


# -- 3. capability ------------------------------------------------------------------------------------------


def test_3_the_capability_is_sent_with_apps_and_not_without(start_apps: Any, page: Page) -> None:
    apps = start_apps()
    open_panel(page, apps)
    initialize = apps.server_requests("initialize")
    assert initialize and initialize[0]["params"]["capabilities"]["extensions"] == CAPABILITY
    # the same server probed with apps off: no extensions
    off = start_apps(enabled=False)
    subprocess.run(
        [str(OPENCLAW), "mcp", "probe", "clock", "--json"],
        env=off.ui.env,
        cwd=off.ui.directory,
        capture_output=True,
        timeout=60,
        check=True,
    )
    sent = off.server_requests("initialize")
    assert sent and "extensions" not in sent[0]["params"]["capabilities"]


# -- 4–8. panel, render, tool calls, isolation --------------------------------------------------------------


def test_4_the_panel_lists_only_model_visible_app_tools(start_apps: Any, page: Page) -> None:
    apps = start_apps()
    open_panel(page, apps)
    tools = page.locator("[data-mcp-app-tool]")
    expect(tools).to_have_count(1)
    assert tools.get_attribute("data-mcp-app-tool") == "show-clock"


def test_5_to_8_render_call_refuse_and_isolate(start_apps: Any, page: Page, screenshot: Screenshot) -> None:
    apps = start_apps()
    sandbox_responses: list[dict[str, str]] = []
    page.on(
        "response",
        lambda response: sandbox_responses.append(response.headers) if "/mcp-app-sandbox" in response.url else None,
    )
    inner = run_clock(page, apps)
    expect(inner.locator("#time")).to_have_text("time=12:00", timeout=15_000)
    outer = page.locator("iframe.mcp-app-frame")
    src = outer.get_attribute("src") or ""
    assert src.startswith(f"{apps.sandbox_origin}/mcp-app-sandbox?")
    assert outer.get_attribute("sandbox") == "allow-scripts allow-same-origin allow-forms"
    expect(outer).to_have_attribute("style", "height: 321px;")
    # 6. the app's own tools/call reaches the server
    inner.locator("#tick").click()
    expect(inner.locator("#ticks")).to_have_text("ticks=1")
    assert [line["params"]["name"] for line in apps.server_requests("tools/call")] == ["show-clock", "tick"]
    # 7. not app-callable
    expect(inner.locator("#secret")).to_have_text('MCP tool "secret-admin" is not app-callable')
    # 8. isolation: CSP blocks the page API, the inner origin is opaque, the header names the app's domain
    expect(inner.locator("#fetch")).to_have_text("fetch blocked")
    srcdoc = next(frame for frame in page.frames if frame.url == "about:srcdoc")
    assert srcdoc.evaluate("window.origin") == "null"
    assert any(
        "connect-src https://api.example.com" in headers.get("content-security-policy", "")
        for headers in sandbox_responses
    )
    screenshot(page, "mcp-apps-view.png")
    # the sandbox origin never received the page's token
    requests = apps.sandbox_requests()
    assert requests, "the sandbox listener logged no request"
    for request in requests:
        text = json.dumps(request)
        assert apps.ui.token not in text
        assert "authorization" not in {key.lower() for key in request["headers"]}


# -- 9. refusals --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--mime-wrong", "resource must use text/html;profile=mcp-app"),
        ("--oversize", "MCP App resource exceeds 2097152 bytes"),
        ("--two-contents", "expected one MCP App resource, received 2"),
    ],
)
def test_9_a_refused_resource_shows_no_view(start_apps: Any, page: Page, flag: str, message: str) -> None:
    apps = start_apps(flag)
    open_panel(page, apps)
    tool = page.locator('[data-mcp-app-tool="show-clock"]')
    tool.get_by_role("button", name="Run").click()
    expect(tool.locator(".mcp-app-message")).to_have_text(f"MCP App unavailable: {message}")
    expect(page.locator("iframe.mcp-app-frame")).to_have_count(0)


# -- 10. blockDescendantFrames ------------------------------------------------------------------------------


def test_10_block_descendant_frames_refuses_the_html(start_apps: Any, browser: Browser) -> None:
    apps = start_apps("--block-frames")
    context = browser.new_context()
    try:
        page = context.new_page()
        messages: list[str] = []
        page.on("console", lambda message: messages.append(message.text))
        page.on("pageerror", lambda error: messages.append(str(error)))
        inner = run_clock(page, apps)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not any("descendant browsing contexts" in m for m in messages):
            page.wait_for_timeout(100)
        assert any("sandbox descendant browsing contexts are disabled" in m for m in messages), messages
        expect(inner.locator("#time")).to_have_count(0)
    finally:
        context.close()


# -- 11. expiry, 12. rate limit -----------------------------------------------------------------------------


def test_11_an_expired_view_refuses_the_app(start_apps: Any, page: Page) -> None:
    apps = start_apps(env={"OPENCLAW_MCP_APPS_VIEW_TTL_MS": "2000"})
    inner = run_clock(page, apps)
    expect(inner.locator("#time")).to_have_text("time=12:00", timeout=15_000)
    page.wait_for_timeout(3000)
    inner.locator("#tick").click()
    expect(inner.locator("#ticks")).to_have_text(EXPIRED)
    expect(page.locator(".mcp-app-view__status")).to_have_text(f"MCP App unavailable: {EXPIRED}")


def test_12_the_31st_tool_call_in_a_minute_is_refused(start_apps: Any, page: Page) -> None:
    apps = start_apps()
    inner = run_clock(page, apps)
    expect(inner.locator("#time")).to_have_text("time=12:00", timeout=15_000)
    inner.locator("#tick31").click()
    expect(inner.locator("#burst")).to_have_text("MCP App request rate limit reached", timeout=30_000)
    outcomes = (inner.locator("#burst-log").text_content() or "").splitlines()
    assert outcomes[:30] == [f"ticks={n}" for n in range(1, 31)]
    assert outcomes[30] == "MCP App request rate limit reached"


# -- 13. nothing on disk ------------------------------------------------------------------------------------


def test_13_views_are_never_written_to_disk(start_apps: Any, page: Page) -> None:
    apps = start_apps()
    inner = run_clock(page, apps)
    expect(inner.locator("#time")).to_have_text("time=12:00", timeout=15_000)
    markers = (b'id="tick31"', b'"time": "12:00"', b'"time":"12:00"', b"ui://clock/view.html")
    for path in apps.ui.directory.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(marker in data for marker in markers), path


# -- 14. a real-world app (optional: needs the npm registry) -------------------------------------------------


def _npm_reachable() -> bool:
    if shutil.which("npx") is None:
        return False
    try:
        with urllib.request.urlopen("https://registry.npmjs.org/@modelcontextprotocol%2fserver-basic-react", timeout=5):
            return True
    except OSError:
        return False


def test_14_the_official_basic_react_example_renders(ui_factory: UiFactory, tmp_path: Path, page: Page) -> None:
    if not _npm_reachable():
        pytest.skip("the npm registry is not reachable (optional real-world check)")
    config = {
        "mcp": {
            "apps": {"enabled": True},
            "servers": {
                "basic-react": {
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-basic-react", "--stdio"],
                    "connectionTimeoutMs": 120_000,
                }
            },
        }
    }
    ui = ui_factory(config, args=("--apps-port", str(free_port())))
    page.goto(ui.url)
    server = page.locator('[data-mcp-app-server="basic-react"]')
    server.get_by_role("button", name="Open app").click()
    tool = page.locator("[data-mcp-app-tool]").first
    expect(tool).to_be_visible(timeout=120_000)
    tool.get_by_role("button", name="Run").click()
    inner = page.frame_locator("iframe.mcp-app-frame").frame_locator("iframe")
    expect(inner.locator("body")).not_to_have_text("", timeout=30_000)


# -- 15. issue 32: a view is bound to the server definition it was granted for ----------------------------------


def app_server_pids(apps: Apps) -> list[int]:
    """Running app-server processes of this page process (matched by their log path in the environment)."""
    needle = f"APP_SERVER_LOG={apps.server_log}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def wait_for(condition: Any, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return bool(condition())


def settings_call(apps: Apps, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    status, _, raw = apps.ui.request(
        method,
        path,
        headers={"Content-Type": "application/json"},
        body=None if body is None else json.dumps(body).encode(),
        bearer=True,
    )
    document: dict[str, Any] = json.loads(raw)
    assert status == 200, (status, document)
    return document


@pytest.mark.parametrize("change", ["removed", "disabled"])
def test_15_a_removed_or_disabled_server_ends_its_view_and_its_process(
    start_apps: Any, page: Page, change: str
) -> None:
    apps = start_apps()
    # Another server, so that removing `clock` never looks like a clobber to the size-drop guard (a write below
    # half of a >= 512-byte config is refused; the config's size depends on the length of the tmp path).
    document = apps.ui.config()
    document["mcp"]["servers"]["keep"] = {"command": "true", "args": ["x" * 1024]}
    apps.ui.write_config(document)
    inner = run_clock(page, apps)
    expect(inner.locator("#time")).to_have_text("time=12:00", timeout=15_000)
    inner.locator("#tick").click()
    expect(inner.locator("#ticks")).to_have_text("ticks=1")
    assert len(app_server_pids(apps)) == 1
    base = settings_call(apps, "GET", "/api/mcp")["hash"]
    if change == "removed":
        assert settings_call(apps, "DELETE", "/api/mcp/servers/clock", {"baseHash": base})["ok"] is True
    else:
        settings_call(apps, "POST", "/api/mcp/servers/clock/enabled", {"baseHash": base, "enabled": False})
    inner.locator("#tick").click()
    expect(inner.locator("#ticks")).to_have_text(EXPIRED)
    expect(page.locator(".mcp-app-view__status")).to_have_text(f"MCP App unavailable: {EXPIRED}")
    assert [line["params"]["name"] for line in apps.server_requests("tools/call")] == ["show-clock", "tick"]
    assert wait_for(lambda: not app_server_pids(apps)), app_server_pids(apps)


def test_15_edited_args_leave_one_live_server_process(start_apps: Any, page: Page) -> None:
    apps = start_apps()
    inner = run_clock(page, apps)
    expect(inner.locator("#time")).to_have_text("time=12:00", timeout=15_000)
    for edit in range(1, 5):
        document = apps.ui.config()
        document["mcp"]["servers"]["clock"]["args"] = [str(APP_SERVER), *(["--blob"] if edit % 2 else [])]
        document["mcp"]["servers"]["clock"]["env"]["APP_SERVER_EDIT"] = str(edit)
        apps.ui.write_config(document)
        inner.locator("#tick").click()  # the old view: its definition changed
        expect(inner.locator("#ticks")).to_have_text(EXPIRED)
        tool = page.locator('[data-mcp-app-tool="show-clock"]')
        tool.get_by_role("button", name="Run").click()  # the new definition: a new runtime, the old one closed
        expect(tool.locator(".mcp-app-message")).to_be_hidden()
        inner = page.frame_locator("iframe.mcp-app-frame").frame_locator("iframe")
        expect(inner.locator("#time")).to_have_text("time=12:00", timeout=15_000)
        inner.locator("#tick").click()
        expect(inner.locator("#ticks")).to_have_text("ticks=1")
    assert wait_for(lambda: len(app_server_pids(apps)) == 1), app_server_pids(apps)


def test_an_open_view_survives_the_panel_following_the_config(start_apps: Any, page: Page) -> None:
    """The Apps panel follows the config live (issue 36); rows that stay are never moved, so an open view keeps its
    state (a moved iframe would reload)."""
    apps = start_apps()
    inner = run_clock(page, apps)
    expect(inner.locator("#time")).to_have_text("time=12:00", timeout=15_000)
    inner.locator("#tick").click()
    expect(inner.locator("#ticks")).to_have_text("ticks=1")
    document = apps.ui.config()
    document["mcp"]["servers"]["another"] = {"command": "true"}
    apps.ui.write_config(document)
    expect(page.locator('[data-mcp-app-server="another"]')).to_have_count(1, timeout=10_000)
    inner.locator("#tick").click()
    expect(inner.locator("#ticks")).to_have_text("ticks=2")
    assert len(app_server_pids(apps)) == 1
