"""The OpenClaw Gateway client over ``websockets`` (spec gateway-protocol §1–§8, serve-bridge §2, §3.6).

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

import asyncio
import errno
import hashlib
import os
import re
import socket
import ssl
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import anyio
import anyio.abc
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as _ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.protocol import State

from adapters.ws._backoff import Backoff
from adapters.ws._frames import (
    MAX_PAYLOAD_BYTES,
    EventFrame,
    encode_request,
    parse_frame,
    read_detail_code,
    request_error,
    request_id,
)
from adapters.ws._handshake import (
    CONNECT_TIMEOUT_MS,
    Challenge,
    ConnectAuth,
    build_connect_params,
    challenge_timeout_ms,
    is_trusted_device_retry_endpoint,
    parse_challenge,
    parse_hello,
    platform_identity,
    preauth_handshake_timeout_ms,
    select_auth,
    should_pause_reconnect,
    should_retry_with_device_token,
    startup_retry_after_ms,
)
from application.held_task_group import HeldTaskGroup
from application.ports.gateway import (
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

__all__ = ["BRIDGE_EVENTS", "TokenClearingStore", "WebsocketsGateway", "WebsocketsGatewayConnection"]

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

_ROLE = "operator"
_STOP_GRACE_S = 0.25
_CLOSE_TIMEOUT_S = 1.0
_UPGRADE_BODY_LIMIT = 2048
_JS_WHITESPACE_RUN = re.compile(r"[\s\ufeff]+")


@runtime_checkable
class TokenClearingStore(Protocol):
    """A store that can also delete a device token (used after ``AUTH_DEVICE_TOKEN_MISMATCH``, §3.2)."""

    async def clear_token(self, device_id: str, role: str) -> None: ...


class WebsocketsGateway:
    """Opens Gateway connections over ``websockets``.

    ``env`` supplies ``OPENCLAW_HANDSHAKE_TIMEOUT_MS`` / ``OPENCLAW_CONNECT_CHALLENGE_TIMEOUT_MS`` (default:
    ``os.environ`` read at construction). ``platform`` overrides ``sys.platform`` for ``client.platform`` /
    ``deviceFamily``. ``sleep`` waits between reconnect attempts (tests inject a recorder);
    ``tick_watch_min_interval_ms`` (1…30 000, default 1 000) and ``connect_timeout_ms`` are the reference's
    tuning knobs; ``clock`` is the monotonic clock of the liveness watch.
    """

    def __init__(
        self,
        identity_store: DeviceIdentityStore,
        *,
        env: Mapping[str, str] | None = None,
        platform: str | None = None,
        sleep: Sleep = anyio.sleep,
        tick_watch_min_interval_ms: int = 1_000,
        connect_timeout_ms: int = CONNECT_TIMEOUT_MS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = identity_store
        self._env: Mapping[str, str] = dict(os.environ if env is None else env)
        self._platform = platform_identity(platform)
        self._sleep = sleep
        self._tick_min_ms = max(1, min(30_000, tick_watch_min_interval_ms))
        self._connect_timeout_ms = connect_timeout_ms
        self._clock = clock

    def connect(
        self,
        settings: GatewaySettings,
        *,
        on_event: Callable[[GatewayEvent], None],
        log: Callable[[str], None],
    ) -> _ConnectionContext:
        connection = WebsocketsGatewayConnection(
            settings,
            store=self._store,
            on_event=on_event,
            log=log,
            platform=self._platform,
            sleep=self._sleep,
            challenge_timeout_ms=challenge_timeout_ms(self._env),
            open_timeout_ms=preauth_handshake_timeout_ms(self._env),
            connect_timeout_ms=self._connect_timeout_ms,
            tick_min_interval_ms=self._tick_min_ms,
            clock=self._clock,
        )
        return _ConnectionContext(connection)


class _ConnectionContext:
    """Runs the connection's supervisor in a task group for the lifetime of the ``async with`` block."""

    def __init__(self, connection: WebsocketsGatewayConnection) -> None:
        self._connection = connection
        self._tasks = HeldTaskGroup()
        self._entered = False

    async def __aenter__(self) -> WebsocketsGatewayConnection:
        if self._entered:
            raise RuntimeError("gateway connection already started")
        self._entered = True
        task_group = await self._tasks.open()
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
        self._connection._begin_stop()
        # Shielded so a cancelled caller still gets the bounded socket close.
        await self._tasks.close(shield=True)


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


