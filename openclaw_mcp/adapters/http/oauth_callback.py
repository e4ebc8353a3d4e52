"""The loopback OAuth callback listener of ``openclaw mcp login`` (spec cli-registry §7.8.2).

    async with oauth_callback_listener(redirect_url, state) as listener:   # bound (or OAuthCallbackError)
        result = await listener.wait()                                     # code, oauth_error, or timeout

A minimal HTTP/1.1 server on the redirect URL's loopback address(es) and port that answers exactly one
callback: every response is ``text/plain; charset=utf-8`` with the reference's security headers and
``Connection: close``. Only ``http:`` redirect URLs on ``localhost``/``127.0.0.1``/``::1`` are accepted;
``localhost`` must resolve to loopback addresses only, and all of them are bound (all or nothing).

A request Node's HTTP parser would reject (no known method, an unsupported version, control characters in
the target, a head over 16 KiB) gets Node's bare answer (``400 Bad Request``/``431``, ``Connection: close``)
and the listener keeps waiting, like the reference. Decision where the reference is weaker: a target
``new URL`` cannot parse (``//[``) makes the reference answer ``500`` and abort the login; here it is a
``400`` too — no single request from another local process can end the wait. Targets are read as the
reference reads them (``new URL(target, origin)``, ``searchParams``), with the WHATWG parser.
"""

from __future__ import annotations

import errno
import ipaddress
import re
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlsplit

import anyio
import anyio.abc
from anyio.streams.stapled import MultiListener

from openclaw_mcp.application.ports.oauth import OAuthCallbackError
from openclaw_mcp.jscompat.urlencoded import search_params
from openclaw_mcp.jscompat.urls import Url, parse_url

__all__ = [
    "CALLBACK_TIMEOUT_S",
    "CallbackResult",
    "OAuthCallbackError",
    "OAuthCallbackListener",
    "oauth_callback_listener",
]

CALLBACK_TIMEOUT_S: Final = 300.0
"""How long the CLI waits for the browser (300 000 ms)."""

_MAX_HEAD_BYTES: Final = 16_384
# Node's clientError answers: the parser rejected the request (the socket is then closed).
_BAD_REQUEST: Final = b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"
_HEAD_TOO_LARGE: Final = b"HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n"
# The methods llhttp knows (anything else is a parse error).
_METHODS: Final = frozenset(
    (
        *("DELETE", "GET", "HEAD", "POST", "PUT", "CONNECT", "OPTIONS", "TRACE", "COPY", "LOCK", "MKCOL", "MOVE"),
        *("PROPFIND", "PROPPATCH", "SEARCH", "UNLOCK", "BIND", "REBIND", "UNBIND", "ACL", "REPORT", "MKACTIVITY"),
        *("CHECKOUT", "MERGE", "M-SEARCH", "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE", "PATCH", "PURGE", "MKCALENDAR"),
        *("LINK", "UNLINK", "SOURCE", "QUERY"),
    )
)
_VERSION = re.compile(r"HTTP/1\.[01]")
_TARGET = re.compile(r"[\x21-\x7e\x80-\xff]+")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_READ_TIMEOUT_S: Final = 10.0
_HEADERS: Final = (
    ("Cache-Control", "no-store"),
    ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Content-Type-Options", "nosniff"),
)
_REASONS: Final = {
    200: "OK",
    204: "No Content",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
}
# Node's ``listen`` error texts: ``listen <CODE>: <text> <address>:<port>``.
_LISTEN_ERRORS: Final = {
    errno.EADDRINUSE: ("EADDRINUSE", "address already in use"),
    errno.EACCES: ("EACCES", "permission denied"),
    errno.EADDRNOTAVAIL: ("EADDRNOTAVAIL", "address not available"),
}


