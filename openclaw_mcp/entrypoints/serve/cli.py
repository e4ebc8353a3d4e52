"""``openclaw mcp serve``: the command, its composition root and its lifecycle (spec serve-bridge §1, §3).

Order (the reference's): the config guard (an invalid config prints the invalid-config block, exit 1), then
``--token``/``--password`` (files read, errors → failure line), the ``--token`` warnings, the Claude channel
mode; then the MCP server is connected to stdio **first** and only then the bridge starts (Gateway target,
device identity, connect). Start-up cost: the bridge is built (its modules imported) once the first message
is answered, or earlier by a message that needs it; a missing config file is decided without the loader.
Any error up to and including the bridge start — or during close — prints ``MCP server failed to start: …``
and exits 1. stdin end, a broken stdout, SIGINT and SIGTERM close gracefully (exit 0).

Entry points:

* :func:`run_serve` — the whole command as a coroutine over a container (tests override its providers, e.g.
  ``container.gateway``) and injectable stdio;
* :func:`serve_command` — what ``openclaw mcp serve`` runs (``entrypoints.cli.main`` routes it here);
* :func:`main` — ``python -c "from openclaw_mcp.entrypoints.serve.cli import main; main()" [serve options…]``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import anyio
import anyio.abc

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.domain.bridge.mode import ClaudeChannelMode, InvalidClaudeChannelMode, parse_claude_channel_mode
from openclaw_mcp.entrypoints.containers import Container, create_container
from openclaw_mcp.entrypoints.serve.dispatcher import McpDispatcher
from openclaw_mcp.entrypoints.serve.errors import SHUTDOWN_FAILED_MESSAGE, failure_line
from openclaw_mcp.entrypoints.serve.secrets import resolve_gateway_auth_options
from openclaw_mcp.entrypoints.serve.transport import ByteSink, ByteSource, StdioTransport, process_stdio
from openclaw_mcp.entrypoints.stdio_process import Stderr, load_config_document, watch_signals

if TYPE_CHECKING:
    from openclaw_mcp.application.bridge.service import ChannelBridge
    from openclaw_mcp.application.ports.bridge import LineWriter
    from openclaw_mcp.application.ports.gateway import GatewaySettings

__all__ = ["main", "run_serve", "serve_command"]

_VERBOSE_CLIENT_PREFIX = "gateway client "
"""Gateway client diagnostics printed only with ``--verbose`` (serve-bridge §11.3)."""


_FIRST_INPUT_GRACE_S = 0.25
"""How long the bridge's start waits for the MCP client's first message (normally ``initialize``)."""

_T = TypeVar("_T")


def _after_first_input(
    step: Callable[[], Awaitable[_T]], first_input: Callable[[], Awaitable[None]]
) -> Callable[[], Awaitable[_T]]:
    """``step`` (the bridge's start), run once the MCP client's first message is answered (at most
    :data:`_FIRST_INPUT_GRACE_S` later): building the bridge, resolving the Gateway target and importing the
    Gateway client block the event loop for tens of milliseconds, which ``initialize`` need not wait for."""

    async def deferred() -> _T:
        with anyio.move_on_after(_FIRST_INPUT_GRACE_S):
            await first_input()
        return await step()

    return deferred


def _client_log(stderr: Stderr, verbose: bool) -> LineWriter:
    def log(line: str) -> None:
        if verbose or not line.startswith(_VERBOSE_CLIENT_PREFIX):
            stderr.redacted(line)

    return log


async def _close(bridge: ChannelBridge | None, server: McpDispatcher) -> BaseException | None:
    """Close the bridge (when built) and the MCP server concurrently; one failure is the result, two are
    aggregated."""
    errors: list[Exception] = []

    async def close_bridge() -> None:
        if bridge is None:
            return
        try:
            await bridge.close()
        except Exception as exc:  # reported through the failure line (§1.3)
            errors.append(exc)

    async def close_server() -> None:
        try:
            await server.close()
        except Exception as exc:  # reported through the failure line (§1.3)
            errors.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(close_bridge)
        tg.start_soon(close_server)
    if len(errors) > 1:
        return ExceptionGroup(SHUTDOWN_FAILED_MESSAGE, errors)
    return errors[0] if errors else None


async def run_serve(
    options: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    stdin: ByteSource | None = None,
    stdout: ByteSink | None = None,
    stderr: TextIO | None = None,
    container: Container | None = None,
    handle_signals: bool = True,
) -> int:
    """Run ``openclaw mcp serve`` with the parsed ``options`` (``url``, ``token``, ``token_file``,
    ``password``, ``password_file``, ``claude_channel_mode``, ``verbose``) and return the exit status.

    Defaults: the process's stdin/stdout file descriptors and ``sys.stderr``, a container configured from
    ``env`` (its ``gateway``: the WebSocket Gateway client with the SQLite device identity store of the state
    dir; its ``clock``: the wall clock), SIGINT/SIGTERM handlers.
    """
    if container is None:
        container = create_container(env)
    err = Stderr(stderr if stderr is not None else sys.stderr)
    loaded = await load_config_document(container, env, err)
    if isinstance(loaded, int):
        return loaded
    document, config_path = loaded
    try:
        auth = resolve_gateway_auth_options(options, env)
        for warning in auth.warnings:
            err.raw(warning)
        mode: ClaudeChannelMode = parse_claude_channel_mode(options.get("claude_channel_mode"))
    except (ApplicationError, InvalidClaudeChannelMode) as exc:
        err.redacted(failure_line(exc, env))
        return 1
    verbose = bool(options.get("verbose"))

    async def resolve_settings() -> GatewaySettings:
        from openclaw_mcp.application.bridge.target import serve_gateway_settings  # deferred: see _after_first_input

        return serve_gateway_settings(
            document, env, config_path, cli_url=options.get("url"), token=auth.token, password=auth.password
        )

    stdio = contextlib.ExitStack()
    stdin, stdout = stdio.enter_context(process_stdio(stdin, stdout))
    shutdown = anyio.Event()

    def build_bridge() -> ChannelBridge:
        """The bridge and its Gateway client (the dispatcher builds it once: by the start step, or earlier by
        a message that needs it)."""
        from openclaw_mcp.application.bridge.service import ChannelBridge  # deferred: see _after_first_input

        return ChannelBridge(
            gateway=container.gateway(),
            resolve_settings=resolve_settings,
            notifier=server,
            clock=container.clock(),
            write_line=err.raw,
            client_log=_client_log(err, verbose),
            mode=mode,
            verbose=verbose,
            channel_open=server.channel_open,
        )

    server = McpDispatcher(
        StdioTransport(stdin, stdout, on_close=shutdown.set),
        mode=mode,
        bridge=build_bridge,
        telemetry=container.telemetry(),
    )
    start_error: BaseException | None = None
    close_error: BaseException | None = None

    async def watch_start(started: ChannelBridge) -> None:
        nonlocal start_error
        try:
            await started.wait_started()
        except Exception as exc:  # the start error (any kind) ends the process through the failure line
            start_error = exc
            shutdown.set()

    async def start_bridge(tg: anyio.abc.TaskGroup) -> None:
        if shutdown.is_set():
            return  # closed before the start: nothing to connect
        started = server.bridge()
        assert started is not None
        await tg.start(started.run)
        tg.start_soon(watch_start, started)

    try:
        async with anyio.create_task_group() as tg:
            await tg.start(server.run)
            if container.gateway.overridden:
                # An overridden Gateway client (in-memory) imports nothing: the bridge then starts at once.
                await start_bridge(tg)
            else:
                tg.start_soon(_after_first_input(functools.partial(start_bridge, tg), server.wait_first_input))
            if handle_signals:
                tg.start_soon(watch_signals, shutdown.set)
            await shutdown.wait()
            close_error = await _close(server.built_bridge, server)
            tg.cancel_scope.cancel()
    finally:
        stdio.close()
    failure = close_error or start_error
    if failure is not None:
        err.redacted(failure_line(failure, env))
        return 1
    return 0


def serve_command(options: Mapping[str, Any], env: Mapping[str, str]) -> int:
    """``openclaw mcp serve`` from the registry CLI (``entrypoints.cli.main`` routes it here before loading the
    registry commands): runs :func:`run_serve` on the real stdio with a container configured from ``env``."""
    return anyio.run(functools.partial(run_serve, options, env, container=create_container(env)))


def main(argv: Sequence[str] | None = None) -> None:
    """``openclaw mcp serve [options]`` as a process: parse, run, exit with the status."""
    from openclaw_mcp.entrypoints.cli.argv import Parsed, UsageError, parse
    from openclaw_mcp.entrypoints.cli.help_text import render_help

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        parsed = parse(["serve", *args])
    except UsageError as exc:
        sys.stderr.write(exc.text + "\n")
        sys.exit(1)
    if not isinstance(parsed, Parsed):
        sys.stdout.write(render_help(parsed, os.environ) + "\n")
        sys.exit(0)
    env = dict(os.environ)
    from openclaw_mcp.entrypoints.logging_setup import ensure_logging  # library records: one line each

    ensure_logging(env)

    async def serve() -> int:
        return await run_serve(parsed.options, env, container=create_container(env))

    sys.exit(anyio.run(serve))
