"""Error texts of the HTTP transports, worded like the reference (Node 24 ``fetch`` + MCP TS SDK 1.30.0).

The runtime renders a connection error as ``str(exc)`` followed by its ``__cause__`` chain (each cause's
message unless already contained, then its string/number ``code``; client-runtime §4.12). The chains built
here are therefore *designed*: ``fetch failed`` caused by a ``DiagnosticCause`` (shared with the other
SDK-backed connectors, ``adapters.mcp_sdk.errors``) such as ``connect ECONNREFUSED 127.0.0.1:4`` with code
``ECONNREFUSED``. Library exceptions (httpx2, ssl, OSError)
are deliberately not chained: their texts differ from the reference and httpx2's carry URLs, which may
hold credentials (§4.12: messages never contain secrets).
"""

from __future__ import annotations

import ast
import errno
import re
import socket
import ssl
from collections.abc import Iterator
from typing import Final

import httpx2

from openclaw_mcp.adapters.mcp_sdk.errors import DiagnosticCause
from openclaw_mcp.application.ports.mcp import McpError, McpRequestError, McpSessionExpired

__all__ = [
    "FETCH_FAILED",
    "MAX_HTTP_BYTES",
    "BodyTooLarge",
    "EventTooLarge",
    "HttpPolicyError",
    "PostRpcError",
    "fetch_cause",
    "fetch_error",
    "post_status_error",
    "sse_connect_message",
]

MAX_HTTP_BYTES: Final = 10_485_760
FETCH_FAILED: Final = "fetch failed"
RESPONSE_TOO_LARGE_CODE: Final = "MCP_HTTP_RESPONSE_TOO_LARGE"

# Node appends this hint to the verification errors a locally installed root CA could fix.
_SYSTEM_CA_HINT: Final = "; if the root CA is installed locally, try running Node.js with --use-system-ca"
# OpenSSL verify result → Node's error code (and whether Node adds the system-CA hint).
_VERIFY_CODES: Final[dict[int, tuple[str, bool]]] = {
    2: ("UNABLE_TO_GET_ISSUER_CERT", False),
    9: ("CERT_NOT_YET_VALID", False),
    10: ("CERT_HAS_EXPIRED", False),
    18: ("DEPTH_ZERO_SELF_SIGNED_CERT", True),
    19: ("SELF_SIGNED_CERT_IN_CHAIN", False),
    20: ("UNABLE_TO_GET_ISSUER_CERT_LOCALLY", True),
    21: ("UNABLE_TO_VERIFY_LEAF_SIGNATURE", True),
}
_HOSTNAME_MISMATCH: Final = 62
_CONNECT_CALL_FAILED = re.compile(r"Connect call failed (\(.*\))")
_SSL_REASON = re.compile(r"^\[[^\]]*\]\s*(.*?)(?:\s*\(_ssl\.c:\d+\))?$")


class HttpPolicyError(Exception):
    """The fetch guard refused a request (SSRF policy, redirect limits); ``str`` is the reference text."""


class BodyTooLarge(httpx2.StreamError):
    """A (non event-stream) response body passed ``MAX_HTTP_BYTES`` while being read.

    A ``StreamError`` so the SDK's JSON-response path turns it into an error for that one request
    instead of failing its whole transport."""

    code = RESPONSE_TOO_LARGE_CODE

    def __init__(self) -> None:
        super().__init__(f"MCP HTTP response exceeds {MAX_HTTP_BYTES} bytes")


class EventTooLarge(Exception):
    """One server-sent event passed ``MAX_HTTP_BYTES``; the connection is closed."""

    code = RESPONSE_TOO_LARGE_CODE

    def __init__(self) -> None:
        super().__init__(f"MCP SSE event exceeds {MAX_HTTP_BYTES} bytes")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup) and current.exceptions:
            current = current.exceptions[0]
        else:
            current = current.__cause__ or current.__context__


def _host_port(url: httpx2.URL | None) -> tuple[str, int | None]:
    if url is None:
        return "", None
    port = url.port
    if port is None:
        port = 443 if url.scheme == "https" else 80
    return url.host, port


def _connect_address(exc: OSError, url: httpx2.URL | None) -> str:
    match = _CONNECT_CALL_FAILED.search(str(exc))
    if match is not None:
        try:
            address = ast.literal_eval(match.group(1))
        except (ValueError, SyntaxError):
            address = None
        if isinstance(address, tuple) and len(address) >= 2:
            return f"{address[0]}:{address[1]}"
    host, port = _host_port(url)
    return f"{host}:{port}"


def _verify_cause(exc: ssl.SSLCertVerificationError, url: httpx2.URL | None) -> DiagnosticCause:
    verify_code = exc.verify_code
    message = exc.verify_message or exc.reason or str(exc)
    if verify_code == _HOSTNAME_MISMATCH:
        host, _ = _host_port(url)
        return DiagnosticCause(
            f"Hostname/IP does not match certificate's altnames: {host}", "ERR_TLS_CERT_ALTNAME_INVALID"
        )
    known = _VERIFY_CODES.get(verify_code)
    if known is None:
        return DiagnosticCause(message)
    code, hint = known
    return DiagnosticCause(message + (_SYSTEM_CA_HINT if hint else ""), code)


