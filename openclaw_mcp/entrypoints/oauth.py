"""The MCP OAuth flow for ``openclaw mcp login`` (spec cli-registry §7.8, §7.9): the operator identity of a
server, and the use cases, wire protocol and request authenticator from the composition root
(``entrypoints.composition``).

For a single server URL without a config file (e.g. a conformance client)::

    oauth = sqlite_mcp_oauth(db_path)                      # use cases over the state database
    server = oauth_server("server", url, scope="s")        # identity + oauth settings
    async with http_oauth_protocol(url=url) as protocol:
        start = await oauth.login_start(server, protocol)  # LoginRedirect(authorization_url, ...) | LoginAuthorized
        await oauth.login_complete(server, protocol, code)
    auth = request_auth(oauth, server)                     # httpx2 request authenticator for McpHttpTransport

The adapters and the SDK are imported on first call, off the CLI fast path.
"""

from __future__ import annotations

from openclaw_mcp.application.oauth import oauth_server, server_of
from openclaw_mcp.entrypoints.composition import oauth_protocol as http_oauth_protocol
from openclaw_mcp.entrypoints.composition import request_auth, sqlite_mcp_oauth

__all__ = ["http_oauth_protocol", "oauth_server", "request_auth", "server_of", "sqlite_mcp_oauth"]
