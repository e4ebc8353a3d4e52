"""The OAuth wire protocol of one MCP server (spec cli-registry §7.8.1, §7.9), over ``httpx2`` with the MCP
SDK's OAuth client helpers: discovery URL builders, the registration request/response handling, PKCE
parameters, the metadata/token/client schemas and the RFC 8707 resource checks.

What the reference's SDK (TypeScript 1.30) does differently from the Python SDK is kept as the reference
does it: the ``MCP-Protocol-Version: 2025-11-25`` discovery header, the authorization URL parameter order
and ``URLSearchParams`` encoding, the token request parameter order and client authentication choice, and
stored documents in the reference's schema order (unknown client/token fields dropped).

HTTP: every request goes through the HTTP transport's guarded fetch (``_client.GuardedFetch``, as the
reference routes OAuth through its ``mcp-http`` fetch guard): the server's TLS settings (``sslVerify``, client
certificate) and its configured headers (never an ``Authorization`` header) apply only to requests to the
server's own origin; any other origin (an authorization server named by the metadata, a redirect target) is
refused when it is private, loopback or special-use (``Blocked hostname or private/internal/special-use IP
address``); redirects are followed by the guard, keeping only the safe headers across origins.

Beyond the reference (decisions): each request, its redirects and its whole body must complete within the
server's resolved request timeout (``OAuth request timed out after <ms> ms``; a body sent byte by byte
cannot hold the flow), and an answer may hold at most :data:`MAX_OAUTH_RESPONSE_BYTES` (``OAuth response
exceeds 1048576 bytes``; read incrementally, so an oversized answer costs no more than the cap). Authorization
server metadata whose ``issuer`` is not the URL it was discovered from (RFC 8414 §3.3; OpenID Discovery §4.3;
compared as WHATWG URLs, a trailing ``/`` ignored) is refused. The authorization URL is built as the
reference SDK builds it (``new URL(authorization_endpoint)`` and ``searchParams.set``): WHATWG-normalised,
so control characters in a hostile endpoint are percent-encoded, never printed raw.

Errors (the port's contract): network failures raise :class:`OAuthNetworkError` with the reference's
``fetch failed`` text (no library text, which may carry URLs); error answers raise
:class:`OAuthErrorResponse`; invalid documents raise :class:`OAuthFlowError`. Library failures the steps do
not anticipate (an unparsable URL, JSON nested too deeply) are translated at each method's boundary, keeping
their text.
"""

from __future__ import annotations

import base64
import functools
import json
import ssl
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final, ParamSpec, TypeVar
from urllib.parse import quote_plus, urljoin, urlsplit

import anyio
import httpx2
from mcp.client.auth.exceptions import OAuthRegistrationError
from mcp.client.auth.oauth2 import PKCEParameters
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    create_client_registration_request,
    handle_registration_response,
)
from mcp.shared.auth import OAuthClientMetadata, OAuthMetadata, OAuthToken, ProtectedResourceMetadata
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url
from pydantic import ValidationError

from openclaw_mcp.adapters.http._client import GuardedFetch
from openclaw_mcp.adapters.http._errors import HttpPolicyError, fetch_error
from openclaw_mcp.application.ports.oauth import (
    AuthorizationStart,
    OAuthErrorResponse,
    OAuthFlowError,
    OAuthNetworkError,
)
from openclaw_mcp.domain.oauth_schemas import (
    OAUTH_METADATA_SCHEMA,
    OPENID_METADATA_SCHEMA,
    RESOURCE_METADATA_SCHEMA,
    TOKENS_SCHEMA,
)
from openclaw_mcp.jscompat.urlencoded import search_params, search_params_set
from openclaw_mcp.jscompat.urls import parse_url, set_search_params

__all__ = ["DISCOVERY_PROTOCOL_VERSION", "MAX_OAUTH_RESPONSE_BYTES", "HttpOAuthProtocol"]

DISCOVERY_PROTOCOL_VERSION: Final = "2025-11-25"
"""The ``MCP-Protocol-Version`` header of metadata discovery requests (the reference SDK's latest)."""
MAX_OAUTH_RESPONSE_BYTES: Final = 1_048_576
"""The largest metadata, registration or token answer read (decoded bytes); OAuth documents are small."""

