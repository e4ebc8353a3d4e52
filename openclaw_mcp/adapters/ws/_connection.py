"""One Gateway connection: the reconnect loop, the handshake and event dispatch (spec gateway-protocol §1–§8,
serve-bridge §2, §3.6).

One :class:`WebsocketsGatewayConnection` owns one WebSocket at a time and reconnects by itself. Per socket
there is one reader task (every inbound frame, in order) and one driver task (challenge, ``connect``,
``hello-ok``, ``sessions.subscribe``), plus the tick watch once ``hello-ok`` arrived. Nothing but
``connect`` is sent before ``hello-ok`` and nothing but ``sessions.subscribe`` before that succeeded:
bridge requests fail with ``gateway not connected`` unless the state is ``ready`` (§7.3).

``wait_ready`` carries the bridge's start rules (serve-bridge §2.2): retryable rejections and challenge
timeouts keep it waiting; any other failure before the first readiness is the start error, after which the
connection stops reconnecting (the bridge exits anyway). After the first readiness it never fails again.

Diagnostics go to ``log`` as whole lines (serve-bridge §11.3). Lines starting with ``gateway client `` are
the verbose-only ones; every other line is always printed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from openclaw_mcp.adapters.ws._backoff import Backoff
from openclaw_mcp.adapters.ws._device_auth import DeviceAuth
from openclaw_mcp.adapters.ws._frames import EventFrame, parse_frame, read_detail_code
from openclaw_mcp.adapters.ws._handshake import (
    Challenge,
    ConnectAuth,
    parse_challenge,
    parse_hello,
    should_pause_reconnect,
    startup_retry_after_ms,
)
from openclaw_mcp.adapters.ws._requests import PendingRequests
from openclaw_mcp.adapters.ws._socket import OpenFailure, close_info, closed_error, dispose, open_socket
from openclaw_mcp.application.ports.gateway import (
    ConnectionState,
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

__all__ = ["BRIDGE_EVENTS", "Sleep", "WebsocketsGatewayConnection"]

BRIDGE_EVENTS = frozenset(
    {
        "session.message",
        "exec.approval.requested",
        "exec.approval.resolved",
        "plugin.approval.requested",
        "plugin.approval.resolved",
    }
)
"""The events the client hands to ``on_event`` (gateway-protocol §4.4); all others are dropped."""

Sleep = Callable[[float], Awaitable[None]]


@dataclass(eq=False)
class _Attempt:
    """One socket's handshake bookkeeping."""

    challenge: Challenge | None = None
    challenge_received: anyio.Event = field(default_factory=anyio.Event)
    connect_request_sent: bool = False
    hello_received: bool = False
    failure: GatewayError | None = None
    reconnect_delay_ms: int | None = None
    auth: ConnectAuth | None = None
    stored_token: str | None = None


@dataclass(frozen=True, slots=True)
class _Decision:
    retry: bool
    override_ms: int | None = None
    minimum_ms: int = 0


def _error_name(error: GatewayError) -> str:
    if isinstance(error, GatewayRequestError):
        return "GatewayClientRequestError"
    if isinstance(error, GatewayTimeout):
        return "GatewayClientRequestTimeoutError"
    return "Error"


