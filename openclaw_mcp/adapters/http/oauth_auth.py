"""OAuth bearer tokens on an MCP server's requests (spec cli-registry §7.9 steps 1–4; upstream
``mcp-oauth-fetch.ts`` ``withMcpOAuthBearer``).

:class:`OAuthRequestAuth` sits inside the HTTP transport (``_client.McpHttpTransport``), under the SDK:
for every request to the server's origin it resolves the token through the application use case (which
refreshes under the cross-process lease), sends it, and on ``401`` or ``403 insufficient_scope`` resolves
again with the challenge and retries once; a second rejection is recorded as authorization-required.
Application errors (e.g. ``requires OAuth authorization``) fail the request as ``McpError`` with the same
one-line message, which the runtime shows as the server's diagnostic. Tokens never appear in messages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx2
from mcp.client.auth.utils import extract_field_from_www_auth

from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol
from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.oauth import McpOAuth
from openclaw_mcp.application.ports.mcp import McpError
from openclaw_mcp.application.ports.oauth import OAuthServer

__all__ = ["Challenge", "OAuthRequestAuth", "parse_challenge"]

Fetch = Callable[[httpx2.Request], Awaitable[httpx2.Response]]


@dataclass(frozen=True, slots=True)
class Challenge:
    """What a rejection says: ``rejected`` (401 or 403 ``insufficient_scope``), ``insufficient_scope``, and
    the ``WWW-Authenticate`` ``resource_metadata`` and ``scope`` parameters."""

    rejected: bool
    insufficient_scope: bool
    resource_metadata_url: str | None
    scope: str | None


def parse_challenge(response: httpx2.Response) -> Challenge:
    insufficient = (
        response.status_code == 403 and extract_field_from_www_auth(response, "error") == "insufficient_scope"
    )
    return Challenge(
        rejected=response.status_code == 401 or insufficient,
        insufficient_scope=insufficient,
        resource_metadata_url=extract_field_from_www_auth(response, "resource_metadata"),
        scope=extract_field_from_www_auth(response, "scope"),
    )


class OAuthRequestAuth:
    """The §7.9 bearer of one connection to ``server``; ``protocol`` is the OAuth wire adapter with the
    server's HTTP settings (closed by :meth:`aclose`)."""

    def __init__(self, oauth: McpOAuth, server: OAuthServer, protocol: HttpOAuthProtocol) -> None:
        self._oauth = oauth
        self._server = server
        self._protocol = protocol

    async def aclose(self) -> None:
        await self._protocol.aclose()

    async def _resolve(
        self,
        *,
        allow_missing_token: bool = False,
        authorization_challenge: bool = False,
        interactive_authorization_required: bool = False,
        rejected_access_token: str | None = None,
        resource_metadata_url: str | None = None,
        scope: str | None = None,
    ) -> str | None:
        try:
            return await self._oauth.resolve_access_token(
                self._server,
                self._protocol,
                accept_unknown_expiry=True,
                allow_missing_token=allow_missing_token,
                authorization_challenge=authorization_challenge,
                interactive_authorization_required=interactive_authorization_required,
                rejected_access_token=rejected_access_token,
                resource_metadata_url=resource_metadata_url,
                scope=scope,
            )
        except McpError:
            raise
        except ApplicationError as exc:
            raise McpError(str(exc)) from None

    async def send(self, request: httpx2.Request, fetch: Fetch) -> httpx2.Response:
        """Send ``request`` (to the server's origin) with the bearer token, retrying once on a rejection."""
        token = await self._resolve(allow_missing_token=True)
        if token:
            request.headers["authorization"] = f"Bearer {token}"
        response = await fetch(request)
        challenge = parse_challenge(response)
        if not challenge.rejected:
            return response
        await response.aclose()
        next_token = await self._resolve(
            authorization_challenge=True,
            interactive_authorization_required=challenge.insufficient_scope,
            rejected_access_token=token,
            resource_metadata_url=challenge.resource_metadata_url,
            scope=challenge.scope,
        )
        if next_token:
            request.headers["authorization"] = f"Bearer {next_token}"
        retry = await fetch(request)
        again = parse_challenge(retry)
        if again.rejected:
            try:
                await self._oauth.record_authorization_required(
                    self._server,
                    next_token,
                    resource_metadata_url=again.resource_metadata_url or challenge.resource_metadata_url,
                    scope=again.scope or challenge.scope,
                )
            except ApplicationError as exc:
                await retry.aclose()
                raise McpError(str(exc)) from None
        return retry


if TYPE_CHECKING:
    from openclaw_mcp.adapters.http._client import RequestAuth

    def _conforms(auth: OAuthRequestAuth) -> RequestAuth:
        return auth
