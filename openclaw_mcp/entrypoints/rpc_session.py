"""One JSON-RPC session of a stdio MCP server: the read loop, in-flight requests, ``notifications/cancelled``
and a draining close, shared by ``openclaw mcp serve`` and ``openclaw-plugin-tools``.

The server decides per request (``respond``): an answer written at once from the read loop (the next line is
read once it is out, as Node's synchronous handlers do), or a :class:`Pending` call run in its own task.
``notifications/cancelled`` for a pending call runs its ``on_cancel`` and suppresses its answer; an
``abortable`` call is also cancelled outright. :meth:`RpcSession.close` stops reading, lets in-flight calls
finish (their answers still written) for at most ``drain_timeout`` seconds, then cancels the rest unanswered and
closes the output (a frame being written is finished, within the transport's grace period; none is begun).

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
)
from openclaw_mcp.entrypoints.serve.transport import StdioTransport, TransportClosed

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "InvalidParams",
    "Pending",
    "RpcSession",
    "is_task_request",
    "negotiate_protocol_version",
    "require_string",
    "task_refusal",
]

LATEST_PROTOCOL_VERSION: Final = "2025-11-25"
SUPPORTED_PROTOCOL_VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07")


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
    :meth:`close` began are not answered (the MCP SDK server closes its transport first, then drains)."""

    def __init__(
        self,
        transport: StdioTransport,
        respond: Respond,
        *,
        on_notification: Callable[[Notification], None] = lambda _message: None,
        drain_timeout: float = 2.0,
        answer_while_draining: bool = True,
    ) -> None:
        self._transport = transport
        self._respond = respond
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
        message = parse_message(raw.decode("utf-8", errors="replace"))
        if isinstance(message, Notification):
            if message.method == "notifications/cancelled":
                self._cancel(message.params)
            else:
                self._on_notification(message)
        elif isinstance(message, Request) and not self._closing:
            try:
                response = self._respond(message)
            except Exception as exc:  # a failure of ours is the request's -32603 answer, never a crash
                response = error_response(message.id, INTERNAL_ERROR, _failure_text(exc))
            if isinstance(response, Pending):
                self._start(message, response)
            elif response is not None:
                await self._answer(response)
        if not self._first_input.is_set():
            self._first_input.set()

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
        entry = _Inflight(id_key(request.id), request.id, call)
        self._inflight.setdefault(entry.key, []).append(entry)
        self._idle = anyio.Event()
        self._tg.start_soon(self._run, entry)

    async def _run(self, entry: _Inflight) -> None:
        try:
            response: dict[str, Any] | None = None
            with entry.scope:
                try:
                    response = await entry.call.run()
                except Exception as exc:  # a failure of ours is the request's -32603 answer, never a crash
                    response = error_response(entry.request_id, INTERNAL_ERROR, _failure_text(exc))
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
