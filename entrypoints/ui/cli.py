"""``openclaw mcp ui``: the MCP settings page as a local process (spec mcp-settings-page §11.1).

Binds 127.0.0.1 only, makes a fresh token per process (never written anywhere but the printed URL), prints
the URL, opens it unless ``--no-open``, and serves until SIGINT, SIGTERM or SIGHUP (exit 0). The page's
writes go through the registry's config service, composed exactly as the registry commands compose it."""

from __future__ import annotations

import errno
import io
import logging
import secrets
import signal
import socket
import sys
import time
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from typing import Any

import anyio

from application.errors import CommandError
from application.registry import not_found_message
from domain.redaction import redact_text_line
from entrypoints import composition
from entrypoints.cli.console import Console

__all__ = ["ui_command"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class UsageProblem(Exception):
    pass


def _port(value: object, flag: str) -> int:
    if value is None:
        return 0
    text = str(value).strip()
    if not text.isdigit() or int(text) > 65535:
        raise UsageProblem(f"{flag} must be a port number from 0 to 65535.")
    return int(text)


def _listen(port: int) -> socket.socket:
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP (a keep-alive
    # response would otherwise wait ≈40 ms for a delayed ACK)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        reason = "address already in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc)).lower()
        raise UsageProblem(f"Cannot listen on 127.0.0.1:{port}: {reason}.") from exc
    return sock


class _StopRequest:
    """Signals that arrive before the server runs (while it starts): remembered, then honoured at once."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, sig: int, frame: object) -> None:
        self.requested = True


def ui_command(options: Mapping[str, Any], env: Mapping[str, str], console: Console | None = None) -> int:
    """Run the page until a signal; returns the exit code."""
    early = _StopRequest()
    previous = {sig: signal.signal(sig, early) for sig in _SIGNALS}
    try:
        return _run(options, env, console or Console(), early)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run(options: Mapping[str, Any], env: Mapping[str, str], out: Console, early: _StopRequest) -> int:
    try:
        port = _port(options.get("port"), "--port")
        apps_port = options.get("apps_port")
        apps = _port(apps_port, "--apps-port") if apps_port is not None else None
        sock = _listen(port)
    except UsageProblem as exc:
        out.err(str(exc))
        return 1
    with sock:
        bound = sock.getsockname()[1]
        token = secrets.token_urlsafe(32)
        url = f"http://127.0.0.1:{bound}/settings/mcp#token={token}"
        out.raw_out(url if options.get("print_url") else f"MCP settings: {url}")
        sys.stdout.flush()
        if options.get("open", True):
            _open_browser(url)
        apps_origin = f"http://127.0.0.1:{apps} http://localhost:{apps}" if apps else None
        if early.requested:
            return 0
        return anyio.run(_serve, sock, bound, token, apps_origin, dict(env), out, early)


def _open_browser(url: str) -> None:
    import webbrowser

    try:
        webbrowser.open(url)
    except webbrowser.Error:
        pass


async def _serve(
    sock: socket.socket,
    port: int,
    token: str,
    apps_origin: str | None,
    env: dict[str, str],
    console: Console,
    early: _StopRequest,
) -> int:
    import uvicorn

    from application.settings_page import McpSettings
    from entrypoints.ui.app import UiSettings, create_app

    registry = composition.registry(env, console.err)
    settings = McpSettings(registry, composition.clock())

    async def probe(name: str) -> dict[str, Any]:
        return await _probe(registry, name, env)

    servers: list[Any] = []
    app = create_app(settings, UiSettings(port, token, apps_origin), probe, lambda: servers[0].should_exit)
    _one_line_logs()
    config = uvicorn.Config(
        app,
        log_config=None,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=3,
        server_header=False,
        date_header=False,
    )
    server = _server(config, early)
    servers.append(server)
    await server.serve(sockets=[sock])
    return 0


class _OneLine(logging.Formatter):
    """uvicorn's log records as one line each: no tracebacks on stderr (the message names the failure)."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            failure = record.exc_info[1]
            text = f"{text}: {type(failure).__name__}: {failure}".rstrip(": ")
        return "[mcp ui] " + redact_text_line(" ".join(text.split()))


def _one_line_logs() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.asgi"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
        logger.setLevel(logging.WARNING)


def _server(config: Any, early: _StopRequest) -> Any:
    """uvicorn's server whose signals end the serve loop and nothing else (uvicorn re-raises the signal after
    shutdown, which would end the process with 128+n instead of exit 0)."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextmanager
        def capture_signals(self) -> Generator[None, None, None]:
            previous = {sig: signal.signal(sig, self._stop) for sig in _SIGNALS}
            if early.requested:
                self.should_exit = True
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

        def _stop(self, sig: int, frame: object) -> None:
            if self.should_exit:
                self.force_exit = True
            self.should_exit = True

    return Server(config)


async def _probe(registry: Any, name: str, env: Mapping[str, str]) -> dict[str, Any]:
    """``openclaw mcp probe <name>`` for the page's Probe button: the ``probe --json`` document, the text
    lines, the diagnostics the command prints on stderr, and the connect-to-catalog time."""
    from domain.probe import probe_issue, probe_lines
    from entrypoints.cli.probing import run_probe

    analysis = await registry.load()
    if name not in analysis.servers:
        raise _not_found(name, registry.path)
    server = analysis.servers[name]
    if server.get("enabled") is False:
        raise CommandError(
            f'MCP server "{name}" is disabled in {registry.path}. Run openclaw mcp configure {name} --enable '
            "before probing it."
        )
    stderr = io.StringIO()
    console = Console(io.StringIO(), stderr)
    started = time.monotonic()
    result = await run_probe({name: server}, "openclaw-mcp-ui-probe", console, env)
    elapsed = round((time.monotonic() - started) * 1000)
    issue = probe_issue(registry.path, result, {name: server})
    diagnostics = [line for line in stderr.getvalue().splitlines() if line]
    if issue is not None:
        diagnostics.append(issue)
    return {
        "ok": issue is None,
        "name": name,
        "elapsedMs": elapsed,
        "result": result,
        "lines": [redact_text_line(line) for line in probe_lines(registry.path, result)],
        "toolFilter": server.get("toolFilter"),
        "diagnostics": diagnostics,
    }


def _not_found(name: str, path: str) -> Exception:
    from application.errors import ServerNotFoundError

    return ServerNotFoundError(not_found_message(name, path))
