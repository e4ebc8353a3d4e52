"""One Gateway request over a fresh WebSocket (the reference's ``callGateway``; spec openclaw-tools.md §6.3,
gateway-protocol.md §1–§3).

The exchange, all of it under one deadline of ``timeout_ms``: open the socket, wait for
``connect.challenge``, send ``connect`` (id ``1:<uuid>``; client ``gateway-client``/``backend``, a fresh
``instanceId``, no ``caps``), wait for its answer, send the request (id ``2:<uuid>``), wait for its answer,
close (1000). Inbound frames that are not the awaited ones (garbage, events, answers to other ids) are
ignored. Whatever happens, the socket is closed before :meth:`WebsocketsGatewayCaller.call` returns or
raises, cancellation included.

Not modelled (the callers bound the call by their own ``timeoutMs``): the client's separate 15 s challenge
and ``connect`` timeouts, and its one silent reconnect after a clean pre-``hello-ok`` close.
"""

from __future__ import annotations

import errno
import re
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from openclaw_mcp.adapters.ws._frames import (
    EventFrame,
    ResponseFrame,
    encode_request,
    parse_frame,
    read_detail_code,
    request_error,
    request_id,
)
from openclaw_mcp.adapters.ws._handshake import (
    Challenge,
    build_connect_params,
    is_trusted_device_retry_endpoint,
    parse_challenge,
    platform_identity,
    select_auth,
)
from openclaw_mcp.adapters.ws._socket import OpenFailure, close_info, dispose, open_socket
from openclaw_mcp.application.ports.gateway import (
    GatewayCaller,
    GatewayCallTarget,
    GatewayClosed,
    GatewayError,
    GatewayRequestError,
    GatewaySettings,
    GatewayTimeout,
    GatewayUnreachable,
)

__all__ = ["WebsocketsGatewayCaller"]

CLIENT_ID = "gateway-client"
CLIENT_MODE = "backend"
CLIENT_DISPLAY_NAME = "agent"
CLIENT_VERSION = "2026.9.6"
_ROLE = "operator"
_OPEN_TIMEOUT_SLACK_MS = 1_000
"""The socket open timeout is the call's deadline plus this, so the deadline (``GatewayTimeout``) fires first."""
_CODE_IN_MESSAGE = re.compile(r"^(?:connect|getaddrinfo) ([A-Z][A-Z0-9_]*)\b")


def _close_hint(code: int) -> str:
    if code == 1006:
        return " abnormal closure (no close frame)"
    if code == 1000:
        return " normal closure"
    return ""


def _closed(exc: ConnectionClosed) -> GatewayClosed:
    """The first line of the reference's close error: ``gateway closed (<code>[ <hint>]): <reason>``."""
    code, reason = close_info(exc)
    text = reason.strip() or "no close reason"
    return GatewayClosed(f"gateway closed ({code}{_close_hint(code)}): {text}")


def _unreachable(failure: OpenFailure) -> GatewayError:
    """The port error for a socket that could not be opened (an HTTP upgrade rejection stays the
    ``GatewayRequestError`` the opener made of it)."""
    error = failure.error
    if isinstance(error, GatewayRequestError):
        return error
    message = str(error)
    match = _CODE_IN_MESSAGE.match(message)
    cause = error.__cause__
    if match is not None:
        code = match.group(1)
    elif isinstance(cause, ConnectionRefusedError):
        code = "ECONNREFUSED"
    elif isinstance(cause, OSError) and cause.errno is not None:
        code = errno.errorcode.get(cause.errno, "ECONNRESET")
    else:
        code = "ECONNRESET"
    return GatewayUnreachable(message, code)