class _OpenFailure(Exception):
    """A socket that could not be opened: ``error`` (its ``__cause__`` the library error) is reported."""

    def __init__(
        self,
        error: GatewayError,
        *,
        cause: BaseException | None = None,
        verbose_line: bool = True,
        fatal: bool = False,
    ) -> None:
        super().__init__(str(error))
        if cause is not None:
            error.__cause__ = cause
        self.error = error
        self.verbose_line = verbose_line
        self.fatal = fatal


def _write_text_now(ws: ClientConnection, text: str) -> bool:
    """Write one text frame without waiting, through the connection's Sans-I/O protocol, when the socket is
    open (a full write buffer just buffers more); ``False`` (nothing written) otherwise."""
    if ws.protocol.state is not State.OPEN:
        return False
    ws.protocol.send_text(text.encode())
    for data in ws.protocol.data_to_send():
        if data:
            ws.transport.write(data)
    return True


class _NoRedirectConnect(_ws_connect):
    """``websockets.connect`` that reports redirects as upgrade rejections (Node ``ws`` does not follow)."""

    def process_redirect(self, exc: Exception) -> Exception | str:
        return exc


def _error_name(error: GatewayError) -> str:
    if isinstance(error, GatewayRequestError):
        return "GatewayClientRequestError"
    if isinstance(error, GatewayTimeout):
        return "GatewayClientRequestTimeoutError"
    return "Error"


def _close_info(exc: ConnectionClosed) -> tuple[int, str]:
    """The close code and reason as Node's ``ws`` reports them: the peer's close frame; when we closed and
    the peer did not answer (``websockets`` fails a connection without waiting, e.g. 1009 for an oversized
    message) the frame we sent, which a peer echoes; else 1006."""
    if exc.rcvd is not None:
        return exc.rcvd.code, exc.rcvd.reason
    if exc.sent is not None:
        return exc.sent.code, exc.sent.reason
    return 1006, ""


def _closed_error(code: int, reason: str) -> GatewayClosed:
    return GatewayClosed(f"gateway closed ({code}): {reason}")


def _node_address(sockaddr: Any) -> str:
    return f"{sockaddr[0]}:{sockaddr[1]}"


def _errno_name(exc: OSError) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "ECONNREFUSED"
    if exc.errno is not None and exc.errno in errno.errorcode:
        return errno.errorcode[exc.errno]
    return "ECONNRESET"


