"""A scriptable in-process OpenClaw Gateway implementing the ``Gateway`` port (spec gateway-protocol §7.3).

Methods are answered by handlers (``handle``); tests push events (``push_event``), take the Gateway down
(``outage``: every connection drops, in-flight requests fail with ``gateway closed (<code>): <reason>``) and
bring it back (``restore``: connections reconnect, re-subscribe, become ready again). Connects can be
rejected (``reject_connects``) and, with ``token`` set, are checked like the real Gateway's shared token /
device token auth. Connections go through the same states as the WebSocket client; there is no wire.

Simplification: a rejection that is not retryable fails the start before the first readiness and pauses
reconnecting after it (the real client retries some of those with backoff).
"""

from __future__ import annotations

import inspect
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from openclaw_mcp.application.held_task_group import HeldTaskGroup
from openclaw_mcp.application.ports.gateway import (
    ConnectionState,
    DeviceIdentity,
    DeviceIdentityStore,
    GatewayClosed,
    GatewayError,
    GatewayEvent,
    GatewayNotConnected,
    GatewayRequestError,
    GatewaySettings,
    GatewayStopped,
    GatewayTimeout,
    HelloInfo,
)
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = ["BRIDGE_EVENTS", "Handler", "InMemoryGateway", "InMemoryGatewayConnection", "RecordedRequest", "hang"]

BRIDGE_EVENTS = frozenset(
    {
        "session.message",
        "exec.approval.requested",
        "exec.approval.resolved",
        "plugin.approval.requested",
        "plugin.approval.resolved",
    }
)
"""The events a connection hands to ``on_event`` (gateway-protocol §4.4); all others are dropped."""

Handler = Callable[[Any], Any]
"""Answers one method: called with the request params, returns the payload (or an awaitable of it); raises
``GatewayRequestError`` for an ``ok: false`` answer."""

TOKEN_MISMATCH = "unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)"
TOKEN_MISSING = "unauthorized: gateway token missing (use this gateway's gateway.auth.token or pair the device)"


async def hang(params: Any) -> Any:
    """A handler that never answers."""
    await anyio.sleep_forever()


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    params: Any
    connection: int
    """Which connection (1, 2, … in connect order) sent it."""


@dataclass(eq=False)
class _Inflight:
    scope: anyio.CancelScope | None = None
    error: GatewayError | None = None