def _ssl_cause(exc: ssl.SSLError) -> DiagnosticCause:
    match = _SSL_REASON.match(str(exc))
    text = match.group(1) if match is not None and match.group(1) else (exc.reason or str(exc))
    code = f"ERR_SSL_{exc.reason}" if exc.reason else None
    return DiagnosticCause(text, code)


def fetch_cause(exc: BaseException, url: httpx2.URL | None) -> DiagnosticCause:
    """The cause Node's ``TypeError: fetch failed`` would carry for the transport failure ``exc``."""
    links = list(_chain(exc))
    for link in links:
        if isinstance(link, ssl.SSLCertVerificationError):
            return _verify_cause(link, url)
    for link in links:
        if isinstance(link, socket.gaierror):
            host, _ = _host_port(url)
            name = "EAI_AGAIN" if link.errno == socket.EAI_AGAIN else "ENOTFOUND"
            return DiagnosticCause(f"getaddrinfo {name} {host}", name)
    if any(isinstance(link, httpx2.ConnectTimeout) for link in links):
        return DiagnosticCause("Connect Timeout Error", "UND_ERR_CONNECT_TIMEOUT")
    if any(isinstance(link, httpx2.ReadTimeout) for link in links):
        return DiagnosticCause("Body Timeout Error", "UND_ERR_BODY_TIMEOUT")
    connecting = any(isinstance(link, httpx2.ConnectError) for link in links)
    for link in links:
        if isinstance(link, ssl.SSLError) and link.reason not in (None, "EOF", "UNEXPECTED_EOF_WHILE_READING"):
            return _ssl_cause(link)
        if isinstance(link, OSError) and isinstance(link.errno, int) and link.errno in errno.errorcode:
            name = errno.errorcode[link.errno]
            if connecting:
                return DiagnosticCause(f"connect {name} {_connect_address(link, url)}", name)
            if link.errno in (errno.ECONNRESET, errno.EPIPE):
                break
            return DiagnosticCause(f"read {name}", name)
    if any(isinstance(link, httpx2.ReadError | httpx2.WriteError | httpx2.RemoteProtocolError) for link in links):
        return DiagnosticCause("other side closed", "UND_ERR_SOCKET")
    text = str(exc) or type(exc).__name__
    return DiagnosticCause(text)


def fetch_error(exc: BaseException, url: httpx2.URL | None) -> McpError:
    """The error a failed ``fetch`` raises in the reference: a policy refusal as itself, a response body
    over the cap as ``MCP HTTP response exceeds 10485760 bytes``, anything else as ``fetch failed``."""
    if isinstance(exc, McpError):
        return exc
    if isinstance(exc, HttpPolicyError | BodyTooLarge | EventTooLarge):
        return McpError(str(exc))
    error = McpError(FETCH_FAILED)
    error.__cause__ = fetch_cause(exc, url)
    return error


def sse_connect_message(exc: BaseException, url: httpx2.URL | None) -> str:
    """The SSE transport's start failure (``SseError``; the event-source flattens ``fetch failed`` and
    its cause into one message)."""
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"SSE error: Non-200 status code ({exc.response.status_code})"
    if isinstance(exc, httpx2.SSEError) and "content type" in str(exc):
        return 'SSE error: Invalid content type, expected "text/event-stream"'
    if isinstance(exc, HttpPolicyError | BodyTooLarge | EventTooLarge | httpx2.SSEError):
        return f"SSE error: {exc}"
    return f"SSE error: TypeError: {FETCH_FAILED}: {fetch_cause(exc, url).message}"


class PostRpcError(McpRequestError):
    """A message ``POST`` answered with HTTP ``http_status`` >= 400 and a JSON-RPC error body that the request's
    era lets through as a JSON-RPC error (spec protocol-eras §3.1 step 2): the answer to a 2026-07-28 request,
    or a refused ``initialize`` that identifies a 2026 server."""

    def __init__(self, code: int, message: str, data: object, http_status: int) -> None:
        super().__init__(code, message, data)
        self.http_status = http_status


def post_status_error(transport_type: str, status: int, body: str, *, had_session: bool) -> McpError:
    """The error for a message ``POST`` answered with HTTP ``status`` >= 400 (response text ``body``).

    Streamable HTTP: ``Streamable HTTP error: Error POSTing to endpoint: <body>``, an expired session when
    the status is 404 and the request carried a session id. SSE: ``Error POSTing to endpoint (HTTP <status>):
    <body>``, an expired session for any 404.
    """
    if transport_type == "streamable-http":
        text = f"Streamable HTTP error: Error POSTing to endpoint: {body}"
        return McpSessionExpired(text) if status == 404 and had_session else McpError(text)
    text = f"Error POSTing to endpoint (HTTP {status}): {body}"
    return McpSessionExpired(text) if status == 404 else McpError(text)