def _normalize_fingerprint(fingerprint: str) -> str:
    value = fingerprint.strip()
    if value.lower().startswith("sha256:"):
        value = value[7:]
    if re.fullmatch(r"[0-9a-fA-F]{64}", value):
        return value.lower()
    if re.fullmatch(r"(?:[0-9a-fA-F]{2}:){31}[0-9a-fA-F]{2}", value):
        return value.replace(":", "").lower()
    return ""


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
        self._store = store
        self._on_event = on_event
        self._log = log
        self._platform, self._device_family = platform
        self._sleep = sleep
        self._challenge_timeout_ms = challenge_timeout_ms
        self._open_timeout_ms = open_timeout_ms
        self._connect_timeout_ms = connect_timeout_ms
        self._tick_min_interval_ms = tick_min_interval_ms
        self._clock = clock
        self._trusted_endpoint = is_trusted_device_retry_endpoint(settings.url, settings.tls_fingerprint)

        self._state: ConnectionState = "disconnected"
        self._ws: ClientConnection | None = None
        self._pending: dict[str, _Pending] = {}
        self._counter = 0
        self._backoff = Backoff()
        self._identity: DeviceIdentity | None = None
        self._hello: HelloInfo | None = None
        self._ever_ready = False
        self._start_done = anyio.Event()
        self._start_error: GatewayError | None = None
        self._retrying_initial = False
        self._stopping = False
        self._halted = False
        self._pending_device_token_retry = False
        self._device_token_budget_used = False
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
            self._identity = await self._store.load_or_create_identity()
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
            ws = await self._open()
        except _OpenFailure as failure:
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
                self._flush(attempt.failure or _closed_error(code, reason))
                tg.cancel_scope.cancel()
        finally:
            self._ws = None
            with anyio.CancelScope(shield=True):
                await self._dispose(ws)
        return await self._on_close(attempt, code, reason)

    async def _open(self) -> ClientConnection:
        url = self._settings.url
        try:
            parts = urllib.parse.urlsplit(url)
            scheme = {"https": "wss", "http": "ws"}.get(parts.scheme.lower(), parts.scheme.lower())
            host = parts.hostname
            port = parts.port or (443 if scheme == "wss" else 80)
        except ValueError as exc:
            raise _OpenFailure(GatewayError(f"Invalid URL: {url}"), verbose_line=False, fatal=True, cause=exc) from exc
        if scheme not in ("ws", "wss") or not host:
            raise _OpenFailure(GatewayError(f"Invalid URL: {url}"), verbose_line=False, fatal=True)
        ws_url = urllib.parse.urlunsplit((scheme, parts.netloc, parts.path, parts.query, ""))
        pin = None
        if self._settings.tls_fingerprint:
            if scheme != "wss":
                error = GatewayError("gateway tls fingerprint requires wss:// gateway url")
                raise _OpenFailure(error, verbose_line=False, fatal=True)
            pin = _normalize_fingerprint(self._settings.tls_fingerprint)
            if not pin:
                error = GatewayError("gateway tls fingerprint must be a SHA-256 fingerprint")
                raise _OpenFailure(error, verbose_line=False, fatal=True)
        trying: list[Any] = []
        ws: ClientConnection | None = None
        with anyio.move_on_after(self._open_timeout_ms / 1000):
            sock = await self._open_tcp(host, port, trying)
            try:
                ws = await self._upgrade(ws_url, sock, host, secure=scheme == "wss", pinned=pin is not None)
            except BaseException:
                sock.close()
                raise
        if ws is None:
            # The open timeout: Node reports ``connect ETIMEDOUT <ip>:<port>`` while the TCP connect is pending.
            if trying:
                raise _OpenFailure(GatewayError(f"connect ETIMEDOUT {_node_address(trying[-1])}"))
            raise _OpenFailure(GatewayError("Opening handshake has timed out"))
        if pin is not None:
            self._check_pin(ws, pin)
        return ws

    async def _open_tcp(self, host: str, port: int, trying: list[Any]) -> socket.socket:
        """A connected TCP socket (each resolved address in turn); ``trying`` holds the address being tried
        while a connect is pending."""
        try:
            infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            code = "EAI_AGAIN" if getattr(exc, "errno", None) == socket.EAI_AGAIN else "ENOTFOUND"
            raise _OpenFailure(GatewayError(f"getaddrinfo {code} {host}"), cause=exc) from exc
        loop = asyncio.get_running_loop()
        last: tuple[OSError, Any] | None = None
        for family, kind, proto, _, sockaddr in infos:
            sock = socket.socket(family, kind, proto)
            sock.setblocking(False)
            trying.append(sockaddr)
            try:
                await loop.sock_connect(sock, sockaddr)
            except OSError as exc:
                sock.close()
                last = (exc, sockaddr)
                continue
            except BaseException:
                sock.close()
                raise
            trying.clear()
            return sock
        trying.clear()
        assert last is not None
        error, address = last
        raise _OpenFailure(
            GatewayError(f"connect {_errno_name(error)} {_node_address(address)}"), cause=error
        ) from error

    async def _upgrade(
        self, ws_url: str, sock: socket.socket, host: str, *, secure: bool, pinned: bool
    ) -> ClientConnection:
        kwargs: dict[str, Any] = {}
        if secure:
            context = ssl.create_default_context()
            if pinned:
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
            kwargs["ssl"] = context
            kwargs["server_hostname"] = host
        try:
            return await _NoRedirectConnect(
                ws_url,
                sock=sock,
                open_timeout=None,
                ping_interval=None,
                close_timeout=_CLOSE_TIMEOUT_S,
                max_size=MAX_PAYLOAD_BYTES,
                proxy=None,
                **kwargs,
            )
        except InvalidStatus as exc:
            raise _OpenFailure(self._upgrade_rejected(exc), verbose_line=False, cause=exc) from exc
        except ssl.SSLCertVerificationError as exc:
            # Node reports OpenSSL's verify message (``self-signed certificate``, …).
            message = exc.verify_message or str(exc)
            raise _OpenFailure(GatewayError(message), cause=exc) from exc
        except (InvalidHandshake, InvalidURI, ssl.SSLError, OSError, EOFError, ValueError) as exc:
            raise _OpenFailure(GatewayError(str(exc) or type(exc).__name__), cause=exc) from exc

    @staticmethod
    def _upgrade_rejected(exc: InvalidStatus) -> GatewayRequestError:
        response = exc.response
        raw = (response.body or b"")[:_UPGRADE_BODY_LIMIT]
        body = _JS_WHITESPACE_RUN.sub(" ", raw.decode("utf-8", errors="replace")).strip()
        status = response.status_code
        details: dict[str, Any] = {"reason": "websocket-upgrade-rejected", "httpStatus": status}
        location = response.headers.get("Location")
        if location:
            details["location"] = location
        message = f"gateway rejected websocket upgrade (HTTP {status})" + (f": {body}" if body else "")
        return GatewayRequestError(message, "UNAVAILABLE", details, True, None)

    def _check_pin(self, ws: ClientConnection, pin: str) -> None:
        ssl_object = ws.transport.get_extra_info("ssl_object")
        der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
        if not der:
            ws.transport.abort()
            raise _OpenFailure(GatewayError("gateway tls fingerprint unavailable"))
        if hashlib.sha256(der).hexdigest() != pin:
            ws.transport.abort()
            raise _OpenFailure(GatewayError("gateway tls fingerprint mismatch"))

    async def _dispose(self, ws: ClientConnection) -> None:
        """Close the socket if it is still open: code 1000, force-terminated after 250 ms."""
        with anyio.move_on_after(_STOP_GRACE_S):
            await ws.close(1000)
        ws.transport.abort()

    async def _close(self, ws: ClientConnection, code: int, reason: str) -> None:
        """Start the closing handshake; the reader reports the close."""
        await ws.close(code, reason)

    async def _read(self, ws: ClientConnection, attempt: _Attempt) -> tuple[int, str]:
        while True:
            try:
                data = await ws.recv()
            except ConnectionClosed as exc:
                return _close_info(exc)
            frame = parse_frame(data)
            if frame is None:
                continue
            self._last_activity = self._clock()
            if isinstance(frame, EventFrame):
                self._on_event_frame(attempt, frame)
                continue
            pending = self._pending.pop(frame.id, None)
            if pending is None:
                continue
            if frame.ok:
                pending.resolve(frame.payload)
            else:
                pending.reject(request_error(frame.error or {}))

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
        identity = self._identity
        assert identity is not None
        try:
            if challenge.ts is None:
                raise GatewayError("gateway connect challenge timestamp invalid")
            stored = await self._store.load_token(identity.device_id, _ROLE)
            auth = select_auth(
                self._settings,
                stored,
                pending_device_token_retry=self._pending_device_token_retry,
                trusted=self._trusted_endpoint,
            )
            try:
                params = build_connect_params(
                    self._settings,
                    identity,
                    auth,
                    challenge,
                    platform=self._platform,
                    device_family=self._device_family,
                    role=_ROLE,
                )
            except ValueError as exc:
                raise GatewayError(str(exc)) from exc
        except GatewayError as error:
            self._halted = True
            self._log(f"gateway connect failed: Error: {error}")
            self._notify_connect_error(error)
            return None
        if self._pending_device_token_retry and auth.device_token and auth.auth and "token" in auth.auth:
            self._pending_device_token_retry = False
        attempt.auth = auth
        attempt.stored_token = stored
        return params

    async def _connect_rejected(self, ws: ClientConnection, attempt: _Attempt, error: GatewayRequestError) -> None:
        attempt.failure = error
        detail_code = read_detail_code(error.details)
        auth = attempt.auth
        if auth is not None and auth.using_stored_device_token and detail_code == "AUTH_DEVICE_TOKEN_MISMATCH":
            await self._clear_stored_token()
        if should_retry_with_device_token(
            error,
            budget_used=self._device_token_budget_used,
            current_device_token=auth.device_token if auth is not None else None,
            explicit_token=self._settings.token,
            stored_token=attempt.stored_token,
            trusted=self._trusted_endpoint,
        ):
            self._pending_device_token_retry = True
            self._device_token_budget_used = True
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
        identity = self._identity
        assert identity is not None
        auth_info = hello.raw.get("auth")
        device_token = auth_info.get("deviceToken") if isinstance(auth_info, dict) else None
        if isinstance(auth_info, dict) and isinstance(device_token, str) and device_token:
            role = auth_info.get("role")
            token_role = role if isinstance(role, str) else _ROLE
            raw_scopes = auth_info.get("scopes")
            scopes = [s for s in raw_scopes if isinstance(s, str)] if isinstance(raw_scopes, list) else []
            try:
                await self._store.save_token(identity.device_id, token_role, device_token, scopes)
            except GatewayError as error:
                attempt.failure = error
                self._notify_connect_error(error)
                self._log(f"gateway device token persistence failed: Error: {error}")
                await self._close(ws, 1008, "connect failed")
                return
        self._pending_device_token_retry = False
        self._device_token_budget_used = False
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
            error = _closed_error(code, reason)
            self._notify_connect_error(error)
            self._log(f"gateway connect failed: Error: {error}")
        if (
            code == 1008
            and "device token mismatch" in reason.strip().lower()
            and not (self._settings.token or "").strip()
            and not (self._settings.password or "").strip()
        ):
            await self._clear_stored_token()
        details = failure.details if isinstance(failure, GatewayRequestError) else None
        if should_pause_reconnect(details, device_token_retry_pending=self._pending_device_token_retry):
            self._bridge_on_close(code, reason)
            return _Decision(retry=False)
        self._bridge_on_close(code, reason)
        minimum = 0
        if isinstance(failure, GatewayRequestError) and failure.retryable and failure.retry_after_ms:
            minimum = failure.retry_after_ms
        return _Decision(retry=True, minimum_ms=minimum)

    async def _clear_stored_token(self) -> None:
        identity = self._identity
        if identity is None or not isinstance(self._store, TokenClearingStore):
            return
        try:
            await self._store.clear_token(identity.device_id, _ROLE)
        except GatewayError as error:
            self._log(f"gateway client error: Error: failed clearing stale device-auth token: {error}")

    # --- requests -------------------------------------------------------------------------------------

    def _send(self, ws: ClientConnection, method: str, params: Any) -> Callable[[], Awaitable[Any]]:
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
        written = _write_text_now(ws, text)
        timeout_s = self._settings.request_timeout_ms / 1000

        async def answer() -> Any:
            try:
                if not written:
                    try:
                        await ws.send(text)
                    except ConnectionClosed as exc:
                        pending.reject(_closed_error(*_close_info(exc)))
                if not pending.settled:
                    with anyio.move_on_after(timeout_s):
                        await pending.done.wait()
                pending.reject(GatewayTimeout(f"gateway request timeout for {method}"))
            finally:
                if self._pending.get(frame_id) is pending:
                    del self._pending[frame_id]
            return pending.outcome()

        return answer

    def _flush(self, error: GatewayError) -> None:
        pending, self._pending = self._pending, {}
        self._counter = 0
        for entry in pending.values():
            entry.reject(error)


if TYPE_CHECKING:
    from application.ports.gateway import Gateway, GatewayConnection

    def _conforms(
        gateway: WebsocketsGateway, connection: WebsocketsGatewayConnection
    ) -> tuple[Gateway, GatewayConnection]:
        return gateway, connection
