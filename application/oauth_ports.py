"""Ports and values of the MCP OAuth flow (spec cli-registry §7.8, §7.9): which server, and the OAuth wire
protocol (discovery, dynamic registration, PKCE authorization URL, token requests) the use cases in
:mod:`application.oauth` drive. The protocol adapter (``adapters.http.oauth``) builds on the MCP SDK."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from application.errors import ApplicationError

__all__ = [
    "DEFAULT_REDIRECT_URL",
    "LOCALHOST_REDIRECT_URL",
    "AuthorizationStart",
    "OAuthErrorResponse",
    "OAuthFlowError",
    "OAuthProtocol",
    "OAuthServer",
]

DEFAULT_REDIRECT_URL = "http://127.0.0.1:8989/oauth/callback"
"""The provider's redirect URI when neither ``oauth.redirectUrl`` nor a stored one exists."""

LOCALHOST_REDIRECT_URL = "http://localhost:8989/oauth/callback"
"""The one retry when registration rejects the default redirect URI (§7.8.1 step 6)."""


class OAuthFlowError(ApplicationError):
    """An OAuth flow step failed; the message is one printable line without secrets."""


class OAuthErrorResponse(OAuthFlowError):
    """The authorization server answered a registration or token request with an error.

    ``error`` is the OAuth error code (``invalid_grant``, ``invalid_client``, …), ``server_error`` when the
    answer was not a valid OAuth error document (then the description says so, with the HTTP status);
    ``description`` is ``error_description`` (may be empty; the message falls back to the code).
    """

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description or error)
        self.error = error
        self.description = description


@dataclass(frozen=True, slots=True)
class OAuthServer:
    """One OAuth-protected MCP server as the flow sees it.

    ``name``: the configured server name (used in messages); ``url``: the resolved server URL (the OAuth
    ``resource``); ``store_key``: its credential store (``domain.names.operator_store_key``);
    ``scope``/``redirect_url``/``client_metadata_url``: the configured ``oauth`` block, each ``None`` when
    not set.
    """

    name: str
    url: str
    store_key: str
    scope: str | None = None
    redirect_url: str | None = None
    client_metadata_url: str | None = None


@dataclass(frozen=True, slots=True)
class AuthorizationStart:
    """A prepared authorization request: the URL to open and its PKCE verifier (a secret)."""

    authorization_url: str
    code_verifier: str


class OAuthProtocol(Protocol):
    """The OAuth wire protocol for one MCP server's HTTP settings (TLS, timeout, same-origin headers).

    Metadata documents and token/registration answers are plain JSON objects as the server sent them
    (keys the SDK schema does not know dropped, schema order kept, like the reference's zod parse).
    Network failures raise whatever the adapter raises (they propagate unchanged); error answers of the
    registration and token endpoints raise :class:`OAuthErrorResponse`; other protocol failures raise
    :class:`OAuthFlowError`.
    """

    async def discover_resource_metadata(self, server_url: str, resource_metadata_url: str | None) -> dict[str, Any]:
        """RFC 9728 metadata: ``resource_metadata_url`` when given, else the path-aware well-known URL of
        ``server_url`` then the root one. Raises :class:`OAuthFlowError` when there is none."""
        ...

    async def discover_authorization_server_metadata(self, authorization_server_url: str) -> dict[str, Any] | None:
        """RFC 8414 / OpenID metadata of the authorization server, ``None`` when not published."""
        ...

    def select_resource(self, server_url: str, resource_metadata: dict[str, Any] | None) -> str | None:
        """The RFC 8707 ``resource`` parameter: ``None`` without resource metadata, else its ``resource``
        (which must cover ``server_url``, else :class:`OAuthFlowError`)."""
        ...

    async def register_client(
        self,
        authorization_server_url: str,
        metadata: dict[str, Any] | None,
        client_metadata: dict[str, Any],
    ) -> dict[str, Any]:
        """Dynamic client registration (RFC 7591); returns the client information to store."""
        ...

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
        """A PKCE (S256) authorization URL with the reference's parameter order."""
        ...

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
        """The ``authorization_code`` grant; returns the token response."""
        ...

    async def refresh(
        self,
        authorization_server_url: str,
        metadata: dict[str, Any] | None,
        client_information: dict[str, Any],
        *,
        refresh_token: str,
        resource: str | None,
    ) -> dict[str, Any]:
        """The ``refresh_token`` grant; returns the token response (the old refresh token kept when the
        server sends none)."""
        ...
