"""Request/response bookkeeping of one Gateway connection: request ids, the pending requests, their
timeouts, and failing them all when the socket goes away."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from openclaw_mcp.adapters.ws._frames import ResponseFrame, encode_request, request_error, request_id
from openclaw_mcp.adapters.ws._socket import close_info, closed_error, write_text_now
from openclaw_mcp.application.ports.gateway import GatewayError, GatewayTimeout

__all__ = ["PendingRequests"]


@dataclass(eq=False)
class _Pending:
    method: str
    done: anyio.Event = field(default_factory=anyio.Event)
    payload: Any = None
    error: GatewayError | None = None

    @property
    def settled(self) -> bool:
        return self.done.is_set()

    def resolve(self, payload: Any) -> None:
        if not self.settled:
            self.payload = payload
            self.done.set()

    def reject(self, error: GatewayError) -> None:
        if not self.settled:
            self.error = error
            self.done.set()

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.payload


class PendingRequests:
    """The requests sent and not yet answered; ids count up from 1 again after each :meth:`flush`."""

    def __init__(self) -> None:
        self._pending: dict[str, _Pending] = {}
        self._counter = 0

    def __bool__(self) -> bool:
        return bool(self._pending)

    def send(self, ws: ClientConnection, method: str, params: Any, timeout_ms: int) -> Callable[[], Awaitable[Any]]:
        """Frame the request and, on an open socket, write it now; the returned function awaits the answer
        (on a closing socket it lets ``websockets`` report the close first)."""
        self._counter += 1
        frame_id = request_id(self._counter)
        try:
            text = encode_request(frame_id, method, params)
        except (TypeError, ValueError) as exc:
            raise GatewayError(f"invalid request params for {method}: {exc}") from exc
        pending = _Pending(method)
        self._pending[frame_id] = pending
        written = write_text_now(ws, text)
        timeout_s = timeout_ms / 1000

        async def answer() -> Any:
            try:
                if not written:
                    try:
                        await ws.send(text)
                    except ConnectionClosed as exc:
                        pending.reject(closed_error(*close_info(exc)))
                if not pending.settled:
                    with anyio.move_on_after(timeout_s):
                        await pending.done.wait()
                pending.reject(GatewayTimeout(f"gateway request timeout for {method}"))
            finally:
                if self._pending.get(frame_id) is pending:
                    del self._pending[frame_id]
            return pending.outcome()

        return answer

    def settle(self, frame: ResponseFrame) -> None:
        """Answer the request ``frame`` responds to (responses to unknown ids are ignored)."""
        pending = self._pending.pop(frame.id, None)
        if pending is None:
            return
        if frame.ok:
            pending.resolve(frame.payload)
        else:
            pending.reject(request_error(frame.error or {}))

    def flush(self, error: GatewayError) -> None:
        """Fail every pending request with ``error`` and restart the ids."""
        pending, self._pending = self._pending, {}
        self._counter = 0
        for entry in pending.values():
            entry.reject(error)
