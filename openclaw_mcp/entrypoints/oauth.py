"""The MCP OAuth flow for ``openclaw mcp login`` (spec cli-registry §7.8, §7.9): the operator identity of a
server, and the use cases, wire protocol and request authenticator taken from the container
(``entrypoints.containers``).

For a single server URL without a config file (e.g. a conformance client)::

    oauth = sqlite_mcp_oauth(db_path)                      # use cases over the state database
    server = oauth_server("server", url, scope="s")        # identity + oauth settings
    async with http_oauth_protocol(url=url) as protocol:
        start = await oauth.login_start(server, protocol)  # LoginRedirect(authorization_url, ...) | LoginAuthorized
        await oauth.login_complete(server, protocol, code)
    auth = request_auth(oauth, server)                     # httpx2 request authenticator for McpHttpTransport

Each function makes its own container; the container and the SDK are imported on first call, off the CLI
fast path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openclaw_mcp.application.oauth import oauth_server, server_of
from openclaw_mcp.application.ports.leases import MCP_OAUTH_LEASE, LeasePolicy
from openclaw_mcp.application.ports.oauth import OAuthServer
from openclaw_mcp.domain.transport import HttpConfig

if TYPE_CHECKING:
    from openclaw_mcp.adapters.http._client import RequestAuth
    from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol
    from openclaw_mcp.application.oauth import McpOAuth

__all__ = ["http_oauth_protocol", "oauth_server", "request_auth", "server_of", "sqlite_mcp_oauth"]


def sqlite_mcp_oauth(db_path: str, *, policy: LeasePolicy = MCP_OAUTH_LEASE) -> McpOAuth:
    """The use cases over the state database at ``db_path`` (created on the first write)."""
    from openclaw_mcp.entrypoints.containers import create_container

    oauth: McpOAuth = create_container(state_db_path=db_path).mcp_oauth(policy=policy)
    return oauth


def http_oauth_protocol(config: HttpConfig | None = None, *, url: str | None = None) -> HttpOAuthProtocol:
    """The OAuth wire protocol with the server's TLS settings, headers (no ``Authorization``) and request
    timeout; or, with only ``url``, plain defaults. Raises ``OSError``/``ssl.SSLError`` for unusable
    certificate files."""
    from openclaw_mcp.entrypoints.containers import create_container

    protocol: HttpOAuthProtocol = create_container().oauth_protocol(config, url=url)
    return protocol


def request_auth(oauth: McpOAuth, server: OAuthServer, config: HttpConfig | None = None) -> RequestAuth:
    """The §7.9 request authenticator of one connection to ``server``."""
    from openclaw_mcp.entrypoints.containers import create_container

    auth: RequestAuth = create_container().request_auth(oauth=oauth, server=server, config=config)
    return auth
