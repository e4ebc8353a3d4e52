"""One JSON-RPC session of a stdio MCP server: the read loop, in-flight requests, ``notifications/cancelled``
and a draining close, shared by ``openclaw mcp serve`` and ``openclaw-plugin-tools``.

The server decides per request (``respond``): an answer written at once from the read loop (the next line is
read once it is out, as Node's synchronous handlers do), or a :class:`Pending` call run in its own task.
``notifications/cancelled`` for a pending call runs its ``on_cancel`` and suppresses its answer; an
``abortable`` call is also cancelled outright. :meth:`RpcSession.close` stops reading, lets in-flight calls
finish (their answers still written) for at most ``drain_timeout`` seconds, then cancels the rest unanswered and
closes the output (a frame being written is finished, within the transport's grace period; none is begun).

**Protocol eras** (spec protocol-eras.md §4): the session owns the connection's era slot, empty until the first
request is parsed, then locked by :func:`~domain.mcp_eras.first_request_era` before that request is answered
(lines are handled one at a time, so every later request, pipelined or not, sees it). Legacy: ``respond`` answers
everything, byte for byte as before (enveloped requests included, D-PE11). 2026-07-28 (only with ``server_info``):
the ladder of :func:`~domain.mcp_eras.modern_request_error` over :data:`MODERN_METHODS`, ``server/discover``
answered here (:data:`MODERN_CAPABILITIES`, D-PE13), ``tools/list``/``tools/call`` by ``respond`` (without the
legacy ``task`` field) and their results reshaped by :func:`~domain.mcp_eras.modern_result`; error answers pass
unchanged. ``notifications/cancelled`` works in both eras; the server's ``on_notification`` sees the others and
must ignore them on a 2026 connection (:attr:`RpcSession.era`).

Each answered request is a SERVER span of the session's ``telemetry`` (:mod:`entrypoints.served_spans`; the no-op by
default, docs/telemetry.md).

A request is never left unanswered by a failure of ours: a ``respond`` or a pending call that raises, or an
answer that cannot be written as JSON (nesting too deep), is answered ``-32603``, as the SDK answers a handler
that throws (a ``RecursionError`` in V8's words: ``Maximum call stack size exceeded``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import anyio
import anyio.abc

from openclaw_mcp.application.ports.telemetry import NO_TELEMETRY, Telemetry
from openclaw_mcp.domain.mcp_eras import (
    CACHEABLE_METHODS,
    LEGACY_LATEST_VERSION,
    LEGACY_VERSIONS,
    MODERN_VERSION,
    Era,
    discover_result,
    first_request_era,
    modern_request_error,
    modern_result,
)
from openclaw_mcp.entrypoints.serve.jsonrpc import (
    INTERNAL_ERROR,
    Notification,
    Request,
    RequestId,
    encode,
    error_response,
    id_key,
    is_request_id,
    parse_message,
    result_response,
)
from openclaw_mcp.entrypoints.serve.transport import StdioTransport, TransportClosed
from openclaw_mcp.entrypoints.served_spans import ServedSpans

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "MODERN_CAPABILITIES",
    "MODERN_METHODS",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "InvalidParams",
    "Pending",
    "RpcSession",
    "is_task_request",
    "negotiate_protocol_version",
    "require_string",
    "task_refusal",
]

LATEST_PROTOCOL_VERSION: Final = LEGACY_LATEST_VERSION
SUPPORTED_PROTOCOL_VERSIONS: Final = LEGACY_VERSIONS
MODERN_METHODS: Final = frozenset({"server/discover", "tools/list", "tools/call"})
"""The methods our servers serve on a 2026-07-28 connection (§4.2 rung 3)."""
MODERN_CAPABILITIES: Final[Mapping[str, Any]] = {"tools": {}}
"""The ``server/discover`` capabilities of all three servers (D-PE13: nothing changes, nothing to push)."""


class InvalidParams(Exception):
    """A request whose params do not match the method's schema (a ``-32602`` error; the message is the text)."""


def require_string(params: Mapping[str, Any] | None, key: str, *, optional: bool = False) -> None:
    """``params[key]`` must be a string (``optional``: or absent); else :class:`InvalidParams`."""
    value = None if params is None else params.get(key)
    if value is None and optional and (params is None or key not in params):
        return
    if not isinstance(value, str):
        raise InvalidParams(f"Invalid params: {key} must be a string")


def is_task_request(params: Mapping[str, Any] | None) -> bool:
    """A task-augmented request (``params.task`` = ``{ttl?: number}``), which the SDK refuses without the tasks
    capability (``-32603`` ``Server does not support task creation (required for <method>)``)."""
    if params is None or not isinstance(params.get("task"), dict):
        return False
    ttl = params["task"].get("ttl", 0)
    return isinstance(ttl, int | float) and not isinstance(ttl, bool) and abs(ttl) != float("inf")


