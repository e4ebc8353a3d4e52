"""Hardening of ``openclaw mcp ui`` in a real headless Chromium (issue 32): the browser the command launches
never holds the page token on its command line yet ends up on the authenticated page, and the editor shows
no secret whatever the config's shape."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import CHROMIUM_ARGS, seed_config
from tests.browser.hardening_cases import SECRETS, OpenedUi, odd_mcp

try:
    from playwright.sync_api import Browser, Page, expect
    from playwright.sync_api import Error as PlaywrightError
except ImportError as exc:  # a missing tool skips locally and fails under CI
    if os.environ.get("CI"):
        raise
    pytest.skip(f"playwright is not installed ({exc})", allow_module_level=True)

if TYPE_CHECKING:
    from tests.browser.conftest import PageFactory, UiFactory

SENTINEL = "__OPENCLAW_REDACTED__"
ROWS = "#mcp-server-list > div.settings-row.mcp-server-row[data-mcp-name]"
LAUNCH_TIMEOUT_S = 30.0


# -- a browser launched the way the command launches one ------------------------------------------------------


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def _family(root: int) -> list[int]:
    """``root`` and every live descendant of it (from ``/proc/<pid>/stat``)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    family, frontier = [root], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        family.extend(children)
        frontier.extend(children)
    return family


class LaunchedChromium:
    """A ``$BROWSER`` program that starts the real headless Chromium on the URL it is given, in its own session,
    with a DevTools port the test connects to; stopped by its process group id at the end."""

    def __init__(self, directory: Path) -> None:
        executable = shutil.which(os.environ.get("CHROMIUM") or "/usr/bin/chromium")
        if executable is None:
            pytest.skip("Chromium is not installed")
        directory.mkdir(parents=True, exist_ok=True)
        self.profile = directory / "profile"
        self.pid_file = directory / "chromium.pid"
        self.script = directory / "launch-browser"
        flags = " ".join([*CHROMIUM_ARGS, "--headless=new", "--remote-debugging-port=0"])
        self.script.write_text(
            "#!/bin/sh\n"
            f'setsid {executable} {flags} --user-data-dir="{self.profile}" "$1" </dev/null >/dev/null 2>&1 &\n'
            f'echo $! > "{self.pid_file}"\n',
            encoding="utf-8",
        )
        self.script.chmod(0o755)
        self.pid = 0

    def wait_started(self) -> int:
        deadline = time.monotonic() + LAUNCH_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.pid_file.exists() and self.pid_file.read_text().strip():
                self.pid = int(self.pid_file.read_text())
                return self.pid
            time.sleep(0.05)
        raise AssertionError("the browser was never launched")

    def devtools_port(self) -> int:
        active = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + LAUNCH_TIMEOUT_S
        while time.monotonic() < deadline:
            if active.exists() and active.read_text().strip():
                return int(active.read_text().split()[0])
            time.sleep(0.05)
        raise AssertionError("Chromium never opened its DevTools port")

    def command_lines(self) -> list[str]:
        return [_cmdline(pid) for pid in _family(self.pid)]

    def stop(self) -> None:
        """SIGTERM to the browser's process group (its id is the launched pid), then SIGKILL if it lingers."""
        if not self.pid:
            return
        for signo in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.pid, signo)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and _alive(self.pid):
                time.sleep(0.05)
            if not _alive(self.pid):
                return


def _alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for its reaper)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :][:1] != "Z"


@pytest.fixture
def launched(tmp_path: Path) -> Iterator[LaunchedChromium]:
    chromium = LaunchedChromium(tmp_path / "browser")
    try:
        yield chromium
    finally:
        chromium.stop()


def test_the_launched_browser_holds_no_token_and_reaches_the_page(
    tmp_path: Path, browser: Browser, launched: LaunchedChromium
) -> None:
    ui = OpenedUi(tmp_path / "state", seed_config(), env={"BROWSER": str(launched.script), "DISPLAY": ""})
    ui.start()
    try:
        launched.wait_started()
        seen: list[str] = []
        port = launched.devtools_port()
        seen += launched.command_lines()
        remote = browser.browser_type.connect_over_cdp(f"http://127.0.0.1:{port}")
        try:
            deadline = time.monotonic() + LAUNCH_TIMEOUT_S
            pages: list[Page] = []
            while not pages and time.monotonic() < deadline:
                seen += launched.command_lines()
                time.sleep(0.1)
                # page.url is what the page had when DevTools attached: ask the page where it is now
                pages = [p for c in remote.contexts for p in c.pages if _at(p, f"{ui.origin}/settings/mcp")]
            assert pages, "the launched browser never reached the settings page"
            page = pages[0]
            expect(page.locator(ROWS)).to_have_count(6)
            assert page.evaluate("location.hash") == ""
            assert page.evaluate("location.pathname") == "/settings/mcp"
            seen += launched.command_lines()
        finally:
            remote.close()
    finally:
        assert ui.stop() == 0
    assert seen and any("chromium" in line for line in seen)
    for line in seen:
        assert ui.token not in line, line
        assert "#token=" not in line and "#code=" not in line, line
    assert any(".html" in line and "file://" in line for line in seen), seen
    assert not list((ui.directory / "ui").glob("*.html"))  # the redirect file is gone once used


def _at(page: Page, where: str) -> bool:
    try:
        href: str = page.evaluate("location.origin + location.pathname")
    except PlaywrightError:  # navigating right now
        return False
    return href == where


# -- the editor over odd shapes ---------------------------------------------------------------------------------


def test_the_editor_shows_no_secret_of_odd_shapes(ui_factory: UiFactory, new_page: PageFactory) -> None:
    ui = ui_factory({"mcp": odd_mcp()})
    page = new_page()
    page.goto(ui.url)
    editor = page.locator("textarea#mcp-editor")
    expect(editor).not_to_have_value("")
    expect(page.locator(ROWS)).to_have_count(len(odd_mcp()["servers"]))
    shown = editor.input_value()
    body = page.locator("body").inner_text()
    for secret in SECRETS:
        assert secret not in shown, secret
        assert secret not in body, secret
    document = json.loads(shown)
    assert document["servers"]["bare"] == SENTINEL
    assert document["servers"]["url-list"]["url"] == [SENTINEL]
    assert document["servers"]["meta-token"]["oauth"]["clientMetadataUrl"] == SENTINEL
    assert document["servers"]["arg-key"]["args"] == [SENTINEL, "--token", "abc123"]
