"""``openclaw mcp ui``: the MCP settings page as a local process (spec mcp-settings-page §11.1).

Binds 127.0.0.1 only, makes a fresh token per process (never written anywhere but the printed URL), prints
the URL, opens the page unless ``--no-open``, and serves until SIGINT, SIGTERM or SIGHUP (exit 0). The page's
writes go through the registry's config service, composed exactly as the registry commands compose it.

(decision, issue 32) The browser is not given the printed URL: a browser's command line
(``/proc/<pid>/cmdline``) is readable by every local user, and the token lets a request run a command as
the user. It is given ``file://`` of a 0600 redirect page under the state dir holding a single-use code
that dies within two minutes (:class:`entrypoints.ui.app.LaunchCode`); the page trades it once for the token,
and the file is removed then (or at exit). A file alone would put the long-lived token on disk; a code alone
in the URL could be read from ``/proc`` and raced to the exchange."""

from __future__ import annotations

import errno
import html
import io
import json
import secrets
import signal
import socket
import sys
import time
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from openclaw_mcp.application.errors import ApplicationError, CommandError
from openclaw_mcp.application.registry import not_found_message
from openclaw_mcp.domain.redaction import redact_text_line
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.logging_setup import ensure_logging
from openclaw_mcp.entrypoints.settings import Settings

if TYPE_CHECKING:
    from openclaw_mcp.entrypoints.ui.app import LaunchCode

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