def task_refusal(request: Request) -> dict[str, Any] | None:
    """The SDK's ``-32603`` answer to a task-augmented request, else ``None``."""
    if not is_task_request(request.params):
        return None
    message = f"Server does not support task creation (required for {request.method})"
    return error_response(request.id, INTERNAL_ERROR, message)


def negotiate_protocol_version(params: Mapping[str, Any] | None) -> str:
    """Check ``initialize`` params as the SDK does and pick the protocol version: the client's when supported,
    else the latest. Raises :class:`InvalidParams`."""
    require_string(params, "protocolVersion")
    assert params is not None
    client_info = params.get("clientInfo")
    if not isinstance(params.get("capabilities"), dict) or not isinstance(client_info, dict):
        raise InvalidParams("Invalid params: capabilities and clientInfo must be objects")
    require_string(client_info, "name")
    require_string(client_info, "version")
    requested = params["protocolVersion"]
    return requested if requested in SUPPORTED_PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION


@dataclass(slots=True)
class Pending:
    """A request answered later: ``run()`` returns the whole response message (``None``: no answer)."""

    run: Callable[[], Awaitable[dict[str, Any] | None]]
    on_cancel: Callable[[], None] = lambda: None
    abortable: bool = False
    """Cancelled outright by ``notifications/cancelled`` (else it runs on and only its answer is dropped)."""


@dataclass(eq=False, slots=True)
class _Inflight:
    key: tuple[str, str | int]
    request_id: RequestId
    call: Pending
    request: Request
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    cancelled: bool = False


Respond = Callable[[Request], "dict[str, Any] | Pending | None"]


def _failure_text(exc: Exception) -> str:
    """The message of a ``-32603`` answer to a failure of ours: V8's words for a nesting too deep, else the
    SDK's ``Internal error`` (decision: an unexpected error's own text is not sent, it could carry anything)."""
    if isinstance(exc, RecursionError):
        return "Maximum call stack size exceeded"
    return "Internal error"


