"""MCP OAuth use cases (spec cli-registry §7.6–§7.9): login start and completion, token resolution with
refresh under the cross-process lease, and recording an authorization-required challenge.

Every step that reads and writes a credential store runs under that store's ``core:mcp-oauth`` lease
(:data:`application.ports.leases.MCP_OAUTH_LEASE`, injectable for tests). The OAuth network requests a lease
holder makes are cancelled when the lease is lost, and every write re-checks ownership (the store does).

The orchestration (:class:`application.oauth_flow.AuthFlow`) is the reference's use of the MCP SDK's
``auth()``: discovery (reusing the stored ``discoveryState``), client registration, then a code exchange, a
refresh grant or a new PKCE authorization. The wire steps themselves are the
:class:`~application.ports.oauth.OAuthProtocol` port (the MCP SDK's helpers in ``adapters.http.oauth``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.oauth_flow import (
    Attempt,
    AuthFlow,
    OAuthAuthorizationRequired,
    additional,
    normalized_text,
    required,
)
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.leases import MCP_OAUTH_LEASE, LeasePolicy, LeaseStore
from openclaw_mcp.application.ports.oauth import (
    LOCALHOST_REDIRECT_URL,
    OAuthCredentialStore,
    OAuthErrorResponse,
    OAuthFlowError,
    OAuthProtocol,
    OAuthServer,
)
from openclaw_mcp.domain import oauth_store as mutations
from openclaw_mcp.domain.names import operator_store_key
from openclaw_mcp.domain.transport import HttpConfig

__all__ = [
    "TOKEN_EXPIRY_SKEW_MS",
    "LoginAuthorized",
    "LoginRedirect",
    "McpOAuth",
    "OAuthAuthorizationRequired",
    "oauth_server",
    "server_of",
]

TOKEN_EXPIRY_SKEW_MS = 30_000
"""A stored access token counts as fresh until this long before its expiry."""

_REDIRECT_REGISTRATION_ERROR = re.compile(r"invalid_client_metadata|redirect_uri", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LoginAuthorized:
    """The login finished without a browser (a stored refresh token was accepted)."""


@dataclass(frozen=True, slots=True)
class LoginRedirect:
    """The login needs the browser: open ``authorization_url``; the code comes back to ``redirect_url``
    with ``state``."""

    authorization_url: str
    redirect_url: str
    state: str


def _state_of(authorization_url: object) -> str | None:
    if not isinstance(authorization_url, str):
        return None
    try:
        values = parse_qs(urlsplit(authorization_url).query, keep_blank_values=True).get("state")
    except ValueError:
        return None
    return normalized_text(values[0]) if values else None


class McpOAuth:
    """The MCP OAuth use cases over a credential store and the state leases.

    ``protocol`` is built per server by the caller (it carries that server's TLS and header settings).
    ``policy`` is the lease (scope, duration, wait); only tests shorten it.
    """

    def __init__(
        self,
        store: OAuthCredentialStore,
        leases: LeaseStore,
        clock: Clock,
        *,
        policy: LeasePolicy = MCP_OAUTH_LEASE,
    ) -> None:
        self.store = store
        self.leases = leases
        self.clock = clock
        self.policy = policy

    @asynccontextmanager
    async def _lease(self, store_key: str) -> Any:
        policy = self.policy
        async with self.leases.hold(
            policy.scope, store_key, duration_ms=policy.duration_ms, wait_ms=policy.wait_ms, label=policy.label
        ) as lease:
            yield lease

    # --- Token use (§7.9) ------------------------------------------------------------------------------

    async def resolve_access_token(
        self,
        server: OAuthServer,
        protocol: OAuthProtocol,
        *,
        accept_unknown_expiry: bool = False,
        allow_missing_token: bool = False,
        authorization_challenge: bool = False,
        interactive_authorization_required: bool = False,
        rejected_access_token: str | None = None,
        resource_metadata_url: str | None = None,
        scope: str | None = None,
    ) -> str | None:
        """The access token to send (refreshing it under the lease when needed), ``None`` only with
        ``allow_missing_token`` and no stored token. Raises :class:`OAuthAuthorizationRequired` (and
        :class:`OAuthFlowError`) with the reference's messages; network errors propagate unchanged."""
        scope = normalized_text(scope)
        async with self._lease(server.store_key) as lease:
            store = await self.store.read(server.store_key)
            await lease.verify()
            tokens = store.get("tokens") if isinstance(store.get("tokens"), dict) else None
            access = normalized_text(tokens.get("access_token")) if tokens else None
            rejected_current = rejected_access_token == (tokens or {}).get("access_token")
            applies = access is None or rejected_current
            if authorization_challenge and applies:
                interactive = interactive_authorization_required
                if resource_metadata_url or scope or interactive:
                    store = await self.store.update(
                        lease,
                        server.store_key,
                        lambda s: mutations.authorization_challenge(s, resource_metadata_url, scope, interactive, None),
                    )
                if interactive:
                    raise additional(server)
            challenge = store.get("pendingAuthorizationChallenge")
            if isinstance(challenge, dict) and challenge.get("requiresAuthorization") is True:
                raise additional(server)
            if access is None or tokens is None:
                if allow_missing_token:
                    return None
                raise required(server)
            expires_at = store.get("tokenExpiresAt")
            fresh = isinstance(expires_at, int | float) and expires_at > self.clock.now_ms() + TOKEN_EXPIRY_SKEW_MS
            if not rejected_current and (
                fresh or (expires_at is None and (accept_unknown_expiry or not tokens.get("refresh_token")))
            ):
                return access
            if not tokens.get("refresh_token"):
                raise OAuthAuthorizationRequired(
                    f'MCP server "{server.name}" has expired OAuth credentials. Run openclaw mcp login {server.name}.'
                )
            pending = challenge if isinstance(challenge, dict) else {}
            store = await self.store.update(lease, server.store_key, mutations.bind_tokens_issuer)
            attempt = Attempt(
                server=server,
                configured_redirect_url=server.redirect_url,
                allow_redirect=False,
                resource_metadata_url=resource_metadata_url or normalized_text(pending.get("resourceMetadataUrl")),
                scope=scope or normalized_text(pending.get("scope")) or server.scope,
            )
            flow = AuthFlow(self.store, self.clock, protocol, lease, attempt, store)
            result = await flow.auth()
            await lease.verify()
            refreshed = flow.tokens()
            token = normalized_text(refreshed.get("access_token")) if refreshed else None
            if result != "authorized" or token is None:
                raise OAuthAuthorizationRequired(
                    f'MCP server "{server.name}" could not refresh OAuth credentials. '
                    f"Run openclaw mcp login {server.name}."
                )
            return token

    async def record_authorization_required(
        self,
        server: OAuthServer,
        rejected_access_token: str | None,
        *,
        resource_metadata_url: str | None = None,
        scope: str | None = None,
    ) -> bool:
        """Persist a terminal rejection (``requiresAuthorization``) unless newer tokens were stored meanwhile;
        true when it was recorded."""
        async with self._lease(server.store_key) as lease:
            store = await self.store.read(server.store_key)
            await lease.verify()
            tokens = store.get("tokens") if isinstance(store.get("tokens"), dict) else {}
            if (tokens or {}).get("access_token") != rejected_access_token:
                return False
            applied = False

            def change(current: dict[str, Any]) -> dict[str, Any] | None:
                nonlocal applied
                updated = mutations.authorization_challenge(
                    current, resource_metadata_url, normalized_text(scope), True, rejected_access_token
                )
                applied = updated is not None
                return updated

            await self.store.update(lease, server.store_key, change)
            return applied

    # --- Login (§7.8) ----------------------------------------------------------------------------------

    async def login_start(self, server: OAuthServer, protocol: OAuthProtocol) -> LoginAuthorized | LoginRedirect:
        """Start a login: a stored refresh token may finish it at once; otherwise a PKCE authorization is
        prepared and persisted with its pending ``state``."""
        key = server.store_key
        async with self._lease(key) as lease:
            store = await self.store.read(key)
            await lease.verify()
            challenge = store.get("pendingAuthorizationChallenge")
            challenge = challenge if isinstance(challenge, dict) else {}
            configured = server.redirect_url or normalized_text(store.get("redirectUrl"))
            attempt = Attempt(
                server=server,
                configured_redirect_url=configured,
                allow_redirect=True,
                suppress_stored_tokens=challenge.get("requiresAuthorization") is True,
                resource_metadata_url=normalized_text(challenge.get("resourceMetadataUrl")),
                scope=normalized_text(challenge.get("scope")) or server.scope,
            )
            try:
                result = await AuthFlow(self.store, self.clock, protocol, lease, attempt, store).auth()
            except ApplicationError as exc:  # any port error (OAuth, network, store, lease) is matched by text
                # The reference matches ``String(error)``: an OAuth error shows its description, not its code.
                text = exc.description if isinstance(exc, OAuthErrorResponse) else str(exc)
                if server.redirect_url is None and _REDIRECT_REGISTRATION_ERROR.search(text):
                    lease.check()
                    attempt.configured_redirect_url = LOCALHOST_REDIRECT_URL
                    store = await self.store.read(key)
                    result = await AuthFlow(self.store, self.clock, protocol, lease, attempt, store).auth()
                else:
                    raise
            if result == "authorized":
                return LoginAuthorized()
            pending = await self.store.read(key)
            await lease.verify()
            url = pending.get("lastAuthorizationUrl")
            state = _state_of(url)
            redirect = normalized_text(pending.get("redirectUrl"))
            if not isinstance(url, str) or not pending.get("codeVerifier") or redirect is None or state is None:
                raise OAuthFlowError("MCP OAuth authorization session was not persisted.")
            await self.store.write_pending(lease, key, state)
            return LoginRedirect(authorization_url=url, redirect_url=redirect, state=state)

    async def login_complete(self, server: OAuthServer, protocol: OAuthProtocol, code: str) -> None:
        """Exchange the authorization ``code`` of the pending login and store the tokens."""
        authorization_code = normalized_text(code)
        if authorization_code is None:
            raise OAuthFlowError("Missing MCP OAuth authorization code. Run the login flow again.")
        key = server.store_key
        async with self._lease(key) as lease:
            store = await self.store.read(key)
            await lease.verify()
            redirect = normalized_text(store.get("redirectUrl"))
            if not normalized_text(store.get("codeVerifier")) or redirect is None:
                raise OAuthFlowError("Missing MCP OAuth authorization session. Run the login flow again.")
            challenge = store.get("pendingAuthorizationChallenge")
            challenge = challenge if isinstance(challenge, dict) else {}
            attempt = Attempt(
                server=server,
                configured_redirect_url=redirect,
                allow_redirect=True,
                suppress_stored_tokens=challenge.get("requiresAuthorization") is True,
                authorization_code=authorization_code,
                resource_metadata_url=normalized_text(challenge.get("resourceMetadataUrl")),
                scope=normalized_text(challenge.get("scope")) or server.scope,
            )
            result = await AuthFlow(self.store, self.clock, protocol, lease, attempt, store).auth()
            if result != "authorized":
                raise OAuthFlowError("MCP OAuth authorization did not complete. Run the login flow again.")
            await self.store.update(lease, key, mutations.complete_authorization)
            await self.store.delete_pending(lease, key)


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
