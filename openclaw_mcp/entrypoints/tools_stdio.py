"""The stdio tools-server core shared by ``openclaw-plugin-tools`` and ``openclaw-tools`` (spec plugin-tools.md
§1.5, §2, §4, §5; openclaw-tools.md §2, §8; upstream ``src/mcp/tools-stdio-server.ts``).

* :class:`ToolsServer` — the MCP methods: ``initialize``, ``ping``, ``tools/list``, ``tools/call``; every other
  method is ``-32601`` ``Method not found``; malformed params are ``-32602`` ``Invalid params: …`` (decision
  D-PT2). A ``tools/call`` runs in its own task; ``notifications/cancelled`` fires the call's
  :class:`CancelSignal` and drops its answer (the call itself runs on). On a 2026-07-28 connection the
  session's era gate answers ``server/discover`` and reshapes the ``tools/*`` answers (spec protocol-eras §4).
* :func:`serve_stdio` — one JSON-RPC session over the process's stdin/stdout (or injected streams) until
  stdin ends, SIGINT or SIGTERM: reading stops, in-flight calls settle unanswered (the SDK closes the
  transport before draining; at most ``drain_timeout`` s), return.
* :func:`run_tools_server` — a server command's defaults and failure contract: any error is one
  ``<prefix><message>`` line on stderr (redacted) and exit 1, never a traceback; :func:`console_main` — its
  console script.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, TextIO

import anyio

from openclaw_mcp.application.ports.telemetry import NO_TELEMETRY, Telemetry
from openclaw_mcp.application.tool_boundary import CancelSignal
from openclaw_mcp.domain.catalog_text import format_error_message
from openclaw_mcp.entrypoints.containers import Container, create_container
from openclaw_mcp.entrypoints.rpc_session import (
    InvalidParams,
    Pending,
    RpcSession,
    negotiate_protocol_version,
    require_string,
    task_refusal,
)
from openclaw_mcp.entrypoints.serve.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Request,
    error_response,
    result_response,
)
from openclaw_mcp.entrypoints.serve.transport import ByteSink, ByteSource, StdioTransport, process_stdio
from openclaw_mcp.entrypoints.stdio_process import Stderr, watch_signals

__all__ = [
    "CAPABILITIES",
    "DRAIN_TIMEOUT_S",
    "ServeCommand",
    "ToolCall",
    "ToolsServer",
    "console_main",
    "run_tools_server",
    "serve_stdio",
]

CAPABILITIES: Final[dict[str, Any]] = {"tools": {}}
DRAIN_TIMEOUT_S: Final = 30.0
"""How long shutdown waits for in-flight tool calls before cancelling them (decision: the reference waits
without bound; a hung tool should not keep a server whose client is gone alive forever)."""
_METHODS: Final = frozenset({"initialize", "ping", "tools/list", "tools/call"})

ToolCall = Callable[[str, "Mapping[str, Any] | None", CancelSignal], Awaitable[dict[str, Any]]]
"""``(name, arguments, cancel) → the tools/call result``."""


def _call_params(params: Mapping[str, Any] | None) -> tuple[str, Mapping[str, Any] | None]:
    require_string(params, "name")
    assert params is not None
    arguments = params.get("arguments")
    if "arguments" in params and not isinstance(arguments, dict):
        raise InvalidParams("Invalid params: arguments must be an object")
    return params["name"], arguments


class ToolsServer:
    """``respond`` for :class:`~entrypoints.rpc_session.RpcSession`: ``server_info`` in ``initialize``, the
    entries of ``list_tools`` and the results of ``call``."""

    def __init__(
        self, server_info: Mapping[str, str], list_tools: Callable[[], list[dict[str, Any]]], call: ToolCall
    ) -> None:
        self._server_info = dict(server_info)
        self._list_tools = list_tools
        self._call = call

    @property
    def server_info(self) -> dict[str, str]:
        """The ``serverInfo`` of ``initialize`` (and of every 2026-07-28 result, protocol-eras §4.3)."""
        return dict(self._server_info)

    def respond(self, request: Request) -> dict[str, Any] | Pending:
        method, params = request.method, request.params
        if method not in _METHODS:
            return error_response(request.id, METHOD_NOT_FOUND, "Method not found")
        refusal = task_refusal(request)
        if refusal is not None:
            return refusal
        try:
            if method == "initialize":
                version = negotiate_protocol_version(params)
                info = {"protocolVersion": version, "capabilities": dict(CAPABILITIES)}
                return result_response(request.id, {**info, "serverInfo": dict(self._server_info)})
            if method == "ping":
                return result_response(request.id, {})
            if method == "tools/list":
                require_string(params, "cursor", optional=True)
                return result_response(request.id, {"tools": self._list_tools()})
            name, arguments = _call_params(params)
        except InvalidParams as exc:
            return error_response(request.id, INVALID_PARAMS, str(exc))
        return self._pending_call(request, name, arguments)

    def _pending_call(self, request: Request, name: str, arguments: Mapping[str, Any] | None) -> Pending:
        cancel = CancelSignal()
        call = self._call

        async def run() -> dict[str, Any]:
            return result_response(request.id, await call(name, arguments, cancel))

        return Pending(run, on_cancel=lambda: cancel.cancel("cancelled by the MCP client"))


async def serve_stdio(
    server: ToolsServer,
    *,
    stdin: ByteSource | None,
    stdout: ByteSink | None,
    handle_signals: bool,
    drain_timeout: float,
    telemetry: Telemetry = NO_TELEMETRY,
) -> int:
    """Serve ``server`` until stdin ends or a signal arrives; drain, then return exit status 0. ``None``
    streams are the process's file descriptors 0 and 1 (stdout is given back to Python afterwards).
    ``telemetry``: where each served request's span goes (its exporter flushes at process exit)."""
    shutdown = anyio.Event()
    with process_stdio(stdin, stdout) as (source, sink):
        transport = StdioTransport(source, sink, on_close=shutdown.set)
        session = RpcSession(
            transport,
            server.respond,
            drain_timeout=drain_timeout,
            answer_while_draining=False,
            server_info=server.server_info,
            telemetry=telemetry,
        )
        async with anyio.create_task_group() as tg:
            await tg.start(session.run)
            if handle_signals:
                tg.start_soon(watch_signals, shutdown.set)
            await shutdown.wait()
            await session.close()
            tg.cancel_scope.cancel()
    return 0


