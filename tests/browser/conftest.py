"""Harness of the settings page's real-browser tier (spec mcp-settings-page §12).

One headless Chromium per module (Debian's ``/usr/bin/chromium``, or ``$CHROMIUM``) driven by Playwright's sync
API. Per test: an isolated temp dir (``OPENCLAW_STATE_DIR``, ``HOME``, ``OPENCLAW_CONFIG_PATH`` holding the §0.3
seed) and a real ``openclaw mcp ui --no-open --print-url`` process, whose URL is read from stdout and which is
stopped by its PID (SIGTERM, then SIGKILL) at the end. A missing Chromium or Playwright skips the tier, except
under ``CI``, where it fails it."""

from __future__ import annotations

import copy
import hashlib
import http.client
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn

import pytest

from tests.fixtures.reference_cases import FIXTURES

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

__all__ = [
    "ARTIFACTS",
    "OPENCLAW",
    "SEED_PATH",
    "PageFactory",
    "Screenshot",
    "UiFactory",
    "UiProcess",
    "seed_config",
]

ROOT = Path(__file__).resolve().parents[2]
SEED_PATH = FIXTURES / "mcp-page-seed.json"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
OPENCLAW = Path(sys.executable).parent / "openclaw"

URL_PATTERN = re.compile(r"http://127\.0\.0\.1:(\d+)/settings/mcp#token=(\S+)")
URL_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0
EXPECT_TIMEOUT_MS = 10_000
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def missing(reason: str) -> NoReturn:
    """A tool this tier needs is absent: skip locally, fail under CI."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (required under CI)", pytrace=False)
    pytest.skip(reason)


def seed_config() -> dict[str, Any]:
    """A fresh copy of the §0.3 seed."""
    if not SEED_PATH.is_file():
        missing(f"the page seed {SEED_PATH} is not present")
    document: dict[str, Any] = json.loads(SEED_PATH.read_text(encoding="utf-8"))
    return copy.deepcopy(document)


def _chromium_executable() -> str:
    wanted = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
    found = shutil.which(wanted)
    if found is None:
        missing(f"Chromium not found at {wanted} (install Debian chromium or set CHROMIUM)")
    return found


class UiProcess:
    """One ``openclaw mcp ui`` process over its own isolated config."""

    def __init__(
        self,
        directory: Path,
        config: dict[str, Any],
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.directory = directory
        self.args = args
        self.home = directory / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.config_path = directory / "openclaw.json"
        self.config_path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("OPENCLAW_")}
        self.env.update(
            {
                "OPENCLAW_STATE_DIR": str(directory),
                "HOME": str(self.home),
                "OPENCLAW_CONFIG_PATH": str(self.config_path),
            }
        )
        self.env.update(env or {})
        self._stderr_path = directory / "ui.stderr"
        self._stderr: IO[bytes] | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._reader: threading.Thread | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self.extra_stdout: list[str] = []
        self.url = ""
        self.port = 0
        self.token = ""

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> None:
        if not OPENCLAW.exists():
            pytest.fail(f"{OPENCLAW} does not exist (install the project into this venv)", pytrace=False)
        self._stderr = self._stderr_path.open("wb")
        self._process = subprocess.Popen(
            [str(OPENCLAW), "mcp", "ui", "--no-open", "--print-url", *self.args],
            env=self.env,
            cwd=self.directory,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        stdout = self._process.stdout
        assert stdout is not None
        self._reader = threading.Thread(target=self._read, args=(stdout,), name="openclaw-mcp-ui-stdout", daemon=True)
        self._reader.start()
        try:
            first = self._lines.get(timeout=URL_TIMEOUT_S)
        except queue.Empty:
            first = None
            problem = f"no URL on stdout within {URL_TIMEOUT_S:.0f} s"
        else:
            problem = "the process ended without printing a URL"
        if first is None:
            self.stop()
            pytest.fail(f"openclaw mcp ui: {problem}; stderr: {self.stderr()!r}", pytrace=False)
        line = first.decode("utf-8", "replace").strip()
        match = URL_PATTERN.fullmatch(line)
        if match is None:
            self.stop()
            pytest.fail(f"openclaw mcp ui printed {line!r}, not the bare page URL", pytrace=False)
        self.url = line
        self.port = int(match.group(1))
        self.token = match.group(2)

    def _read(self, stream: IO[bytes]) -> None:
        for line in iter(stream.readline, b""):
            self._lines.put(line)
        self._lines.put(None)

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    def stop(self) -> int | None:
        """SIGTERM by PID, wait, SIGKILL if it does not end; returns the exit code (idempotent)."""
        process = self._process
        if process is None:
            return None
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait(timeout=STOP_TIMEOUT_S)
        if self._reader is not None:
            self._reader.join(timeout=STOP_TIMEOUT_S)
            self._reader = None
            while True:
                try:
                    item = self._lines.get_nowait()
                except queue.Empty:
                    break
                if item is not None and item.strip():
                    self.extra_stdout.append(item.decode("utf-8", "replace").rstrip("\n"))
        if process.stdout is not None:
            process.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        return process.returncode

    def stderr(self) -> str:
        try:
            return self._stderr_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    # -- addresses and the file ----------------------------------------------------------------------------

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def page_url_without_token(self) -> str:
        return f"{self.origin}/settings/mcp"

    def raw(self) -> bytes:
        return self.config_path.read_bytes()

    def config(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(self.raw())
        return document

    def file_hash(self) -> str:
        return "sha256:" + hashlib.sha256(self.raw()).hexdigest()

    def servers(self) -> dict[str, Any]:
        servers: dict[str, Any] = self.config()["mcp"]["servers"]
        return servers

    def write_config(self, document: dict[str, Any]) -> None:
        """Another writer: replace the file atomically (temp file + rename), as a well-behaved tool would."""
        temp = self.config_path.with_name(f".{self.config_path.name}.external-{os.getpid()}.tmp")
        temp.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(temp, self.config_path)

    # -- raw HTTP on loopback ----------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        body: bytes | None = None,
        bearer: bool = False,
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            sent = dict(headers or {})
            if bearer:
                sent["Authorization"] = f"Bearer {self.token}"
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read()
            return response.status, {key.lower(): value for key, value in response.getheaders()}, data
        finally:
            connection.close()


UiFactory = Callable[..., UiProcess]
PageFactory = Callable[..., "Page"]
Screenshot = Callable[["Page", str], Path]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = _chromium_executable()
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError as exc:
        missing(f"playwright is not installed ({exc})")
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    manager = sync_playwright().start()
    try:
        launched = manager.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()
    finally:
        manager.stop()


@pytest.fixture
def ui_factory(tmp_path: Path) -> Iterator[UiFactory]:
    """Start ``openclaw mcp ui`` over a fresh state dir; every process is stopped (and must exit 0) at the end."""
    started: list[UiProcess] = []

    def start(
        config: dict[str, Any] | None = None,
        name: str = "state",
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> UiProcess:
        directory = tmp_path / name
        directory.mkdir()
        process = UiProcess(directory, seed_config() if config is None else config, args, env)
        started.append(process)
        process.start()
        return process

    yield start
    failures = []
    for process in started:
        code = process.stop()
        if code is not None and code != 0:
            failures.append(f"pid {process.pid} exited {code} on SIGTERM; stderr: {process.stderr()!r}")
    assert failures == [], f"openclaw mcp ui: {failures}"


@pytest.fixture
def ui(ui_factory: UiFactory) -> UiProcess:
    return ui_factory()


@pytest.fixture
def new_page(browser: Browser) -> Iterator[PageFactory]:
    """Pages, each in its own browser context, with the generous default timeouts; an uncaught error in any
    of them fails the test."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def make(**options: Any) -> Page:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(**options)
        contexts.append(context)
        context.set_default_timeout(EXPECT_TIMEOUT_MS)
        context.set_default_navigation_timeout(EXPECT_TIMEOUT_MS)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


@pytest.fixture
def page(new_page: PageFactory) -> Page:
    return new_page()


@pytest.fixture
def screenshot() -> Screenshot:
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page: Page, name: str) -> Path:
        path = ARTIFACTS / name
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
