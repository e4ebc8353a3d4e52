"""The OAuth wire protocol of one MCP server (spec cli-registry §7.8.1, §7.9), over ``httpx2`` with the MCP
SDK's OAuth client helpers: discovery URL builders, the registration request/response handling, PKCE
parameters, the metadata/token/client schemas and the RFC 8707 resource checks.

What the reference's SDK (TypeScript 1.30) does differently from the Python SDK is kept as the reference
does it: the ``MCP-Protocol-Version: 2025-11-25`` discovery header, the authorization URL parameter order
and ``URLSearchParams`` encoding, the token request parameter order and client authentication choice, and
stored documents in the reference's schema order (unknown client/token fields dropped).

HTTP: the server's TLS settings (``sslVerify``, client certificate) and its configured headers (never an
``Authorization`` header) apply only to requests to the server's own origin; every request has the
server's resolved request timeout.

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
from typing import Any, Final, ParamSpec, TypeVar
from urllib.parse import quote_plus, urljoin, urlsplit

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

from openclaw_mcp.adapters.http._errors import fetch_error
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

__all__ = ["DISCOVERY_PROTOCOL_VERSION", "HttpOAuthProtocol"]

DISCOVERY_PROTOCOL_VERSION: Final = "2025-11-25"
"""The ``MCP-Protocol-Version`` header of metadata discovery requests (the reference SDK's latest)."""

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


def _origin(url: httpx2.URL) -> tuple[str, str, int]:
    port = url.port
    if port is None:
        port = 443 if url.scheme == "https" else 80
    return url.scheme, url.host, port


class _OriginTransport(httpx2.AsyncBaseTransport):
    """Configured headers and TLS settings on the server's origin only."""

    def __init__(self, server_url: str, headers: Mapping[str, str], ssl_context: ssl.SSLContext | None) -> None:
        self._origin = _origin(httpx2.URL(server_url))
        self._headers = {name: value for name, value in headers.items() if name.lower() != "authorization"}
        self._default = httpx2.AsyncHTTPTransport()
        self._server = httpx2.AsyncHTTPTransport(verify=ssl_context) if ssl_context is not None else self._default

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if _origin(request.url) == self._origin:
            for name, value in self._headers.items():
                if name.lower() not in request.headers:
                    request.headers[name] = value
            return await self._server.handle_async_request(request)
        return await self._default.handle_async_request(request)

    async def aclose(self) -> None:
        await self._server.aclose()
        if self._default is not self._server:
            await self._default.aclose()


async def _error_response(response: httpx2.Response) -> OAuthErrorResponse:
    """The SDK's ``parseErrorResponse``: an OAuth error document, else a ``server_error`` with the body."""
    body = (await response.aread()).decode("utf-8", errors="replace")
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
    ``headers`` and ``ssl_context``), ``timeout_s`` per request. Use as an async context manager (it owns
    the HTTP connection pool)."""

    def __init__(
        self,
        server_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        ssl_context: ssl.SSLContext | None = None,
        timeout_s: float = 60.0,
    ) -> None:
        transport = _OriginTransport(server_url, headers or {}, ssl_context)
        self._client = httpx2.AsyncClient(
            transport=transport,
            timeout=httpx2.Timeout(timeout_s),
            follow_redirects=True,
            max_redirects=20,
            trust_env=False,
        )

    async def __aenter__(self) -> HttpOAuthProtocol:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _send(self, request: httpx2.Request) -> httpx2.Response:
        try:
            response = await self._client.send(request)
            await response.aread()
        except (httpx2.HTTPError, httpx2.StreamError, OSError) as exc:
            raise OAuthNetworkError(str(fetch_error(exc, request.url))) from None
        return response

    async def _get_metadata(self, url: str) -> httpx2.Response:
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
            if kind == "OAuth":
                return _schema_order(document, OAUTH_METADATA_SCHEMA.keys, loose=True)
            return _schema_order(document, OPENID_METADATA_SCHEMA.keys)
        return None

    @staticmethod
    def _json_object(response: httpx2.Response, what: str) -> dict[str, Any]:
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
            raise await _error_response(response)
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
        pkce = PKCEParameters.generate()
        params: list[tuple[str, str]] = [
            ("response_type", "code"),
            ("client_id", str(client_information["client_id"])),
            ("code_challenge", pkce.code_challenge),
            ("code_challenge_method", "S256"),
            ("redirect_uri", redirect_url),
            ("state", state),
        ]
        if scope:
            params.append(("scope", scope))
            if "offline_access" in scope:
                params.append(("prompt", "consent"))
        if resource is not None:
            params.append(("resource", resource))
        query = "&".join(f"{_search_param(name)}={_search_param(value)}" for name, value in params)
        separator = "&" if urlsplit(endpoint).query else "?"
        return AuthorizationStart(f"{_href(endpoint)}{separator}{query}", pkce.code_verifier)

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
            raise await _error_response(response)
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
