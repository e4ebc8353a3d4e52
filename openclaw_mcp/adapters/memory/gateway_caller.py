"""A scriptable in-memory ``GatewayCaller`` (spec openclaw-tools.md §6.3), held to the same contract suite as
``WebsocketsGatewayCaller``.

Every call is recorded (``calls``) and counts as one connection (``connections``; ``open_connections`` is how
many are in progress). With ``token`` / ``password`` set, the target's secret is checked the way the real
Gateway checks a ``gateway-client``/``backend`` client's (a mismatch is a rejected ``connect``: logged, then
``GatewayRequestError``). Methods are answered by handlers (``handle``): a handler gets the params and returns
the payload (or an awaitable of it), or raises a ``GatewayError`` (``GatewayRequestError`` for a rejected
request, ``GatewayClosed`` for a socket closed before the answer); a method without a handler is rejected
``INVALID_REQUEST unknown method: <method>``. Modes: ``up`` (default), ``hang`` (the socket opens, nothing
is ever answered: the call ends with ``GatewayTimeout`` at its deadline) and ``refuse`` (nothing listens:
``GatewayUnreachable`` ``ECONNREFUSED``).
"""

from __future__ import annotations

import inspect
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import anyio
import anyio.lowlevel

from openclaw_mcp.application.ports.gateway import (
    GatewayCaller,
    GatewayCallTarget,
    GatewayRequestError,
    GatewayTimeout,
    GatewayUnreachable,
)

__all__ = [
    "PASSWORD_MISMATCH",
    "TOKEN_MISMATCH",
    "TOKEN_MISSING",
    "CallerHandler",
    "CallerMode",
    "InMemoryGatewayCaller",
    "RecordedCall",
]

CallerHandler = Callable[[dict[str, Any]], Any]
"""Answers one method: called with the params, returns the payload (or an awaitable of it); raises a
``GatewayError`` for a rejection or a close."""

CallerMode = Literal["up", "hang", "refuse"]

TOKEN_MISMATCH = "unauthorized: gateway token mismatch (provide gateway auth token)"
TOKEN_MISSING = "unauthorized: gateway token missing (provide gateway auth token)"
PASSWORD_MISMATCH = "unauthorized: gateway password mismatch (provide gateway auth password)"


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One :meth:`InMemoryGatewayCaller.call`, as made."""

    target: GatewayCallTarget
    method: str
    params: dict[str, Any]
    scopes: tuple[str, ...]
    timeout_ms: int


def _address(url: str) -> str:
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port or (443 if parts.scheme == "wss" else 80)
    except ValueError:
        return url
    return f"{parts.hostname or ''}:{port}"


class InMemoryGatewayCaller:
    """The ``GatewayCaller`` port without a wire (see the module docstring)."""

    def __init__(
        self,
        *,
        token: str | None = None,
        password: str | None = None,
        handlers: Mapping[str, CallerHandler] | None = None,
        mode: CallerMode = "up",
    ) -> None:
        self.token = token
        self.password = password
        self.mode: CallerMode = mode
        self._handlers: dict[str, CallerHandler] = dict(handlers or {})
        self.calls: list[RecordedCall] = []
        self.connections = 0
        """Connections opened (one per call that was not refused)."""
        self.open_connections = 0
        """Connections currently open (calls in progress)."""

    def handle(self, method: str, handler: CallerHandler) -> None:
        self._handlers[method] = handler

    def answer(self, method: str, payload: Any) -> None:
        """Answer ``method`` with ``payload`` always."""
        self._handlers[method] = lambda params: payload

    def hang(self) -> None:
        self.mode = "hang"

    def refuse(self) -> None:
        self.mode = "refuse"

    def up(self) -> None:
        self.mode = "up"

    async def call(
        self,
        target: GatewayCallTarget,
        method: str,
        params: dict[str, Any],
        *,
        scopes: Sequence[str],
        timeout_ms: int,
        log: Callable[[str], None],
    ) -> Any:
        self.calls.append(RecordedCall(target, method, params, tuple(scopes), timeout_ms))
        if self.mode == "refuse":
            raise GatewayUnreachable(f"connect ECONNREFUSED {_address(target.url)}", "ECONNREFUSED")
        self.connections += 1
        self.open_connections += 1
        try:
            with anyio.move_on_after(max(timeout_ms, 0) / 1000):
                return await self._exchange(target, method, params, log)
        finally:
            self.open_connections -= 1
        raise GatewayTimeout(f"gateway timeout after {timeout_ms}ms")

    async def _exchange(
        self, target: GatewayCallTarget, method: str, params: dict[str, Any], log: Callable[[str], None]
    ) -> Any:
        await anyio.lowlevel.checkpoint()
        if self.mode == "hang":
            await anyio.sleep_forever()
        rejection = self._check_auth(target)
        if rejection is not None:
            log(f"gateway connect failed: GatewayClientRequestError: {rejection}")
            raise rejection
        handler = self._handlers.get(method)
        if handler is None:
            raise GatewayRequestError(f"unknown method: {method}", "INVALID_REQUEST")
        result = handler(params)
        if inspect.isawaitable(result):
            result = await result
        return result

    def _check_auth(self, target: GatewayCallTarget) -> GatewayRequestError | None:
        """The rejection of ``connect`` for the target's secret, or ``None`` when it is accepted."""
        if self.token is None and self.password is None:
            return None
        token = (target.token or "").strip() or None
        password = (target.password or "").strip() or None
        if self.token is not None and token == self.token:
            return None
        if self.password is not None and password == self.password:
            return None
        if token is not None:
            details: dict[str, Any] = {
                "code": "AUTH_TOKEN_MISMATCH",
                "authReason": "token_mismatch",
                "canRetryWithDeviceToken": target.device is not None,
                "recommendedNextStep": "update_auth_credentials",
            }
            return GatewayRequestError(TOKEN_MISMATCH, "INVALID_REQUEST", details)
        if password is not None:
            details = {"code": "AUTH_PASSWORD_MISMATCH", "authReason": "password_mismatch"}
            return GatewayRequestError(PASSWORD_MISMATCH, "INVALID_REQUEST", details)
        if target.device is None:
            return GatewayRequestError("device identity required", "NOT_PAIRED", {"code": "DEVICE_IDENTITY_REQUIRED"})
        details = {
            "code": "AUTH_TOKEN_MISSING",
            "authReason": "token_missing",
            "canRetryWithDeviceToken": False,
            "recommendedNextStep": "update_auth_configuration",
        }
        return GatewayRequestError(TOKEN_MISSING, "INVALID_REQUEST", details)


if TYPE_CHECKING:
    _: GatewayCaller = InMemoryGatewayCaller()
