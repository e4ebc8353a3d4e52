"""Opening and closing one Gateway WebSocket: URL checks, TCP connect per resolved address, TLS (with an
optional certificate pin), the ``websockets`` upgrade, and the errors worded as Node's ``ws`` words them."""

from __future__ import annotations

import asyncio
import errno
import hashlib
import re
import socket
import ssl
import urllib.parse
from typing import Any

import anyio
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as _ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.protocol import State

from openclaw_mcp.adapters.ws._frames import MAX_PAYLOAD_BYTES
from openclaw_mcp.application.ports.gateway import GatewayClosed, GatewayError, GatewayRequestError

__all__ = ["OpenFailure", "close_info", "closed_error", "dispose", "open_socket", "write_text_now"]

_STOP_GRACE_S = 0.25
_CLOSE_TIMEOUT_S = 1.0
_UPGRADE_BODY_LIMIT = 2048
_JS_WHITESPACE_RUN = re.compile(r"[\s\ufeff]+")


class OpenFailure(Exception):
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


def write_text_now(ws: ClientConnection, text: str) -> bool:
    """Write one text frame without waiting, through the connection's Sans-I/O protocol, when the socket is
    open (a full write buffer just buffers more); ``False`` (nothing written) otherwise."""
    if ws.protocol.state is not State.OPEN:
        return False
    ws.protocol.send_text(text.encode())
    for data in ws.protocol.data_to_send():
        if data:
            ws.transport.write(data)
    return True


def close_info(exc: ConnectionClosed) -> tuple[int, str]:
    """The close code and reason as Node's ``ws`` reports them: the peer's close frame; when we closed and
    the peer did not answer (``websockets`` fails a connection without waiting, e.g. 1009 for an oversized
    message) the frame we sent, which a peer echoes; else 1006."""
    if exc.rcvd is not None:
        return exc.rcvd.code, exc.rcvd.reason
    if exc.sent is not None:
        return exc.sent.code, exc.sent.reason
    return 1006, ""


def closed_error(code: int, reason: str) -> GatewayClosed:
    """The error pending requests fail with when the socket closed."""
    return GatewayClosed(f"gateway closed ({code}): {reason}")


async def dispose(ws: ClientConnection) -> None:
    """Close the socket if it is still open: code 1000, force-terminated after 250 ms."""
    with anyio.move_on_after(_STOP_GRACE_S):
        await ws.close(1000)
    ws.transport.abort()


class _NoRedirectConnect(_ws_connect):
    """``websockets.connect`` that reports redirects as upgrade rejections (Node ``ws`` does not follow)."""

    def process_redirect(self, exc: Exception) -> Exception | str:
        return exc


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


async def open_socket(url: str, tls_fingerprint: str | None, open_timeout_ms: int) -> ClientConnection:
    """An open WebSocket to the Gateway at ``url``; raises :class:`OpenFailure`."""
    try:
        parts = urllib.parse.urlsplit(url)
        scheme = {"https": "wss", "http": "ws"}.get(parts.scheme.lower(), parts.scheme.lower())
        host = parts.hostname
        port = parts.port or (443 if scheme == "wss" else 80)
    except ValueError as exc:
        raise OpenFailure(GatewayError(f"Invalid URL: {url}"), verbose_line=False, fatal=True, cause=exc) from exc
    if scheme not in ("ws", "wss") or not host:
        raise OpenFailure(GatewayError(f"Invalid URL: {url}"), verbose_line=False, fatal=True)
    ws_url = urllib.parse.urlunsplit((scheme, parts.netloc, parts.path, parts.query, ""))
    pin = None
    if tls_fingerprint:
        if scheme != "wss":
            error = GatewayError("gateway tls fingerprint requires wss:// gateway url")
            raise OpenFailure(error, verbose_line=False, fatal=True)
        pin = _normalize_fingerprint(tls_fingerprint)
        if not pin:
            error = GatewayError("gateway tls fingerprint must be a SHA-256 fingerprint")
            raise OpenFailure(error, verbose_line=False, fatal=True)
    trying: list[Any] = []
    ws: ClientConnection | None = None
    with anyio.move_on_after(open_timeout_ms / 1000):
        sock = await _open_tcp(host, port, trying)
        try:
            ws = await _upgrade(ws_url, sock, host, secure=scheme == "wss", pinned=pin is not None)
        except BaseException:
            sock.close()
            raise
    if ws is None:
        # The open timeout: Node reports ``connect ETIMEDOUT <ip>:<port>`` while the TCP connect is pending.
        if trying:
            raise OpenFailure(GatewayError(f"connect ETIMEDOUT {_node_address(trying[-1])}"))
        raise OpenFailure(GatewayError("Opening handshake has timed out"))
    if pin is not None:
        _check_pin(ws, pin)
    return ws


async def _open_tcp(host: str, port: int, trying: list[Any]) -> socket.socket:
    """A connected TCP socket (each resolved address in turn); ``trying`` holds the address being tried
    while a connect is pending."""
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        code = "EAI_AGAIN" if getattr(exc, "errno", None) == socket.EAI_AGAIN else "ENOTFOUND"
        raise OpenFailure(GatewayError(f"getaddrinfo {code} {host}"), cause=exc) from exc
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
    raise OpenFailure(GatewayError(f"connect {_errno_name(error)} {_node_address(address)}"), cause=error) from error


async def _upgrade(ws_url: str, sock: socket.socket, host: str, *, secure: bool, pinned: bool) -> ClientConnection:
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
        raise OpenFailure(_upgrade_rejected(exc), verbose_line=False, cause=exc) from exc
    except ssl.SSLCertVerificationError as exc:
        # Node reports OpenSSL's verify message (``self-signed certificate``, …).
        message = exc.verify_message or str(exc)
        raise OpenFailure(GatewayError(message), cause=exc) from exc
    except (InvalidHandshake, InvalidURI, ssl.SSLError, OSError, EOFError, ValueError) as exc:
        raise OpenFailure(GatewayError(str(exc) or type(exc).__name__), cause=exc) from exc


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


def _check_pin(ws: ClientConnection, pin: str) -> None:
    ssl_object = ws.transport.get_extra_info("ssl_object")
    der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
    if not der:
        ws.transport.abort()
        raise OpenFailure(GatewayError("gateway tls fingerprint unavailable"))
    if hashlib.sha256(der).hexdigest() != pin:
        ws.transport.abort()
        raise OpenFailure(GatewayError("gateway tls fingerprint mismatch"))
