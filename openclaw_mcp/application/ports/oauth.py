"""OAuth ports (spec cli-registry §7): the credential store, the status reader of ``status``/``doctor``, and the OAuth
wire protocol (discovery, dynamic registration, PKCE authorization URL, token requests) that the use cases in
:mod:`application.oauth` drive. The protocol adapter (``adapters.http.oauth``) builds on the MCP SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.leases import Lease
from openclaw_mcp.application.ports.mcp import McpError

__all__ = [
    "DEFAULT_REDIRECT_URL",
    "LOCALHOST_REDIRECT_URL",
    "AuthorizationStart",
    "OAuthCallbackError",
    "OAuthCredentialStore",
    "OAuthErrorResponse",
    "OAuthFlowError",
    "OAuthNetworkError",
    "OAuthProtocol",
    "OAuthServer",
    "OAuthStatusReader",
]


DEFAULT_REDIRECT_URL = "http://127.0.0.1:8989/oauth/callback"
"""The provider's redirect URI when neither ``oauth.redirectUrl`` nor a stored one exists."""

LOCALHOST_REDIRECT_URL = "http://localhost:8989/oauth/callback"
"""The one retry when registration rejects the default redirect URI (§7.8.1 step 6)."""


class OAuthCallbackError(ApplicationError):
    """The loopback listener of the OAuth redirect could not start, or the wait failed (``OAuth callback
    timeout``/``cancelled``/``failed``): the one error the callback listener adapter raises."""


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


class OAuthNetworkError(McpError):
    """An OAuth request could not be made or answered (the reference's ``fetch failed``, a policy refusal, an
    unusable URL). An :class:`~application.ports.mcp.McpError`, so an MCP connection that refreshes its token
    reports it like its own network failures; the message is one line without secrets or URLs' credentials."""


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
    Error contract (every method): a request that cannot be made or answered raises
    :class:`OAuthNetworkError`; an error answer of the registration or token endpoint raises
    :class:`OAuthErrorResponse`; any other protocol failure (an unusable document, an incompatible server,
    a library failure on the input) raises :class:`OAuthFlowError`. Adapters translate their libraries'
    exceptions (HTTP client, schema validation, JSON) into these three; nothing else escapes. Cancellation
    of the caller cancels the request.
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


class OAuthStatusReader(Protocol):
    """Read-only view of the MCP OAuth credential store, for status reporting. Takes no lease, never
    creates the store: a missing database or table reads as empty."""

    async def read_store(self, store_key: str) -> dict[str, object] | None:
        """The store object of ``store_key`` (``None`` when there is no row).

        Raises ``OAuthStoreError("MCP OAuth store <key> is invalid: <detail>")`` for a corrupt row.
        """
        ...

    async def count_principals(self, prefix: str) -> int:
        """How many stores whose key starts with ``prefix`` hold tokens (connected principals)."""
        ...


class OAuthCredentialStore(Protocol):
    """The MCP OAuth credential store (spec cli-registry §7.2–§7.7, §7.10): one JSON object per store key,
    plus pending authorizations keyed by OAuth ``state``.

    Every write runs in one write transaction under the caller's ``core:mcp-oauth`` lease of that store key
    (``MCP_OAUTH_LEASE`` held with :class:`application.ports.leases.LeaseStore`): the lease ownership is checked at
    the start of the transaction and again just before commit; a lost lease rolls back and raises
    ``LeaseLost``. A lease for another scope or key is refused with
    ``OAuthStoreError("MCP OAuth mutation requires its exact store lease")``. Reads take no lease and never
    create the store. Storage failures and corrupt rows raise ``OAuthStoreError``
    (``MCP OAuth store <key> is invalid: <detail>`` for a row that fails §7.4 validation).
    """

    async def read(self, store_key: str) -> dict[str, Any]:
        """The validated store object of ``store_key``; ``{}`` when there is no row (or no database)."""
        ...

    async def update(
        self, lease: Lease, store_key: str, change: Callable[[dict[str, Any]], dict[str, Any] | None]
    ) -> dict[str, Any]:
        """Read-modify-write in one transaction: ``change`` gets a copy of the current store (``{}`` when
        absent) and returns the new store, or ``None`` for "no change" (nothing is written). The new store is
        validated as a read would, then upserted as ``(store_key, 1, compact JSON, now)``. Returns the store
        as it is after the call. ``change`` is pure (see ``domain.oauth_store`` mutations); an exception it
        raises rolls back and propagates unchanged. The lease is checked even when nothing changes (a lost
        lease raises ``LeaseLost``); an invalid new store raises ``OAuthStoreError("MCP OAuth store <key> is
        invalid: <detail>")`` and nothing is written."""
        ...

    async def clear(self, store_key: str) -> None:
        """Log out: the store becomes ``{"credentialState": "cleared"}`` (the row is kept) and its pending
        authorizations are deleted, in one transaction under the ``core:mcp-oauth`` lease of ``store_key``,
        which this method acquires itself.

        Raises ``OAuthStoreError`` when the store cannot be written and the lease errors
        (``LeaseHeld`` after the 30 s wait, ``LeaseUnavailable``, ``LeaseLost``) as they are.
        """
        ...

    async def keys_with_prefix(self, prefix: str) -> list[str]:
        """Store keys starting with ``prefix``, in key order (read-only; ``[]`` without a database)."""
        ...

    async def write_pending(self, lease: Lease, store_key: str, state: str) -> None:
        """Record a pending authorization: delete every store's rows older than the 10-minute TTL and this
        store's rows, then insert ``(state, store_key, now)`` (§7.7). A ``state`` still pending for another
        store raises ``OAuthStoreError``."""
        ...

    async def consume_pending(self, lease: Lease, store_key: str, state: str) -> bool:
        """Delete this store's unexpired row for ``state``; true iff one was deleted (an expired row is left
        for the next :meth:`write_pending` to purge)."""
        ...

    async def read_pending(self, state: str) -> str | None:
        """The store key of the unexpired pending row for ``state`` (read-only, no lease)."""
        ...

    async def delete_pending(self, lease: Lease, store_key: str) -> None:
        """Delete this store's pending rows."""
        ...

    async def delete_pending_prefix(self, prefix: str) -> None:
        """Delete the pending rows of every store whose key matches ``LIKE '<prefix>%'`` as the reference does
        it (ASCII case-insensitive; ``_`` and ``%`` in ``prefix`` are wildcards). No lease; never creates the
        database."""
        ...