def _listen(port: int, host: str = "127.0.0.1") -> socket.socket:
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP (a keep-alive
    # response would otherwise wait ≈40 ms for a delayed ACK)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        reason = "address already in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc)).lower()
        shown = f"[{host}]" if ":" in host else host
        raise UsageProblem(f"Cannot listen on {shown}:{port}: {reason}.") from exc
    return sock


def _listen_sandbox(port: int) -> list[socket.socket]:
    """The sandbox listener's sockets: 127.0.0.1 and, when the host has IPv6 loopback, ``::1`` on the same
    port (``localhost`` may resolve to either)."""
    first = _listen(port)
    sockets = [first]
    try:
        sockets.append(_listen(first.getsockname()[1], "::1"))
    except UsageProblem:
        pass  # no IPv6 loopback here (or the port is taken there): IPv4 only
    return sockets


class AppsSetup:
    """What ``mcp.apps`` asks of the page process (mcp-apps §13.2.1), read once at start."""

    def __init__(self, sockets: list[socket.socket], base: str, origin: str | None) -> None:
        self.sockets = sockets
        self.port: int = sockets[0].getsockname()[1]
        self.base = base
        self.origin = origin


def _apps_setup(settings: Settings, page_port: int, option: object, fixed: bool) -> AppsSetup | None:
    """The sandbox listener when ``mcp.apps.enabled`` is ``true``: ``--apps-port``, else
    ``mcp.apps.sandboxPort``, else the page port + 1 when ``--port`` fixed it (a free port when the
    page's own port was chosen freely: no collision with a neighbour of a random port); served as
    ``http://localhost:<port>`` unless
    ``mcp.apps.sandboxOrigin`` names the public origin that proxies to it."""
    from openclaw_mcp.entrypoints.runtime_api import apps_enabled

    registry = composition.registry(settings, lambda _text: None)
    try:
        analysis = anyio.run(registry.load)
    except ApplicationError:  # an unreadable or invalid config: the page reports it, no apps until fixed
        return None
    if not analysis.valid or not apps_enabled(analysis.document):
        return None
    apps = analysis.document["mcp"]["apps"]
    configured = apps.get("sandboxPort")
    if option is not None:
        port = _port(option, "--apps-port")
    elif isinstance(configured, int) and not isinstance(configured, bool):
        port = configured
    else:
        port = page_port + 1 if fixed else 0
    if port == page_port or port > 65535:
        raise UsageProblem("MCP Apps require distinct valid page and sandbox ports.")
    sockets = _listen_sandbox(port)
    origin = apps.get("sandboxOrigin")
    public = _origin_of(origin) if isinstance(origin, str) else None
    if public is not None and public in (f"http://127.0.0.1:{page_port}", f"http://localhost:{page_port}"):
        for sock in sockets:
            sock.close()
        raise UsageProblem("mcp.apps.sandboxOrigin must differ from the page origin.")
    return AppsSetup(sockets, public or f"http://localhost:{sockets[0].getsockname()[1]}", public)


def _origin_of(value: str) -> str | None:
    from openclaw_mcp.jscompat.urls import parse_url

    url = parse_url(value.strip())
    if url is None or url.scheme not in ("http", "https") or url.hostname is None:
        return None
    return f"{url.scheme}://{url.host}"


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
        return _run(options, Settings.from_environ(env), console or Console(), early)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run(options: Mapping[str, Any], settings: Settings, out: Console, early: _StopRequest) -> int:
    try:
        port = _port(options.get("port"), "--port")
        apps_port = options.get("apps_port")
        if apps_port is not None:
            _port(apps_port, "--apps-port")
        sock = _listen(port)
    except UsageProblem as exc:
        out.err(str(exc))
        return 1
    with sock:
        bound = sock.getsockname()[1]
        try:
            apps = _apps_setup(settings, bound, apps_port, port != 0)
        except UsageProblem as exc:
            out.err(str(exc))
            return 1
        try:
            return _announce_and_serve(sock, bound, apps, options, settings, out, early)
        finally:
            for extra in apps.sockets if apps else ():
                extra.close()


def _announce_and_serve(
    sock: socket.socket,
    bound: int,
    apps: AppsSetup | None,
    options: Mapping[str, Any],
    settings: Settings,
    out: Console,
    early: _StopRequest,
) -> int:
    token = secrets.token_urlsafe(32)
    url = f"http://127.0.0.1:{bound}/settings/mcp#token={token}"
    out.raw_out(url if options.get("print_url") else f"MCP settings: {url}")
    sys.stdout.flush()
    launch = _open_browser(bound, settings, out) if options.get("open", True) else None
    try:
        if apps is not None and not options.get("print_url"):
            out.raw_out(f"MCP Apps sandbox: {apps.base}")
            sys.stdout.flush()
        if early.requested:
            return 0
        return anyio.run(_serve, sock, bound, token, apps, settings, out, early, launch)
    finally:
        if launch is not None:
            launch.close()


def _launch_page(target: str) -> str:
    """The redirect page: script, then meta refresh, then a link (whichever the browser honours)."""
    quoted = html.escape(target, quote=True)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
        f'<meta http-equiv="refresh" content="0;url={quoted}"><title>MCP settings</title>'
        f"<script>location.replace({json.dumps(target)});</script></head>"
        f'<body><p><a href="{quoted}">Open the MCP settings</a></p></body></html>\n'
    )


def _open_browser(port: int, settings: Settings, out: Console) -> LaunchCode | None:
    """Open the page through a private redirect file holding a single-use code; the code (whose end removes
    the file), or ``None`` when nothing was opened (the printed URL still works)."""
    import webbrowser

    from openclaw_mcp.entrypoints.ui.app import LaunchCode

    code = secrets.token_urlsafe(32)
    try:
        page = _launch_page(f"http://127.0.0.1:{port}/settings/mcp#code={code}")
        path = composition.write_launch_page(settings.state_dir, page)
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
        out.err(f"Could not open a browser ({reason}); open the URL above.")
        return None
    launch = LaunchCode(code, on_done=lambda: composition.remove_launch_page(path))
    try:
        webbrowser.open(Path(path).as_uri())
    except webbrowser.Error:
        pass  # the code dies unused (two minutes) and its file goes at exit; the printed URL still works
    return launch