class WebsocketsGatewayCaller:
    """The ``GatewayCaller`` port over ``websockets``: one socket per call.

    ``platform`` is ``(client.platform, client.deviceFamily)`` (default: this host's, e.g. ``linux``/``Linux``);
    ``new_instance_id`` makes each call's ``client.instanceId`` (default: a fresh UUID4).
    """

    def __init__(
        self,
        *,
        platform: tuple[str, str | None] | None = None,
        new_instance_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        self._platform, self._device_family = platform if platform is not None else platform_identity()
        self._new_instance_id = new_instance_id

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
        with anyio.move_on_after(max(timeout_ms, 0) / 1000):
            return await self._exchange(target, method, params, tuple(scopes), timeout_ms, log)
        raise GatewayTimeout(f"gateway timeout after {timeout_ms}ms")

    async def _exchange(
        self,
        target: GatewayCallTarget,
        method: str,
        params: dict[str, Any],
        scopes: tuple[str, ...],
        timeout_ms: int,
        log: Callable[[str], None],
    ) -> Any:
        try:
            ws = await open_socket(target.url, None, max(timeout_ms, 0) + _OPEN_TIMEOUT_SLACK_MS)
        except OpenFailure as failure:
            raise _unreachable(failure) from (failure.error.__cause__ or failure.error)
        try:
            try:
                challenge = await _wait_challenge(ws)
                if not challenge.nonce:
                    with anyio.move_on_after(0.25):
                        await ws.close(1008, "connect challenge missing nonce")
                    raise GatewayError("gateway connect challenge missing nonce")
                connect_params = self._connect_params(target, scopes, challenge)
                try:
                    await _request(ws, request_id(1), "connect", connect_params)
                except GatewayRequestError as error:
                    if read_detail_code(error.details) != "AUTH_RATE_LIMITED":
                        log(f"gateway connect failed: GatewayClientRequestError: {error}")
                    with anyio.move_on_after(0.25):
                        await ws.close(1008, "connect failed")
                    raise
                return await _request(ws, request_id(2), method, params)
            except ConnectionClosed as exc:
                raise _closed(exc) from exc
        finally:
            with anyio.CancelScope(shield=True):
                await dispose(ws)

    def _connect_params(
        self, target: GatewayCallTarget, scopes: tuple[str, ...], challenge: Challenge
    ) -> dict[str, Any]:
        if target.device is not None and challenge.ts is None:
            raise GatewayError("gateway connect challenge timestamp invalid")
        settings = GatewaySettings(
            url=target.url,
            token=target.token,
            password=target.password,
            client_id=CLIENT_ID,
            client_display_name=CLIENT_DISPLAY_NAME,
            client_version=CLIENT_VERSION,
            client_mode=CLIENT_MODE,
            caps=(),
            scopes=scopes,
        )
        stored = target.device_token if target.device is not None else None
        auth = select_auth(
            settings,
            stored,
            pending_device_token_retry=False,
            trusted=is_trusted_device_retry_endpoint(target.url, None),
        )
        try:
            return build_connect_params(
                settings,
                target.device,
                auth,
                challenge,
                platform=self._platform,
                device_family=self._device_family,
                role=_ROLE,
                instance_id=self._new_instance_id(),
            )
        except ValueError as exc:
            raise GatewayError(str(exc)) from exc


async def _wait_challenge(ws: ClientConnection) -> Challenge:
    """The first ``connect.challenge``; every other inbound frame is ignored. Raises ``ConnectionClosed``."""
    while True:
        frame = parse_frame(await ws.recv())
        if isinstance(frame, EventFrame) and frame.event == "connect.challenge":
            return parse_challenge(frame.payload)


async def _request(ws: ClientConnection, frame_id: str, method: str, params: Any) -> Any:
    """Send one request and return its payload; raises ``GatewayRequestError`` for ``ok: false`` and
    ``ConnectionClosed``. Frames other than its answer are ignored."""
    try:
        text = encode_request(frame_id, method, params)
    except (TypeError, ValueError) as exc:
        raise GatewayError(f"invalid request params for {method}: {exc}") from exc
    await ws.send(text)
    while True:
        frame = parse_frame(await ws.recv())
        if not isinstance(frame, ResponseFrame) or frame.id != frame_id:
            continue
        if frame.ok:
            return frame.payload
        raise request_error(frame.error or {})


if TYPE_CHECKING:
    _: GatewayCaller = WebsocketsGatewayCaller()