class WebsocketsGatewayConnection:
    """A Gateway connection (the port's ``GatewayConnection``); built by :meth:`WebsocketsGateway.connect`."""

    def __init__(
        self,
        settings: GatewaySettings,
        *,
        store: DeviceIdentityStore,
        on_event: Callable[[GatewayEvent], None],
        log: Callable[[str], None],
        platform: tuple[str, str | None],
        sleep: Sleep,
        challenge_timeout_ms: int,
        open_timeout_ms: int,
        connect_timeout_ms: int,
        tick_min_interval_ms: int,
        clock: Callable[[], float],
    ) -> None:
        self._settings = settings
        self._auth = DeviceAuth(settings, store, platform=platform, log=log)
        self._on_event = on_event
        self._log = log
        self._sleep = sleep
        self._challenge_timeout_ms = challenge_timeout_ms
        self._open_timeout_ms = open_timeout_ms
        self._connect_timeout_ms = connect_timeout_ms
        self._tick_min_interval_ms = tick_min_interval_ms
        self._clock = clock

        self._state: ConnectionState = "disconnected"
        self._ws: ClientConnection | None = None
        self._pending = PendingRequests()
        self._backoff = Backoff()
        self._hello: HelloInfo | None = None
        self._ever_ready = False
        self._start_done = anyio.Event()
        self._start_error: GatewayError | None = None
        self._retrying_initial = False
        self._stopping = False
        self._halted = False
        self._suppressed_clean_closes = 0
        self._tick_interval_ms = 30_000
        self._last_activity = 0.0
        self._last_seq: int | None = None

    # --- the port -------------------------------------------------------------------------------------

    @property
    def state(self) -> ConnectionState:
        return self._state

    async def wait_ready(self) -> HelloInfo:
        """The ``hello-ok`` of the latest readiness, once ready for the first time; raises the start error
        (``GatewayError``), or ``GatewayStopped`` when the connection was closed first."""
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
        ws = self._ws
        if self._state != "ready" or ws is None:
            raise GatewayNotConnected()
        if not isinstance(method, str) or not method:
            raise GatewayError("invalid request frame: method must be a non-empty string")
        return self._send(ws, method, params)

    # --- lifecycle ------------------------------------------------------------------------------------

    def _set_state(self, state: ConnectionState) -> None:
        if not self._stopping:
            self._state = state

    def _begin_stop(self) -> None:
        self._stopping = True
        self._state = "stopped"
        self._flush(GatewayStopped("gateway client stopped"))
        self._fail_start(GatewayStopped("gateway client stopped"))

    def _fail_start(self, error: GatewayError) -> None:
        if not self._start_done.is_set():
            self._start_error = error
            self._start_done.set()

    def _notify_connect_error(self, error: GatewayError) -> None:
        """The bridge's reaction to a connect error before its first readiness (serve-bridge §2.2)."""
        if self._ever_ready or self._start_done.is_set():
            return
        if isinstance(error, GatewayRequestError):
            retry = error.retryable is True
        else:
            text = str(error).lower()
            retry = "gateway request timeout for connect" in text or "gateway connect challenge timeout" in text
        if retry:
            self._retrying_initial = True
        else:
            self._fail_start(error)

    def _bridge_on_close(self, code: int, reason: str) -> None:
        if not self._ever_ready and not self._retrying_initial:
            self._fail_start(GatewayClosed(f"gateway closed before ready ({code}): {reason}"))
        self._retrying_initial = False

    async def _supervise(self) -> None:
        try:
            await self._auth.load_identity()
        except GatewayError as exc:
            self._fail_start(exc)
            return
        while not self._stopping:
            attempt = _Attempt()
            decision = await self._run_attempt(attempt)
            self._set_state("disconnected")
            if not decision.retry or self._halted:
                if not self._ever_ready:
                    self._fail_start(attempt.failure or GatewayError("gateway reconnect paused"))
                return
            if self._start_error is not None:
                return
            if decision.override_ms is not None:
                self._backoff.override_next(decision.override_ms)
            delay_ms = self._backoff.next_delay_ms(decision.minimum_ms)
            await self._sleep(delay_ms / 1000)

    # --- one socket -----------------------------------------------------------------------------------

    async def _run_attempt(self, attempt: _Attempt) -> _Decision:
        self._set_state("connecting")
        try:
            ws = await open_socket(self._settings.url, self._settings.tls_fingerprint, self._open_timeout_ms)
        except OpenFailure as failure:
            if failure.verbose_line:
                self._log(f"gateway client error: Error: {failure.error}")
            attempt.failure = failure.error
            if failure.fatal:
                self._halted = True
            self._notify_connect_error(failure.error)
            return await self._on_close(attempt, 1006, "")
        self._ws = ws
        self._last_seq = None
        code, reason = 1006, ""
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._drive, ws, attempt, tg)
                code, reason = await self._read(ws, attempt)
                self._ws = None
                self._set_state("disconnected")
                self._flush(attempt.failure or closed_error(code, reason))
                tg.cancel_scope.cancel()
        finally:
            self._ws = None
            with anyio.CancelScope(shield=True):
                await dispose(ws)
        return await self._on_close(attempt, code, reason)

    async def _close(self, ws: ClientConnection, code: int, reason: str) -> None:
        """Start the closing handshake; the reader reports the close."""
        await ws.close(code, reason)

    async def _read(self, ws: ClientConnection, attempt: _Attempt) -> tuple[int, str]:
        while True:
            try:
                data = await ws.recv()
            except ConnectionClosed as exc:
                return close_info(exc)
            frame = parse_frame(data)
            if frame is None:
                continue
            self._last_activity = self._clock()
            if isinstance(frame, EventFrame):
                self._on_event_frame(attempt, frame)
                continue
            self._pending.settle(frame)

    def _on_event_frame(self, attempt: _Attempt, frame: EventFrame) -> None:
        if frame.event == "connect.challenge":
            if attempt.challenge is None:
                attempt.challenge = parse_challenge(frame.payload)
                attempt.challenge_received.set()
            return
        if frame.seq is not None:
            # A jump in ``seq`` is noticed but not acted on (events missed while away are lost).
            self._last_seq = frame.seq
        if not attempt.hello_received or frame.event not in BRIDGE_EVENTS:
            return
        try:
            self._on_event(GatewayEvent(frame.event, frame.payload, frame.seq))
        except Exception as exc:  # an event callback must not take the reader down (reference: logged)
            self._log(f"gateway client event handler error: {type(exc).__name__}: {exc}")

    async def _drive(self, ws: ClientConnection, attempt: _Attempt, tg: anyio.abc.TaskGroup) -> None:
        opened_at = self._clock()
        with anyio.move_on_after(self._challenge_timeout_ms / 1000):
            await attempt.challenge_received.wait()
        challenge = attempt.challenge
        if challenge is None:
            waited = round((self._clock() - opened_at) * 1000)
            limit = self._challenge_timeout_ms
            self._notify_connect_error(
                GatewayError(f"gateway connect challenge timeout (waited {waited}ms, limit {limit}ms)")
            )
            await self._close(ws, 1008, "connect challenge timeout")
            return
        if not challenge.nonce:
            self._notify_connect_error(GatewayError("gateway connect challenge missing nonce"))
            await self._close(ws, 1008, "connect challenge missing nonce")
            return
        hello_payload: Any = None
        with anyio.move_on_after(self._connect_timeout_ms / 1000) as scope:
            params = await self._plan(attempt, challenge)
            if params is None:
                await self._close(ws, 1008, "connect failed")
                return
            attempt.connect_request_sent = True
            self._set_state("handshaking")
            try:
                hello_payload = await self._send(ws, "connect", params)()
            except GatewayRequestError as error:
                await self._connect_rejected(ws, attempt, error)
                return
            except GatewayTimeout as error:
                self._notify_connect_error(error)
                self._log(f"gateway connect failed: Error: {error}")
                await self._close(ws, 1008, "connect failed")
                return
            except (GatewayClosed, GatewayStopped):
                return
        if scope.cancelled_caught:
            await self._close(ws, 4000, "connect timeout")
            return
        await self._hello_ok(ws, attempt, tg, hello_payload)

    async def _plan(self, attempt: _Attempt, challenge: Challenge) -> dict[str, Any] | None:
        """The ``connect`` params, or ``None`` after a plan error (logged, reported, reconnecting stopped)."""
        try:
            params, attempt.auth, attempt.stored_token = await self._auth.plan(challenge)
        except GatewayError as error:
            self._halted = True
            self._log(f"gateway connect failed: Error: {error}")
            self._notify_connect_error(error)
            return None
        return params

    async def _connect_rejected(self, ws: ClientConnection, attempt: _Attempt, error: GatewayRequestError) -> None:
        attempt.failure = error
        detail_code = read_detail_code(error.details)
        if await self._auth.on_rejected(error, detail_code, attempt.auth, attempt.stored_token):
            self._backoff.reset(250)
        startup_delay = startup_retry_after_ms(error)
        if startup_delay is not None:
            attempt.reconnect_delay_ms = startup_delay
            await self._close(ws, 1013, "gateway starting")
            return
        self._notify_connect_error(error)
        if detail_code != "AUTH_RATE_LIMITED":
            self._log(f"gateway connect failed: GatewayClientRequestError: {error}")
        await self._close(ws, 1008, "connect failed")

    async def _hello_ok(self, ws: ClientConnection, attempt: _Attempt, tg: anyio.abc.TaskGroup, payload: Any) -> None:
        attempt.hello_received = True
        self._backoff.reset()
        hello = parse_hello(payload)
        try:
            await self._auth.save_issued_token(hello)
        except GatewayError as error:
            attempt.failure = error
            self._notify_connect_error(error)
            self._log(f"gateway device token persistence failed: Error: {error}")
            await self._close(ws, 1008, "connect failed")
            return
        self._auth.accepted()
        self._suppressed_clean_closes = 0
        self._tick_interval_ms = hello.tick_interval_ms
        self._last_activity = self._clock()
        tg.start_soon(self._tick_watch, ws)
        self._retrying_initial = False
        self._set_state("subscribing")
        try:
            await self._send(ws, "sessions.subscribe", {})()
        except (GatewayClosed, GatewayStopped):
            return
        except GatewayError as error:
            if self._ever_ready:
                self._log(f"gateway connect failed: {_error_name(error)}: {error}")
            else:
                self._fail_start(error)
            await self._close(ws, 1000, "")
            return
        self._hello = hello
        self._ever_ready = True
        self._set_state("ready")
        self._start_done.set()

    async def _tick_watch(self, ws: ClientConnection) -> None:
        interval_ms = max(self._tick_interval_ms, self._tick_min_interval_ms)
        while True:
            await anyio.sleep(interval_ms / 1000)
            if self._pending:
                continue
            if (self._clock() - self._last_activity) * 1000 > self._tick_interval_ms * 2:
                await self._close(ws, 4000, "tick timeout")
                return

    async def _on_close(self, attempt: _Attempt, code: int, reason: str) -> _Decision:
        """The reference's close policy (gateway-protocol §3.2, §7.1) plus the bridge's ``onClose``."""
        if self._stopping:
            return _Decision(retry=False)
        failure = attempt.failure
        if attempt.reconnect_delay_ms is not None:
            return _Decision(retry=True, override_ms=attempt.reconnect_delay_ms)
        transient = not attempt.hello_received and code == 1000 and reason == ""
        if transient and self._suppressed_clean_closes < 1:
            self._suppressed_clean_closes += 1
            self._bridge_on_close(code, reason)
            return _Decision(retry=True)
        if transient or (attempt.connect_request_sent and not attempt.hello_received and failure is None):
            error = closed_error(code, reason)
            self._notify_connect_error(error)
            self._log(f"gateway connect failed: Error: {error}")
        if (
            code == 1008
            and "device token mismatch" in reason.strip().lower()
            and not (self._settings.token or "").strip()
            and not (self._settings.password or "").strip()
        ):
            await self._auth.clear_stored_token()
        details = failure.details if isinstance(failure, GatewayRequestError) else None
        if should_pause_reconnect(details, device_token_retry_pending=self._auth.retry_pending):
            self._bridge_on_close(code, reason)
            return _Decision(retry=False)
        self._bridge_on_close(code, reason)
        minimum = 0
        if isinstance(failure, GatewayRequestError) and failure.retryable and failure.retry_after_ms:
            minimum = failure.retry_after_ms
        return _Decision(retry=True, minimum_ms=minimum)

    # --- requests -------------------------------------------------------------------------------------

    def _send(self, ws: ClientConnection, method: str, params: Any) -> Callable[[], Awaitable[Any]]:
        return self._pending.send(ws, method, params, self._settings.request_timeout_ms)

    def _flush(self, error: GatewayError) -> None:
        self._pending.flush(error)