async def _serve(
    sock: socket.socket,
    port: int,
    token: str,
    apps: AppsSetup | None,
    settings: Settings,
    console: Console,
    early: _StopRequest,
    launch: LaunchCode | None = None,
) -> int:
    from openclaw_mcp.application.settings_page import McpSettings
    from openclaw_mcp.entrypoints.ui.app import UiSettings, create_app
    from openclaw_mcp.entrypoints.ui.pins import PinsPage

    registry = composition.registry(settings, console.err)
    page = McpSettings(registry, composition.clock())

    async def probe(name: str) -> dict[str, Any]:
        return await _probe(registry, name, settings)

    servers: list[Any] = []
    host = _apps_host(registry, settings, apps, console) if apps is not None else None
    app = create_app(
        page,
        UiSettings(port, token, apps.base if apps else None, launch),
        probe,
        lambda: servers[0].should_exit,
        host,
        PinsPage(registry, settings),
    )
    ensure_logging(settings.environ)  # uvicorn's records: one line each (entrypoints.logging_setup), at --log-level
    server = _server(_uvicorn_config(app), early)
    servers.append(server)
    if apps is None or host is None:
        await server.serve(sockets=[sock])
        return 0
    from openclaw_mcp.entrypoints.ui.sandbox import create_sandbox_app

    sandbox = _sandbox_server(_uvicorn_config(create_sandbox_app(_request_log(settings.environ))))
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        tg.start_soon(lambda: sandbox.serve(sockets=apps.sockets))
        try:
            await server.serve(sockets=[sock])
        finally:
            sandbox.should_exit = True
            tg.cancel_scope.cancel()
    return 0


def _uvicorn_config(app: Any) -> Any:
    import uvicorn

    return uvicorn.Config(
        app,
        log_config=None,
        log_level=None,  # uvicorn's loggers follow the process's logging configuration
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=3,
        server_header=False,
        date_header=False,
    )


def _apps_host(registry: Any, settings: Settings, apps: AppsSetup, console: Console) -> Any:
    from openclaw_mcp.application.mcp_apps import AppViews
    from openclaw_mcp.entrypoints.ui.apps import AppsHost, apps_limits

    def warn(text: str) -> None:
        console.err(redact_text_line(" ".join(text.split())))

    views = AppViews(composition.clock(), limits=apps_limits(settings.environ), warn=warn)
    return AppsHost(
        registry,
        settings,
        sandbox_base=apps.base,
        sandbox_port=apps.port,
        sandbox_origin=apps.origin,
        views=views,
        warn=warn,
    )


REQUEST_LOG_ENV = "OPENCLAW_MCP_APPS_REQUEST_LOG"
"""Audit hook: a file that receives one JSON line per request the sandbox listener gets (method, target,
headers) — how the tests prove the page's token never reaches the sandbox origin."""


def _request_log(env: Mapping[str, str]) -> Any:
    path = env.get(REQUEST_LOG_ENV)
    if not path:
        return None

    def log(method: str, target: str, headers: dict[str, str]) -> None:
        line = json.dumps({"method": method, "target": target, "headers": headers})
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    return log


def _sandbox_server(config: Any) -> Any:
    """A uvicorn server that leaves signals to the page's server (which stops it)."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextmanager
        def capture_signals(self) -> Generator[None, None, None]:
            yield

    return Server(config)


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


async def _probe(registry: Any, name: str, settings: Settings) -> dict[str, Any]:
    """``openclaw mcp probe <name>`` for the page's Probe button: the ``probe --json`` document, the text
    lines, the diagnostics the command prints on stderr, and the connect-to-catalog time."""
    from openclaw_mcp.domain.probe import probe_issue, probe_lines
    from openclaw_mcp.entrypoints.cli.probing import run_probe

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
    from openclaw_mcp.entrypoints.runtime_api import apps_enabled

    apps = apps_enabled(analysis.document)
    result = await run_probe({name: server}, "openclaw-mcp-ui-probe", console, settings, apps=apps)
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
    from openclaw_mcp.application.errors import ServerNotFoundError

    return ServerNotFoundError(not_found_message(name, path))
