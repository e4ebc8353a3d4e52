"""The OpenClaw Gateway port: what ``openclaw mcp serve`` needs from its Gateway connection
(spec gateway-protocol.md §1–§8, serve-bridge.md §2, §3.6).

Payloads cross the port as plain JSON data. The connection is a state machine (gateway-protocol §7.3):
only when ``ready`` (hello-ok received and ``sessions.subscribe`` succeeded) are bridge requests sent;
otherwise they fail at once with ``GatewayNotConnected``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "ConnectionState",
    "DeviceIdentity",
    "DeviceIdentityStore",
    "Gateway",
    "GatewayCallTarget",
    "GatewayCaller",
    "GatewayClosed",
    "GatewayConnection",
    "GatewayError",
    "GatewayEvent",
    "GatewayNotConnected",
    "GatewayRequestError",
    "GatewaySettings",
    "GatewayStopped",
    "GatewayTimeout",
    "GatewayUnreachable",
    "HelloInfo",
]


ConnectionState = Literal["disconnected", "connecting", "handshaking", "subscribing", "ready", "stopped"]


class GatewayError(ApplicationError):
    """Every failure the Gateway connection reports; ``str(exc)`` is the reference's message."""


class GatewayNotConnected(GatewayError):
    """``gateway not connected``: a request while the connection is not ready."""

    def __init__(self) -> None:
        super().__init__("gateway not connected")


class GatewayRequestError(GatewayError):
    """The Gateway answered ``ok: false`` (the reference's ``GatewayClientRequestError``)."""

    def __init__(
        self,
        message: str,
        code: str,
        details: dict[str, Any] | None = None,
        retryable: bool | None = None,
        retry_after_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.details = details
        self.retryable = retryable
        self.retry_after_ms = retry_after_ms


class GatewayClosed(GatewayError):
    """``gateway closed (<code>[ <meaning>]): <reason or "no close reason">`` for requests in flight when the
    socket closed."""


class GatewayTimeout(GatewayError):
    """``gateway request timeout for <method>``."""


class GatewayUnreachable(GatewayError):
    """The socket could not be opened; ``code`` is the errno name (``ECONNREFUSED``, ``ENOTFOUND``, …)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class GatewayStopped(GatewayError):
    """``gateway client stopped``: the connection was closed by us."""


@dataclass(frozen=True, slots=True)
class GatewayEvent:
    """One event frame: its name, payload (``UNDEFINED`` when the frame had none) and ``seq``."""

    event: str
    payload: Any = UNDEFINED
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class HelloInfo:
    """What the bridge keeps from ``hello-ok``."""

    methods: frozenset[str] = frozenset()
    events: frozenset[str] = frozenset()
    tick_interval_ms: int = 30_000
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GatewaySettings:
    """Where and how to connect (serve-bridge §2.1, §3.4–§3.5)."""

    url: str
    token: str | None = None
    password: str | None = None
    tls_fingerprint: str | None = None
    client_id: str = "cli"
    client_display_name: str = "OpenClaw MCP"
    client_version: str = "2026.9.6"
    client_mode: str = "cli"
    caps: tuple[str, ...] = ("approvals",)
    scopes: tuple[str, ...] = ("operator.read", "operator.write", "operator.approvals")
    request_timeout_ms: int = 180_000


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """The Ed25519 device identity the bridge signs ``connect`` with (PEM-encoded keys)."""

    device_id: str
    public_key_pem: str
    private_key_pem: str


class DeviceIdentityStore(Protocol):
    """Persists the device identity and the device tokens the Gateway issues (serve-bridge §3.6)."""

    async def load_or_create_identity(self) -> DeviceIdentity:
        """The stored identity, created (and stored) on first use. Raises ``GatewayError`` on failure."""
        ...

    async def load_token(self, device_id: str, role: str) -> str | None:
        """The stored device token for ``(device_id, role)``, or ``None``."""
        ...

    async def save_token(self, device_id: str, role: str, token: str, scopes: list[str]) -> None:
        """Replace the stored device token for ``(device_id, role)`` (scopes stored sorted)."""
        ...


class GatewayConnection(Protocol):
    """A Gateway client connection that reconnects by itself until closed."""

    @property
    def state(self) -> ConnectionState: ...

    async def wait_ready(self) -> HelloInfo:
        """Wait for the first readiness. Raises the start error (``GatewayError``) when the first connect
        fails for a reason that is not retried (serve-bridge §2.2)."""
        ...

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request when ready and return its payload. Raises ``GatewayNotConnected`` (not ready),
        ``GatewayRequestError`` (Gateway rejection), ``GatewayTimeout``, ``GatewayClosed``, ``GatewayStopped``."""
        ...

    def send_request(self, method: str, params: dict[str, Any] | None = None) -> Callable[[], Awaitable[Any]]:
        """:meth:`request` in two steps: send now, without waiting (the request is on its way when this
        returns), and return the function that awaits its payload. What ``request`` raises before sending
        (``GatewayStopped``, ``GatewayNotConnected``, an invalid request) is raised here; the rest (rejection,
        timeout, close) by the returned function, whose timeout starts when it is called."""
        ...


class Gateway(Protocol):
    """Opens Gateway connections."""

    def connect(
        self,
        settings: GatewaySettings,
        *,
        on_event: Callable[[GatewayEvent], None],
        log: Callable[[str], None],
    ) -> AbstractAsyncContextManager[GatewayConnection]:
        """Start connecting in the background and yield the connection at once (not yet ready). Events of a
        ready connection go to ``on_event`` in arrival order (``tick`` and ``connect.challenge`` are handled
        internally). ``log`` receives the client diagnostics of serve-bridge §11.3 (verbose ones included;
        the caller filters). Exiting stops the client: the socket is closed and pending requests fail with
        ``GatewayStopped``; no task is left running.
        """
        ...


@dataclass(frozen=True, slots=True)
class GatewayCallTarget:
    """Where a one-shot call goes and with which secret (openclaw-tools.md §6.3). ``device`` (and its stored
    ``device_token``) sign ``connect`` for targets that are not loopback-with-a-secret; else no ``device``."""

    url: str
    token: str | None = None
    password: str | None = None
    device: DeviceIdentity | None = None
    device_token: str | None = None


class GatewayCaller(Protocol):
    """One Gateway request over a fresh WebSocket (the reference's ``callGateway``), used by ``openclaw-tools``."""

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
        """Open a socket to ``target.url``, wait for ``connect.challenge``, send ``connect`` (client
        ``gateway-client``/``backend``, role ``operator``, ``scopes``), then ``method`` with ``params``; return
        its payload and close. The whole exchange is bounded by ``timeout_ms``.

        Raises :class:`GatewayUnreachable` (socket not opened), :class:`GatewayTimeout` (``gateway timeout
        after <ms>ms``), :class:`GatewayRequestError` (``connect`` or the request rejected; a rejected
        ``connect`` is also logged as ``gateway connect failed: GatewayClientRequestError: <message>``),
        :class:`GatewayClosed` (closed before the answer). Cancellation closes the socket."""
        ...