# The reference SDK's zod schemas strip unknown keys of these documents and emit the schema order.
_CLIENT_INFORMATION_KEYS: Final = (
    "redirect_uris",
    "token_endpoint_auth_method",
    "grant_types",
    "response_types",
    "client_name",
    "client_uri",
    "logo_uri",
    "scope",
    "contacts",
    "tos_uri",
    "policy_uri",
    "jwks_uri",
    "jwks",
    "software_id",
    "software_version",
    "software_statement",
    "client_id",
    "client_secret",
    "client_id_issued_at",
    "client_secret_expires_at",
)
_CLIENT_AUTH_METHODS: Final = ("client_secret_basic", "client_secret_post", "none")

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def _port_errors() -> Iterator[None]:
    """Library exceptions as the port's errors, with their text: an unusable URL as a network failure, a
    value the libraries reject (bad URL syntax, JSON nested too deeply, a schema failure) as a flow error."""
    try:
        yield
    except httpx2.InvalidURL as exc:
        raise OAuthNetworkError(str(exc)) from None
    except (ValueError, RecursionError) as exc:  # pydantic's ValidationError is a ValueError
        raise OAuthFlowError(str(exc)) from None


def _translated(method: Callable[_P, Awaitable[_R]]) -> Callable[_P, Coroutine[Any, Any, _R]]:
    @functools.wraps(method)
    async def translated(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _port_errors():
            return await method(*args, **kwargs)

    return translated


def _translated_sync(method: Callable[_P, _R]) -> Callable[_P, _R]:
    @functools.wraps(method)
    def translated(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _port_errors():
            return method(*args, **kwargs)

    return translated


def _schema_order(document: Mapping[str, Any], keys: tuple[str, ...], *, loose: bool = False) -> dict[str, Any]:
    """A zod object parse: known keys in schema order; unknown keys appended (``loose``) or dropped."""
    ordered = {key: document[key] for key in keys if key in document}
    if loose:
        ordered.update((key, value) for key, value in document.items() if key not in ordered)
    return ordered


def _coerced_tokens(document: dict[str, Any]) -> dict[str, Any]:
    """``expires_in: z.coerce.number()``: a numeric string becomes a number."""
    expires_in = document.get("expires_in")
    if isinstance(expires_in, str):
        try:
            number = float(expires_in.strip() or "0")
        except ValueError:
            return document
        document = {**document, "expires_in": int(number) if number.is_integer() else number}
    return document


def _search_param(value: str) -> str:
    """``URLSearchParams`` serialisation of one name or value (space as ``+``; ``*-._`` kept)."""
    return quote_plus(value, safe="*").replace("~", "%7E")


def _href(url: str) -> str:
    """``new URL(url).href`` for the URLs handled here: an origin gets its ``/`` path."""
    parts = urlsplit(url)
    if parts.netloc and not parts.path:
        return parts._replace(path="/").geturl()
    return url


class _OriginTransport(httpx2.AsyncBaseTransport):
    """Configured headers on the server's origin only, then the guarded fetch (SSRF checks on every hop,
    redirects, the server's TLS settings on its origin)."""

    def __init__(
        self,
        server_url: str,
        headers: Mapping[str, str],
        ssl_context: ssl.SSLContext | None,
        *,
        block_private_origins: bool = True,
    ) -> None:
        self._guard = GuardedFetch(server_url, ssl_context, block_private_origins=block_private_origins)
        self._headers = {name: value for name, value in headers.items() if name.lower() != "authorization"}

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self._guard.same_origin(request.url):
            for name, value in self._headers.items():
                if name.lower() not in request.headers:
                    request.headers[name] = value
        return await self._guard.fetch(request)

    async def aclose(self) -> None:
        await self._guard.aclose()


@dataclass(frozen=True, slots=True)
class _Answer:
    """A response read in full (within the size cap and the deadline)."""

    status_code: int
    content: bytes
    request: httpx2.Request


class _TooLarge(Exception):
    pass


async def _read_capped(response: httpx2.Response) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_OAUTH_RESPONSE_BYTES:
        raise _TooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_OAUTH_RESPONSE_BYTES:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _issuer_key(url: object) -> str | None:
    """A URL compared as an issuer identifier: its WHATWG serialisation without one trailing ``/``."""
    parsed = parse_url(url) if isinstance(url, str) else None
    return None if parsed is None else parsed.href.removesuffix("/")


def _error_response(response: _Answer) -> OAuthErrorResponse:
    """The SDK's ``parseErrorResponse``: an OAuth error document, else a ``server_error`` with the body."""
    body = response.content.decode("utf-8", errors="replace")
    try:
        document = json.loads(body)
        error = document.get("error") if isinstance(document, dict) else None
        if not isinstance(error, str):
            raise ValueError("missing error")
    except ValueError as exc:
        return OAuthErrorResponse(
            "server_error", f"HTTP {response.status_code}: Invalid OAuth error response: {exc}. Raw body: {body}"
        )
    description = document.get("error_description")
    return OAuthErrorResponse(error, description if isinstance(description, str) else "")


def _select_client_auth_method(client: Mapping[str, Any], supported: list[str]) -> str:
    """The reference SDK's ``selectClientAuthMethod``."""
    has_secret = "client_secret" in client
    method = client.get("token_endpoint_auth_method")
    if isinstance(method, str) and method in _CLIENT_AUTH_METHODS and (not supported or method in supported):
        return method
    if not supported:
        return "client_secret_basic" if has_secret else "none"
    if has_secret and "client_secret_basic" in supported:
        return "client_secret_basic"
    if has_secret and "client_secret_post" in supported:
        return "client_secret_post"
    if "none" in supported:
        return "none"
    return "client_secret_post" if has_secret else "none"


class HttpOAuthProtocol:
    """:class:`~application.ports.oauth.OAuthProtocol` for one server: ``server_url`` (its origin gets
    ``headers`` and ``ssl_context``; other origins must be public), ``timeout_s`` for each request including
    its redirects and body. Use as an async context manager (it owns the HTTP connection pool).

    ``block_private_origins=False`` lifts the SSRF rule for other origins (tests of the header policy on
    loopback only; never set by the product)."""

    def __init__(
        self,
        server_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        ssl_context: ssl.SSLContext | None = None,
        timeout_s: float = 60.0,
        block_private_origins: bool = True,
    ) -> None:
        transport = _OriginTransport(
            server_url, headers or {}, ssl_context, block_private_origins=block_private_origins
        )
        self._timeout_s = timeout_s
        self._client = httpx2.AsyncClient(
            transport=transport,
            timeout=httpx2.Timeout(timeout_s),
            follow_redirects=False,
            trust_env=False,
        )

    async def __aenter__(self) -> HttpOAuthProtocol:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _send(self, request: httpx2.Request) -> _Answer:
        """One request, its redirects and its whole body within the timeout and the size cap."""
        try:
            with anyio.fail_after(self._timeout_s):
                response = await self._client.send(request, stream=True)
                try:
                    content = await _read_capped(response)
                finally:
                    await response.aclose()
        except TimeoutError:
            raise OAuthNetworkError(f"OAuth request timed out after {round(self._timeout_s * 1000)} ms") from None
        except _TooLarge:
            raise OAuthNetworkError(f"OAuth response exceeds {MAX_OAUTH_RESPONSE_BYTES} bytes") from None
        except HttpPolicyError as exc:
            raise OAuthNetworkError(str(exc)) from None
        except (httpx2.HTTPError, httpx2.StreamError, OSError) as exc:
            raise OAuthNetworkError(str(fetch_error(exc, request.url))) from None
        return _Answer(response.status_code, content, request)

    async def _get_metadata(self, url: str) -> _Answer:
        return await self._send(
            httpx2.Request("GET", url, headers={"MCP-Protocol-Version": DISCOVERY_PROTOCOL_VERSION})
        )

    # --- Discovery ---------------------------------------------------------------------------------------

    @_translated
    async def discover_resource_metadata(self, server_url: str, resource_metadata_url: str | None) -> dict[str, Any]:
        if resource_metadata_url is not None:
            candidates = [resource_metadata_url]
        else:
            candidates = build_protected_resource_metadata_discovery_urls(None, server_url)
            query = urlsplit(server_url).query
            if query:
                candidates[0] = f"{candidates[0]}?{query}"
        response = await self._get_metadata(candidates[0])
        if len(candidates) > 1 and 400 <= response.status_code < 500:
            response = await self._get_metadata(candidates[-1])
        if response.status_code == 404:
            raise OAuthFlowError("Resource server does not implement OAuth 2.0 Protected Resource Metadata.")
        if not 200 <= response.status_code < 300:
            raise OAuthFlowError(
                f"HTTP {response.status_code} trying to load well-known OAuth protected resource metadata."
            )
        document = self._json_object(response, "protected resource metadata")
        try:
            ProtectedResourceMetadata.model_validate(document)
        except ValidationError:
            raise OAuthFlowError("Invalid OAuth protected resource metadata.") from None
        return _schema_order(document, RESOURCE_METADATA_SCHEMA.keys, loose=True)

    @_translated
    async def discover_authorization_server_metadata(self, authorization_server_url: str) -> dict[str, Any] | None:
        for url in build_oauth_authorization_server_metadata_discovery_urls(
            authorization_server_url, authorization_server_url
        ):
            kind = "OAuth" if "oauth-authorization-server" in url else "OpenID provider"
            response = await self._get_metadata(url)
            if 400 <= response.status_code < 500:
                continue
            if not 200 <= response.status_code < 300:
                raise OAuthFlowError(f"HTTP {response.status_code} trying to load {kind} metadata from {url}")
            document = self._json_object(response, f"{kind} metadata")
            try:
                OAuthMetadata.model_validate(document)
            except ValidationError:
                raise OAuthFlowError(f"Invalid {kind} metadata from {url}") from None
            expected = _issuer_key(authorization_server_url)
            if expected is None or _issuer_key(document.get("issuer")) != expected:
                raise OAuthFlowError(
                    f"Invalid {kind} metadata from {url}: issuer does not match {_href(authorization_server_url)}"
                )
            if kind == "OAuth":
                return _schema_order(document, OAUTH_METADATA_SCHEMA.keys, loose=True)
            return _schema_order(document, OPENID_METADATA_SCHEMA.keys)
        return None

    @staticmethod
    def _json_object(response: _Answer, what: str) -> dict[str, Any]:
        try:
            document = json.loads(response.content)
        except ValueError:
            document = None
        if not isinstance(document, dict):
            raise OAuthFlowError(f"Invalid {what}: not a JSON object.")
        return document

    @_translated_sync
    def select_resource(self, server_url: str, resource_metadata: dict[str, Any] | None) -> str | None:
        if resource_metadata is None:
            return None
        requested = resource_url_from_server_url(server_url)
        configured = str(resource_metadata.get("resource", ""))
        if not check_resource_allowed(requested_resource=requested, configured_resource=configured):
            raise OAuthFlowError(f"Protected resource {configured} does not match expected {requested} (or origin)")
        return _href(configured)

    # --- Registration and authorization ------------------------------------------------------------------

    @_translated
    async def register_client(
        self,
        authorization_server_url: str,
        metadata: dict[str, Any] | None,
        client_metadata: dict[str, Any],
    ) -> dict[str, Any]:
        if metadata is not None and not metadata.get("registration_endpoint"):
            raise OAuthFlowError("Incompatible auth server: does not support dynamic client registration")
        try:
            request = create_client_registration_request(
                OAuthMetadata.model_validate(metadata) if metadata is not None else None,
                OAuthClientMetadata.model_validate(client_metadata),
                authorization_server_url,
            )
        except ValidationError:
            raise OAuthFlowError("Invalid OAuth client metadata.") from None
        # The SDK builds the URL; the body is the reference's (its keys and order, no pydantic defaults).
        body = json.dumps(client_metadata, separators=(",", ":"), ensure_ascii=False).encode()
        request = httpx2.Request("POST", request.url, content=body, headers={"Content-Type": "application/json"})
        response = await self._send(request)
        if not 200 <= response.status_code < 300:
            raise _error_response(response)
        try:
            await handle_registration_response(httpx2.Response(200, content=response.content, request=response.request))
        except OAuthRegistrationError:
            raise OAuthFlowError("Invalid OAuth client registration response.") from None
        return _schema_order(self._json_object(response, "client registration response"), _CLIENT_INFORMATION_KEYS)

    @_translated_sync
    def start_authorization(
        self,
        authorization_server_url: str,
        metadata: dict[str, Any] | None,
        client_information: dict[str, Any],
        *,
        redirect_url: str,
        scope: str | None,
        state: str,
        resource: str | None,
    ) -> AuthorizationStart:
        if metadata is not None:
            endpoint = str(metadata["authorization_endpoint"])
            if "code" not in (metadata.get("response_types_supported") or []):
                raise OAuthFlowError("Incompatible auth server: does not support response type code")
            methods = metadata.get("code_challenge_methods_supported")
            if methods is not None and "S256" not in methods:
                raise OAuthFlowError("Incompatible auth server: does not support code challenge method S256")
        else:
            endpoint = urljoin(authorization_server_url, "/authorize")
        # ``new URL(endpoint)`` then ``searchParams.set`` (``append`` for ``prompt``): WHATWG-normalised, so
        # control characters are percent-encoded (or, at the ends, stripped) and the URL prints safely.
        url = parse_url(endpoint)
        if url is None:
            raise OAuthFlowError("Invalid URL")
        pkce = PKCEParameters.generate()
        pairs = search_params(url.query or "")
        for name, value in (
            ("response_type", "code"),
            ("client_id", str(client_information["client_id"])),
            ("code_challenge", pkce.code_challenge),
            ("code_challenge_method", "S256"),
            ("redirect_uri", redirect_url),
            ("state", state),
        ):
            pairs = search_params_set(pairs, name, value)
        if scope:
            pairs = search_params_set(pairs, "scope", scope)
            if "offline_access" in scope:
                pairs.append(("prompt", "consent"))
        if resource is not None:
            pairs = search_params_set(pairs, "resource", resource)
        return AuthorizationStart(set_search_params(url, pairs).href, pkce.code_verifier)

    # --- Token requests ----------------------------------------------------------------------------------

    async def _token_request(
        self,
        authorization_server_url: str,
        metadata: dict[str, Any] | None,
        client: dict[str, Any],
        params: list[tuple[str, str]],
        resource: str | None,
    ) -> dict[str, Any]:
        token_url = str(metadata["token_endpoint"]) if metadata else urljoin(authorization_server_url, "/token")
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        if resource is not None:
            params.append(("resource", resource))
        supported = (metadata or {}).get("token_endpoint_auth_methods_supported") or []
        method = _select_client_auth_method(client, list(supported))
        client_id, secret = str(client["client_id"]), client.get("client_secret")
        if method == "client_secret_basic":
            if not secret:
                raise OAuthFlowError("client_secret_basic authentication requires a client_secret")
            credentials = base64.b64encode(f"{client_id}:{secret}".encode()).decode("ascii")
            headers["Authorization"] = f"Basic {credentials}"
        else:
            params.append(("client_id", client_id))
            if method == "client_secret_post" and secret:
                params.append(("client_secret", str(secret)))
        body = "&".join(f"{_search_param(name)}={_search_param(value)}" for name, value in params)
        response = await self._send(httpx2.Request("POST", token_url, headers=headers, content=body.encode()))
        if not 200 <= response.status_code < 300:
            raise _error_response(response)
        document = _coerced_tokens(self._json_object(response, "token response"))
        try:
            OAuthToken.model_validate(document)
        except ValidationError:
            raise OAuthFlowError("Invalid OAuth token response.") from None
        return _schema_order(document, TOKENS_SCHEMA.keys)

    @_translated
    async def exchange_code(
        self,
        authorization_server_url: str,
        metadata: dict[str, Any] | None,
        client_information: dict[str, Any],
        *,
        code: str,
        code_verifier: str,
        redirect_url: str,
        resource: str | None,
    ) -> dict[str, Any]:
        params = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", code_verifier),
            ("redirect_uri", redirect_url),
        ]
        return await self._token_request(authorization_server_url, metadata, client_information, params, resource)

    @_translated
    async def refresh(
        self,
        authorization_server_url: str,
        metadata: dict[str, Any] | None,
        client_information: dict[str, Any],
        *,
        refresh_token: str,
        resource: str | None,
    ) -> dict[str, Any]:
        params = [("grant_type", "refresh_token"), ("refresh_token", refresh_token)]
        tokens = await self._token_request(authorization_server_url, metadata, client_information, params, resource)
        # ``{refresh_token: old, ...tokens}``: the old refresh token stays unless replaced (and comes first).
        return {"refresh_token": refresh_token, **tokens}


def _conforms() -> None:  # pragma: no cover - static check only
    from openclaw_mcp.application.ports.oauth import OAuthProtocol

    _protocol: OAuthProtocol = HttpOAuthProtocol("http://127.0.0.1")
    del _protocol