class RpcSession:
    """Serve ``respond`` over ``transport`` (see the module docstring); ``on_notification`` gets every
    notification but ``notifications/cancelled``. Without ``answer_while_draining`` the calls that settle after
    :meth:`close` began are not answered (the MCP SDK server closes its transport first, then drains).
    ``server_info`` (the legacy ``initialize`` answer's ``serverInfo``) enables the 2026-07-28 era; without it
    every connection is legacy."""

    def __init__(
        self,
        transport: StdioTransport,
        respond: Respond,
        *,
        on_notification: Callable[[Notification], None] = lambda _message: None,
        drain_timeout: float = 2.0,
        answer_while_draining: bool = True,
        server_info: Mapping[str, str] | None = None,
        telemetry: Telemetry = NO_TELEMETRY,
    ) -> None:
        self._transport = transport
        self._spans = ServedSpans(telemetry)
        self._respond = respond
        self._server_info = None if server_info is None else dict(server_info)
        self._era: Era | None = None
        self._on_notification = on_notification
        self._drain_timeout = drain_timeout
        self._answer_while_draining = answer_while_draining
        self._inflight: dict[tuple[str, str | int], list[_Inflight]] = {}
        self._idle = anyio.Event()
        self._idle.set()
        self._tg: anyio.abc.TaskGroup | None = None
        self._reader_scope = anyio.CancelScope()
        self._stopped = anyio.Event()
        self._closing = False
        self._first_input = anyio.Event()

    @property
    def closing(self) -> bool:
        return self._closing

    @property
    def era(self) -> Era | None:
        """The connection's era, ``None`` until the first request is read (§4.1)."""
        return self._era

    async def wait_first_input(self) -> None:
        """Return once the first input line has been handled or the input has ended."""
        await self._first_input.wait()

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Read and serve until :meth:`close`; started as soon as input is being read."""
        async with anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self._read_loop)
            task_status.started()
            try:
                await self._stopped.wait()
            finally:  # also when cancelled from outside: a frame being written gets its grace period, no more
                self._transport.stop_output()
                tg.cancel_scope.cancel()
        self._tg = None

    async def close(self) -> None:
        """Stop reading; drain in-flight calls (at most ``drain_timeout`` s), then cancel the rest."""
        self._closing = True
        self._reader_scope.cancel()
        with anyio.move_on_after(self._drain_timeout):
            await self._idle.wait()
        for entries in list(self._inflight.values()):
            for entry in entries:
                entry.cancelled = True
                entry.scope.cancel()
        await self._transport.close_output()
        self._stopped.set()

    async def send(self, message: dict[str, Any]) -> None:
        """One message line; raises ``TransportClosed`` when the output is gone."""
        await self._transport.send(encode(message))

    async def _answer(self, response: dict[str, Any]) -> None:
        """Write one response; one that cannot be written as JSON is answered ``-32603`` instead."""
        try:
            data = encode(response)
        except (RecursionError, TypeError, ValueError, OverflowError) as exc:
            data = encode(error_response(response["id"], INTERNAL_ERROR, _failure_text(exc)))
        with contextlib.suppress(TransportClosed):
            await self._transport.send(data)

    async def _read_loop(self) -> None:
        try:
            with self._reader_scope:
                await self._transport.read_lines(self._handle_line, lambda: self._closing)
        finally:
            self._first_input.set()

    async def _handle_line(self, raw: bytes) -> None:
        modern = self._era == MODERN_VERSION
        message = parse_message(raw.decode("utf-8", errors="replace"), check_meta=not modern)
        if isinstance(message, Notification):
            if message.method == "notifications/cancelled":
                self._cancel(message.params)
            else:
                self._on_notification(message)
        elif isinstance(message, Request) and not self._closing:
            if self._era is None:  # the era lock, before the first answer is written
                locked = first_request_era(message.method, message.params)
                self._era = "legacy" if self._server_info is None else locked
            try:
                response = self._respond(message) if self._era == "legacy" else self._respond_modern(message)
            except Exception as exc:  # a failure of ours is the request's -32603 answer, never a crash
                response = error_response(message.id, INTERNAL_ERROR, _failure_text(exc))
            if isinstance(response, Pending):
                self._start(message, response)
            elif response is not None:
                with self._spans.scope(message, self._era) as span:
                    self._spans.answered(span, message, response, cancelled=False)
                    await self._answer(response)
        if not self._first_input.is_set():
            self._first_input.set()

    # --- the 2026-07-28 era (§4.2, §4.3) ----------------------------------------------------------

    def _respond_modern(self, request: Request) -> dict[str, Any] | Pending | None:
        assert self._server_info is not None
        error = modern_request_error(request.method, request.params, MODERN_METHODS)
        if error is not None:
            return {"jsonrpc": "2.0", "id": request.id, "error": error.to_json()}
        if request.method == "server/discover":
            return result_response(request.id, discover_result(self._server_info, MODERN_CAPABILITIES))
        params = {key: value for key, value in (request.params or {}).items() if key != "task"}
        answer = self._respond(Request(request.id, request.method, params))  # rung 4: the method's own checks
        if not isinstance(answer, Pending):
            return self._modern_answer(request.method, answer)
        run, method = answer.run, request.method

        async def shaped() -> dict[str, Any] | None:
            return self._modern_answer(method, await run())

        return Pending(shaped, on_cancel=answer.on_cancel, abortable=answer.abortable)

    def _modern_answer(self, method: str, response: dict[str, Any] | None) -> dict[str, Any] | None:
        """A result answer in its 2026 shape; error answers (and no answer) unchanged."""
        if response is None or not isinstance(response.get("result"), Mapping):
            return response
        assert self._server_info is not None
        shaped = modern_result(response["result"], self._server_info, cacheable=method in CACHEABLE_METHODS)
        return result_response(response["id"], shaped)

    # --- cancellation and in-flight calls --------------------------------------------------------

    def _cancel(self, params: Mapping[str, Any] | None) -> None:
        if params is None or not isinstance(params.get("reason", ""), str):
            return
        request_id = params.get("requestId")
        if "requestId" not in params or not is_request_id(request_id):
            return
        for entry in self._inflight.get(id_key(request_id), []):
            if entry.cancelled:
                continue
            entry.cancelled = True
            entry.call.on_cancel()
            if entry.call.abortable:
                entry.scope.cancel()

    def _start(self, request: Request, call: Pending) -> None:
        if self._tg is None:
            return
        entry = _Inflight(id_key(request.id), request.id, call, request)
        self._inflight.setdefault(entry.key, []).append(entry)
        self._idle = anyio.Event()
        self._tg.start_soon(self._run, entry)

    async def _run(self, entry: _Inflight) -> None:
        try:
            with self._spans.scope(entry.request, self._era) as span:
                response: dict[str, Any] | None = None
                with entry.scope:
                    try:
                        response = await entry.call.run()
                    except Exception as exc:  # a failure of ours is the request's -32603 answer, never a crash
                        response = error_response(entry.request_id, INTERNAL_ERROR, _failure_text(exc))
                self._spans.answered(span, entry.request, response, cancelled=entry.cancelled)
                answer = self._answer_while_draining or not self._closing
                if response is not None and not entry.cancelled and answer:
                    await self._answer(response)
        finally:
            entries = self._inflight.get(entry.key, [])
            if entry in entries:
                entries.remove(entry)
            if not entries:
                self._inflight.pop(entry.key, None)
            if not self._inflight:
                self._idle.set()