@dataclass(frozen=True, slots=True)
class CallbackResult:
    """What the browser brought back: ``authorization_code`` (``code`` trimmed, ``state``) or
    ``oauth_error`` (``error``, ``error_description``)."""

    type: Literal["authorization_code", "oauth_error"]
    code: str | None = None
    state: str | None = None
    error: str | None = None
    error_description: str | None = None


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback and (address == "::1" or "." in address)
    except ValueError:
        return False


async def _bind_addresses(hostname: str) -> list[str]:
    if hostname in ("127.0.0.1", "::1"):
        return [hostname]
    infos = await anyio.getaddrinfo("localhost", None, type=socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses or not all(_loopback(address) for address in addresses):
        raise OAuthCallbackError("localhost did not resolve exclusively to loopback addresses")
    return addresses


def _listen_error(exc: OSError, address: str, port: int) -> OAuthCallbackError:
    code, text = _LISTEN_ERRORS.get(exc.errno or 0, (errno.errorcode.get(exc.errno or 0, "EUNKNOWN"), exc.strerror))
    return OAuthCallbackError(f"listen {code}: {text or 'unknown error'} {address}:{port}")


class _Malformed(Exception):
    """The request is one Node's parser (or ``new URL``) rejects: answered with the bare ``400``."""


def _request_line(head: bytes) -> tuple[str, str]:
    """Method and target of the request head, as llhttp accepts them (else :class:`_Malformed`)."""
    line = head.split(b"\n", 1)[0].removesuffix(b"\r").decode("latin-1")
    parts = line.split(" ")
    if len(parts) == 3 and _VERSION.fullmatch(parts[2]) is None:
        raise _Malformed
    if len(parts) not in (2, 3) or parts[0] not in _METHODS or _TARGET.fullmatch(parts[1]) is None:
        raise _Malformed
    return parts[0], parts[1]


def _target_url(target: str) -> Url:
    """``new URL(target, "http://127.0.0.1")`` for the request targets a browser or client may send."""
    if target.startswith("//"):
        url = parse_url("http:" + target)
    elif target.startswith("/"):
        url = parse_url("http://127.0.0.1" + target)
    elif _SCHEME.match(target):
        url = parse_url(target)
    else:
        url = parse_url("http://127.0.0.1/" + target)
    if url is None:
        raise _Malformed
    return url


class OAuthCallbackListener:
    """The bound listener; :meth:`wait` returns the one callback result."""

    def __init__(self, path: str, expected_state: str, deadline: float) -> None:
        self._path = path
        self._expected_state = expected_state
        self._deadline = deadline
        self._settled = anyio.Event()
        self._result: CallbackResult | None = None
        self._error: str | None = None

    @property
    def settled(self) -> bool:
        return self._settled.is_set()

    def _settle(self, result: CallbackResult | None, error: str | None = None) -> None:
        if self._settled.is_set():
            return
        self._result, self._error = result, error
        self._settled.set()

    async def wait(self) -> CallbackResult:
        """The callback result; ``OAuthCallbackError("OAuth callback timeout")`` once the 300 s are over."""
        with anyio.move_on_after(max(0.0, self._deadline - anyio.current_time())):
            await self._settled.wait()
        if not self._settled.is_set():
            self._settle(None, "OAuth callback timeout")
        if self._result is None:
            raise OAuthCallbackError(self._error or "OAuth callback failed")
        return self._result

    def cancel(self) -> None:
        self._settle(None, "OAuth callback cancelled")

    def route(self, method: str, target: str) -> tuple[int, str, tuple[tuple[str, str], ...]]:
        """Status, body and extra headers for one request (and settle the result when it is the callback).
        Raises :class:`_Malformed` for a target ``new URL`` cannot parse."""
        if self._settled.is_set():
            return 409, "OAuth callback was already received.", ()
        if method == "OPTIONS":
            return 204, "", ()
        url = _target_url(target)
        if url.pathname != self._path:
            return 404, "Callback route not found.", ()
        if method != "GET":
            return 405, "Method not allowed.", (("Allow", "GET, OPTIONS"),)
        values: dict[str, str] = {}
        for name, value in search_params(url.query or ""):
            values.setdefault(name, value)
        if values.get("state") != self._expected_state:
            return 400, "Invalid OAuth state.", ()
        if "error" in values:
            description = values.get("error_description") or None
            self._settle(CallbackResult("oauth_error", error=values["error"], error_description=description))
            return 400, "Authorization was not completed.", ()
        code = (values.get("code") or "").strip()
        if not code:
            return 400, "Missing OAuth authorization code.", ()
        self._settle(CallbackResult("authorization_code", code=code, state=self._expected_state))
        return 200, "Authorization received; return to the terminal while OpenClaw finishes.", ()

    async def handle(self, stream: anyio.abc.ByteStream) -> None:
        async with stream:
            try:
                head = b""
                with anyio.fail_after(_READ_TIMEOUT_S):
                    while b"\r\n\r\n" not in head and b"\n\n" not in head:
                        if len(head) > _MAX_HEAD_BYTES:
                            await stream.send(_HEAD_TOO_LARGE)
                            return
                        head += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, TimeoutError, OSError):
                return
            try:
                method, target = _request_line(head)
                status, body, extra = self.route(method, target)
            except Exception:  # _Malformed, or anything else a hostile request provokes: never ends the wait
                try:
                    await stream.send(_BAD_REQUEST)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    pass
                return
            payload = body.encode("utf-8")
            lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'OK')}"]
            lines += [f"{name}: {value}" for name, value in _HEADERS + extra]
            if status != 204:
                lines.append("Content-Type: text/plain; charset=utf-8")
                lines.append(f"Content-Length: {len(payload)}")
            lines.append("Connection: close")
            try:
                await stream.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                pass