ServeCommand = Callable[
    [Mapping[str, str], Sequence[str], Stderr, Container, "ByteSource | None", "ByteSink | None", bool],
    Awaitable[int],
]
"""``(env, argv, stderr, container, stdin, stdout, handle_signals) → exit status``: one server command."""


async def run_tools_server(
    prefix: str,
    serve: ServeCommand,
    argv: Sequence[str],
    env: Mapping[str, str],
    *,
    stdin: ByteSource | None = None,
    stdout: ByteSink | None = None,
    stderr: TextIO | None = None,
    container: Container | None = None,
    handle_signals: bool = True,
) -> int:
    """Run the server command ``serve`` for ``argv`` (the arguments after the command) and return its exit
    status; any exception is the one line ``<prefix><message>`` (redacted) and 1, never a traceback.

    Defaults: the process's stdin/stdout file descriptors and ``sys.stderr``, a container configured from
    ``env``, SIGINT/SIGTERM handlers."""
    err = Stderr(stderr if stderr is not None else sys.stderr)
    try:
        return await serve(env, argv, err, container or create_container(env), stdin, stdout, handle_signals)
    except Exception as exc:  # the command's one failure line, never a traceback
        err.redacted(prefix + format_error_message(exc))
        return 1


def console_main(
    run: Callable[[list[str], dict[str, str]], Awaitable[int]],
    argv: Sequence[str] | None,
    usage: tuple[str, str] | None = None,
) -> None:
    """A console script: ``run(argv, os.environ)`` with the library loggers configured, exit with its status.
    ``usage`` (program, text): ``-h``/``--help`` and unknown flags are answered first (``tools_usage``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if usage is not None:
        from openclaw_mcp.entrypoints.tools_usage import usage_exit

        status = usage_exit(usage[0], usage[1], args, sys.stdout, sys.stderr)
        if status is not None:
            sys.exit(status)
    env = dict(os.environ)
    from openclaw_mcp.entrypoints.logging_setup import ensure_logging  # library records: one line each

    ensure_logging(env)
    sys.exit(anyio.run(run, args, env))