class InMemoryGateway:
    """The fake Gateway. ``hello`` is the ``hello-ok`` payload sent to connections (``features.methods``
    defaults to the bridge's methods plus every handled one); ``reconnect_delay_s`` is how long a dropped
    connection waits before reconnecting once the Gateway is up."""

    def __init__(
        self,
        *,
        methods: Mapping[str, Handler] | None = None,
        hello: Mapping[str, Any] | None = None,
        identity_store: DeviceIdentityStore | None = None,
        token: str | None = None,
        up: bool = True,
        reconnect_delay_s: float = 0.0,
    ) -> None:
        self._methods: dict[str, Handler] = {"sessions.subscribe": lambda params: {"subscribed": True}}
        self._methods.update(methods or {})
        self._hello = dict(hello) if hello is not None else None
        self._store = identity_store
        self._token = token
        self._up = anyio.Event()
        if up:
            self._up.set()
        self._down_reason: tuple[int, str] = (1012, "service restart")
        self._rejection: GatewayRequestError | None = None
        self._issued_tokens: set[str] = set()
        self._connections: list[InMemoryGatewayConnection] = []
        self._connection_count = 0
        self.reconnect_delay_s = reconnect_delay_s
        self.requests: list[RecordedRequest] = []
        """Every request received after ``hello-ok`` (``sessions.subscribe`` included), in order."""
        self.handshakes = 0
        """How many ``connect`` handshakes were attempted."""

    # --- scripting ------------------------------------------------------------------------------------

    def handle(self, method: str, handler: Handler) -> None:
        self._methods[method] = handler

    def reject_connects(self, error: GatewayRequestError | None) -> None:
        """Answer every following ``connect`` with ``error`` (``None``: accept again)."""
        self._rejection = error

    def push_event(self, event: str, payload: Any = UNDEFINED, seq: int | None = None) -> None:
        """Deliver an event frame to every connected (post-``hello-ok``) connection, synchronously."""
        for connection in list(self._connections):
            connection._deliver(GatewayEvent(event, payload, seq))

    def outage(self, code: int = 1012, reason: str = "service restart") -> None:
        """Take the Gateway down: every connection closes with ``code``/``reason`` and cannot reconnect."""
        self._down_reason = (code, reason)
        if self._up.is_set():
            self._up = anyio.Event()
        for connection in list(self._connections):
            connection._drop(code, reason)

    def restore(self) -> None:
        """Bring the Gateway back; dropped connections reconnect."""
        self._up.set()

    @property
    def is_up(self) -> bool:
        return self._up.is_set()

    # --- the port -------------------------------------------------------------------------------------

    def connect(
        self,
        settings: GatewaySettings,
        *,
        on_event: Callable[[GatewayEvent], None],
        log: Callable[[str], None],
    ) -> _InMemoryConnectionContext:
        self._connection_count += 1
        return _InMemoryConnectionContext(
            InMemoryGatewayConnection(self, settings, on_event, log, self._connection_count)
        )

    # --- connection side ------------------------------------------------------------------------------

    def _hello_info(self, device_token: str | None, scopes: list[str]) -> HelloInfo:
        if self._hello is not None:
            raw = dict(self._hello)
        else:
            methods = sorted(
                {
                    "sessions.subscribe",
                    "sessions.list",
                    "sessions.describe",
                    "sessions.get",
                    "chat.message.get",
                    "send",
                    "exec.approval.resolve",
                    "plugin.approval.resolve",
                }
                | set(self._methods)
            )
            raw = {
                "type": "hello-ok",
                "protocol": 4,
                "server": {"version": "2026.9.6"},
                "features": {"methods": methods, "events": sorted(BRIDGE_EVENTS | {"tick"})},
                "auth": {"method": "token", "role": "operator", "scopes": scopes},
                "policy": {"tickIntervalMs": 30_000, "maxPayload": 26_214_400, "maxBufferedBytes": 52_428_800},
            }
        if device_token is not None and isinstance(raw.get("auth"), dict):
            raw["auth"] = {**raw["auth"], "deviceToken": device_token}
        features = raw.get("features") if isinstance(raw.get("features"), dict) else {}
        assert isinstance(features, dict)
        policy = raw.get("policy") if isinstance(raw.get("policy"), dict) else {}
        assert isinstance(policy, dict)
        tick = policy.get("tickIntervalMs")
        return HelloInfo(
            methods=frozenset(m for m in features.get("methods", []) if isinstance(m, str)),
            events=frozenset(e for e in features.get("events", []) if isinstance(e, str)),
            tick_interval_ms=tick if isinstance(tick, int) and not isinstance(tick, bool) and tick > 0 else 30_000,
            raw=raw,
        )

    async def _handshake(self, settings: GatewaySettings, identity: DeviceIdentity | None) -> HelloInfo:
        """``hello-ok`` for one connect, or the rejection (``GatewayRequestError``)."""
        self.handshakes += 1
        if self._rejection is not None:
            raise self._rejection
        token = (settings.token or "").strip() or None
        password = (settings.password or "").strip() or None
        stored = None
        if identity is not None and self._store is not None:
            stored = await self._store.load_token(identity.device_id, "operator")
        if self._token is not None:
            if token is not None and token != self._token:
                raise GatewayRequestError(
                    TOKEN_MISMATCH,
                    "INVALID_REQUEST",
                    {
                        "code": "AUTH_TOKEN_MISMATCH",
                        "authReason": "token_mismatch",
                        "canRetryWithDeviceToken": True,
                        "recommendedNextStep": "retry_with_device_token",
                    },
                    False,
                )
            device_token_ok = token is None and password is None and stored in self._issued_tokens
            if token is None and not device_token_ok:
                raise GatewayRequestError(
                    TOKEN_MISSING,
                    "INVALID_REQUEST",
                    {
                        "code": "AUTH_TOKEN_MISSING",
                        "authReason": "token_missing",
                        "canRetryWithDeviceToken": False,
                        "recommendedNextStep": "update_auth_configuration",
                    },
                    False,
                )
        device_token = None
        if identity is not None and self._store is not None:
            device_token = f"memory-device-token-{len(self._issued_tokens) + 1}"
            self._issued_tokens.add(device_token)
            await self._store.save_token(identity.device_id, "operator", device_token, list(settings.scopes))
        return self._hello_info(device_token, list(settings.scopes))