@asynccontextmanager
async def oauth_callback_listener(
    redirect_url: str, expected_state: str, *, timeout_s: float = CALLBACK_TIMEOUT_S
) -> AsyncIterator[OAuthCallbackListener]:
    """Bind the callback listener of ``redirect_url`` (raises :class:`OAuthCallbackError` when it cannot),
    serve until the block exits, then close it."""
    try:
        parts = urlsplit(redirect_url)
        hostname = parts.hostname or ""
        port_text = parts.port
    except ValueError:
        raise OAuthCallbackError("OAuth callback redirect must use a valid TCP port") from None
    if parts.scheme != "http" or hostname not in ("localhost", "127.0.0.1", "::1"):
        raise OAuthCallbackError("OAuth callback redirect must use HTTP on a loopback address")
    if not expected_state or timeout_s <= 0:
        raise OAuthCallbackError("OAuth callback requires state and a positive timeout")
    addresses = await _bind_addresses(hostname)
    port = port_text if port_text is not None else 80
    if not 0 < port <= 65535:
        raise OAuthCallbackError("OAuth callback redirect must use a valid TCP port")
    listeners: list[anyio.abc.Listener[anyio.abc.SocketStream]] = []
    try:
        for address in addresses:
            try:
                listeners.append(await anyio.create_tcp_listener(local_host=address, local_port=port))
            except OSError as exc:
                raise _listen_error(exc, address, port) from None
    except BaseException:
        with anyio.CancelScope(shield=True):
            for listener in listeners:
                await listener.aclose()
        raise
    callback = OAuthCallbackListener(parts.path or "/", expected_state, anyio.current_time() + timeout_s)
    multi = MultiListener(listeners)
    body_error: BaseException | None = None
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(multi.serve, callback.handle)
            try:
                yield callback
            except BaseException as exc:
                # Re-raised below, outside the task group, so callers see it unchanged (not grouped).
                body_error = exc
            finally:
                callback.cancel()
                tg.cancel_scope.cancel()
        if body_error is not None:
            try:
                raise body_error
            finally:
                body_error = None
    finally:
        with anyio.CancelScope(shield=True):
            await multi.aclose()
