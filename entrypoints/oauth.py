"""Composition of the MCP OAuth flow (spec cli-registry §7.8, §7.9): the use cases over the state
database, the wire protocol for one server's HTTP settings, and the request authenticator the HTTP
connector uses for ``auth: "oauth"`` servers.

For a single server URL without a config file (e.g. a conformance client)::

    oauth = mcp_oauth(store, leases)                       # any OAuthCredentialStore + LeaseStore
    server = oauth_server("server", url, scope="s")        # identity + oauth settings
    async with HttpOAuthProtocol(url) as protocol:
        start = await oauth.login_start(server, protocol)  # LoginRedirect(authorization_url, ...) | LoginAuthorized
        await oauth.login_complete(server, protocol, code)
    auth = request_auth(oauth, server)                     # httpx2 request authenticator for McpHttpTransport
    connector = HttpMcpConnector(oauth=lambda name, config: request_auth(oauth, server_of(name, config)))

Imports of the SDK and pydantic stay inside the functions, off the CLI fast path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from application.leases import SystemClock
from application.oauth import McpOAuth
from application.ports.clock import Clock
from application.ports.leases import MCP_OAUTH_LEASE, LeasePolicy, LeaseStore
from application.ports.oauth import OAuthCredentialStore, OAuthServer
from domain.names import operator_store_key
from domain.transport import HttpConfig

if TYPE_CHECKING:
    from adapters.http._client import RequestAuth
    from adapters.http.oauth import HttpOAuthProtocol

__all__ = [
    "http_oauth_protocol",
    "mcp_oauth",
    "oauth_server",
    "request_auth",
    "server_of",
    "sqlite_mcp_oauth",
    "sqlite_oauth_connector_hook",
]


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def oauth_server(
    name: str,
    url: str,
    *,
    scope: str | None = None,
    redirect_url: str | None = None,
    client_metadata_url: str | None = None,
    store_key: str | None = None,
) -> OAuthServer:
    """The operator OAuth identity of server ``name`` at ``url`` (store key §7.3 unless given)."""
    return OAuthServer(
        name=name,
        url=url,
        store_key=store_key if store_key is not None else operator_store_key(name, url),
        scope=_text(scope),
        redirect_url=_text(redirect_url),
        client_metadata_url=_text(client_metadata_url),
    )


def server_of(name: str, config: HttpConfig) -> OAuthServer:
    """The operator OAuth identity and settings of a resolved HTTP server config."""
    oauth: Mapping[str, Any] = config.oauth or {}
    return oauth_server(
        name,
        config.url,
        scope=oauth.get("scope"),
        redirect_url=oauth.get("redirectUrl"),
        client_metadata_url=oauth.get("clientMetadataUrl"),
    )


def mcp_oauth(
    store: OAuthCredentialStore,
    leases: LeaseStore,
    *,
    clock: Clock | None = None,
    policy: LeasePolicy = MCP_OAUTH_LEASE,
) -> McpOAuth:
    return McpOAuth(store, leases, clock if clock is not None else SystemClock(), policy=policy)


def sqlite_mcp_oauth(db_path: str, *, policy: LeasePolicy = MCP_OAUTH_LEASE) -> McpOAuth:
    """The use cases over the state database at ``db_path`` (created on the first write)."""
    from adapters.sqlite.leases import SqliteLeaseStore
    from adapters.sqlite.oauth_store import SqliteOAuthCredentialStore

    leases = SqliteLeaseStore(db_path)
    return mcp_oauth(SqliteOAuthCredentialStore(db_path, leases), leases, policy=policy)


def http_oauth_protocol(config: HttpConfig | None = None, *, url: str | None = None) -> HttpOAuthProtocol:
    """The OAuth wire protocol with the server's TLS settings, headers (no ``Authorization``) and request
    timeout; or, with only ``url``, plain defaults. Raises ``OSError``/``ssl.SSLError`` for unusable
    certificate files."""
    from adapters.http._client import build_ssl_context
    from adapters.http.oauth import HttpOAuthProtocol

    if config is None:
        if url is None:
            raise ValueError("http_oauth_protocol needs a config or a url")
        return HttpOAuthProtocol(url)
    return HttpOAuthProtocol(
        config.url,
        headers=config.headers or {},
        ssl_context=build_ssl_context(config.ssl_verify, config.client_cert, config.client_key),
        timeout_s=config.request_timeout_ms / 1000,
    )


def request_auth(oauth: McpOAuth, server: OAuthServer, config: HttpConfig | None = None) -> RequestAuth:
    """The §7.9 request authenticator of one connection to ``server``."""
    from adapters.http.oauth_auth import OAuthRequestAuth

    return OAuthRequestAuth(oauth, server, http_oauth_protocol(config, url=server.url))


def sqlite_oauth_connector_hook(db_path: str) -> Callable[[str, HttpConfig], RequestAuth]:
    """The ``HttpMcpConnector(oauth=…)`` hook over the state database (operator identities)."""
    holder: list[McpOAuth] = []

    def hook(name: str, config: HttpConfig) -> RequestAuth:
        if (config.oauth or {}).get("identity") == "per-requester":
            # Requester-scoped connections are made by the Gateway's connect flow, never with operator tokens.
            from application.ports.mcp import McpError

            raise McpError(f'MCP server "{name}" uses per-requester OAuth and has no requester scope here.')
        if not holder:
            holder.append(sqlite_mcp_oauth(db_path))
        return request_auth(holder[0], server_of(name, config), config)

    return hook