class _InMemoryConnectionContext:
    def __init__(self, connection: InMemoryGatewayConnection) -> None:
        self._connection = connection
        self._tasks = HeldTaskGroup()

    async def __aenter__(self) -> InMemoryGatewayConnection:
        if self._tasks.group is not None or self._connection._state == "stopped":
            raise RuntimeError("gateway connection already started")
        task_group = await self._tasks.open()
        self._connection._gateway._connections.append(self._connection)
        task_group.start_soon(self._connection._supervise)
        return self._connection

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        if self._tasks.group is None:
            return
        self._connection._stop()
        await self._tasks.close()


@dataclass(eq=False)
class _Link:
    dropped: anyio.Event = field(default_factory=anyio.Event)


class InMemoryGatewayConnection:
    """One connection to an :class:`InMemoryGateway` (the port's ``GatewayConnection``)."""

    def __init__(
        self,
        gateway: InMemoryGateway,
        settings: GatewaySettings,
        on_event: Callable[[GatewayEvent], None],
        log: Callable[[str], None],
        number: int,
    ) -> None:
        self._gateway = gateway
        self._settings = settings
        self._on_event = on_event
        self._log = log
        self._number = number
        self._state: ConnectionState = "disconnected"
        self._hello: HelloInfo | None = None
        self._ever_ready = False
        self._start_done = anyio.Event()
        self._start_error: GatewayError | None = None
        self._inflight: set[_Inflight] = set()
        self._link: _Link | None = None
        self._post_hello = False

    @property
    def state(self) -> ConnectionState:
        return self._state

    async def wait_ready(self) -> HelloInfo:
        await self._start_done.wait()
        if self._start_error is not None:
            raise self._start_error
        assert self._hello is not None
        return self._hello

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.send_request(method, params)()

    def send_request(self, method: str, params: dict[str, Any] | None = None) -> Callable[[], Awaitable[Any]]:
        if self._state == "stopped":
            raise GatewayStopped("gateway client stopped")
        if self._state != "ready":
            raise GatewayNotConnected()
        if not isinstance(method, str) or not method:
            raise GatewayError("invalid request frame: method must be a non-empty string")

        async def answer() -> Any:  # in memory there is no wire: the handler runs when this is awaited
            return await self._call(method, params)

        return answer

    async def _call(self, method: str, params: Any) -> Any:
        self._gateway.requests.append(RecordedRequest(method, params, self._number))
        handler = self._gateway._methods.get(method)
        if handler is None:
            raise GatewayRequestError(f"unknown method: {method}", "INVALID_REQUEST", None, False)
        inflight = _Inflight()
        self._inflight.add(inflight)
        result: Any = None
        completed = False
        try:
            with anyio.CancelScope() as scope:
                inflight.scope = scope
                with anyio.move_on_after(self._settings.request_timeout_ms / 1000):
                    result = handler(params)
                    if inspect.isawaitable(result):
                        result = await result
                    completed = True
        finally:
            self._inflight.discard(inflight)
        if completed:
            return result
        if inflight.error is not None:
            raise inflight.error
        raise GatewayTimeout(f"gateway request timeout for {method}")

    # --- driven by the gateway ------------------------------------------------------------------------

    def _deliver(self, event: GatewayEvent) -> None:
        if self._post_hello and self._state in ("subscribing", "ready") and event.event in BRIDGE_EVENTS:
            self._on_event(event)

    def _fail_inflight(self, error: GatewayError) -> None:
        for inflight in list(self._inflight):
            if inflight.error is None:
                inflight.error = error
                if inflight.scope is not None:
                    inflight.scope.cancel()

    def _drop(self, code: int, reason: str) -> None:
        link = self._link
        if link is None:
            return
        self._link = None
        self._post_hello = False
        if self._state != "stopped":
            self._state = "disconnected"
        self._fail_inflight(GatewayClosed(f"gateway closed ({code}): {reason}"))
        link.dropped.set()

    def _stop(self) -> None:
        if self in self._gateway._connections:
            self._gateway._connections.remove(self)
        self._state = "stopped"
        self._post_hello = False
        self._link = None
        self._fail_inflight(GatewayStopped("gateway client stopped"))
        if not self._start_done.is_set():
            self._start_error = GatewayStopped("gateway client stopped")
            self._start_done.set()

    def _fail_start(self, error: GatewayError) -> None:
        if not self._start_done.is_set():
            self._start_error = error
            self._start_done.set()

    def _set_state(self, state: ConnectionState) -> None:
        if self._state != "stopped":
            self._state = state

    async def _supervise(self) -> None:
        gateway = self._gateway
        identity = None
        if gateway._store is not None:
            try:
                identity = await gateway._store.load_or_create_identity()
            except GatewayError as failure:
                self._fail_start(failure)
                return
        while self._state != "stopped":
            if not gateway.is_up:
                if not self._ever_ready:
                    address = _address(self._settings.url)
                    error = GatewayError(f"connect ECONNREFUSED {address}")
                    self._log(f"gateway client error: Error: {error}")
                    self._fail_start(error)
                    return
                await gateway._up.wait()
                await anyio.sleep(gateway.reconnect_delay_s)
                continue
            self._set_state("connecting")
            await anyio.sleep(0)
            link = _Link()
            self._link = link
            self._set_state("handshaking")
            try:
                hello = await gateway._handshake(self._settings, identity)
            except GatewayRequestError as error:
                self._link = None
                self._set_state("disconnected")
                self._log(f"gateway connect failed: GatewayClientRequestError: {error}")
                if error.retryable:
                    await anyio.sleep(max(gateway.reconnect_delay_s, 0.01))
                    continue
                self._fail_start(error)
                return
            if link.dropped.is_set() or self._link is not link:
                continue
            self._post_hello = True
            self._set_state("subscribing")
            try:
                await self._call("sessions.subscribe", {})
            except (GatewayClosed, GatewayStopped):
                continue
            except GatewayError as error:
                if not self._ever_ready:
                    self._fail_start(error)
                    self._drop(1000, "")
                    return
                name = "GatewayClientRequestError" if isinstance(error, GatewayRequestError) else "Error"
                self._log(f"gateway connect failed: {name}: {error}")
                self._drop(1000, "")
                await anyio.sleep(gateway.reconnect_delay_s)
                continue
            if link.dropped.is_set():
                continue
            self._hello = hello
            self._ever_ready = True
            self._set_state("ready")
            self._start_done.set()
            await link.dropped.wait()
            await anyio.sleep(gateway.reconnect_delay_s)


def _address(url: str) -> str:
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or "127.0.0.1"
        port = parts.port or (443 if parts.scheme in ("wss", "https") else 80)
    except ValueError:
        return url
    return f"{host}:{port}"


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.gateway import Gateway, GatewayConnection

    def _conforms(gateway: InMemoryGateway, connection: InMemoryGatewayConnection) -> tuple[Gateway, GatewayConnection]:
        return gateway, connection
