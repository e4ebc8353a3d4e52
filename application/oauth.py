"""MCP OAuth use cases (spec cli-registry §7.6–§7.9): login start and completion, token resolution with
refresh under the cross-process lease, and recording an authorization-required challenge.

Every step that reads and writes a credential store runs under that store's ``core:mcp-oauth`` lease
(:data:`application.ports.leases.MCP_OAUTH_LEASE`, injectable for tests). The OAuth network requests a lease
holder makes are cancelled when the lease is lost, and every write re-checks ownership (the store does).

The orchestration in :func:`_Flow.auth` is the reference's use of the MCP SDK's ``auth()``: discovery
(reusing the stored ``discoveryState``), client registration, then a code exchange, a refresh grant or a
new PKCE authorization. The wire steps themselves are the :class:`~application.ports.oauth.OAuthProtocol`
port (the MCP SDK's helpers in ``adapters.http.oauth``).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal, TypeVar
from urllib.parse import parse_qs, urlsplit

import anyio

from application.ports.clock import Clock
from application.ports.leases import MCP_OAUTH_LEASE, Lease, LeasePolicy, LeaseStore
from application.ports.oauth import (
    DEFAULT_REDIRECT_URL,
    LOCALHOST_REDIRECT_URL,
    OAuthCredentialStore,
    OAuthErrorResponse,
    OAuthFlowError,
    OAuthProtocol,
    OAuthServer,
)
from domain import oauth_store as mutations

__all__ = [
    "TOKEN_EXPIRY_SKEW_MS",
    "LoginAuthorized",
    "LoginRedirect",
    "McpOAuth",
    "OAuthAuthorizationRequired",
]

TOKEN_EXPIRY_SKEW_MS = 30_000
"""A stored access token counts as fresh until this long before its expiry."""

_REDIRECT_REGISTRATION_ERROR = re.compile(r"invalid_client_metadata|redirect_uri", re.IGNORECASE)
_INVALIDATE_ALL = frozenset({"invalid_client", "unauthorized_client"})

T = TypeVar("T")


class OAuthAuthorizationRequired(OAuthFlowError):
    """The server needs a (new) interactive login; the message names ``openclaw mcp login <name>``."""


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


def _text(value: object) -> str | None:
    """The reference's ``normalizeOptionalString``: a trimmed non-empty string, else ``None``."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _state_of(authorization_url: object) -> str | None:
    if not isinstance(authorization_url, str):
        return None
    try:
        values = parse_qs(urlsplit(authorization_url).query, keep_blank_values=True).get("state")
    except ValueError:
        return None
    return _text(values[0]) if values else None


def _required(server: OAuthServer) -> OAuthAuthorizationRequired:
    return OAuthAuthorizationRequired(
        f'MCP server "{server.name}" requires OAuth authorization. Run openclaw mcp login {server.name}.'
    )


def _additional(server: OAuthServer) -> OAuthAuthorizationRequired:
    return OAuthAuthorizationRequired(
        f'MCP server "{server.name}" requires additional OAuth authorization. Run openclaw mcp login {server.name}.'
    )


@dataclass(slots=True)
class _Attempt:
    """One run of the SDK ``auth()`` algorithm: its options and the provider's settings."""

    server: OAuthServer
    configured_redirect_url: str | None
    allow_redirect: bool
    suppress_stored_tokens: bool = False
    authorization_code: str | None = None
    resource_metadata_url: str | None = None
    scope: str | None = None


class _Flow:
    """The SDK provider of one attempt, backed by the credential store under ``lease``."""

    def __init__(
        self, oauth: McpOAuth, protocol: OAuthProtocol, lease: Lease, attempt: _Attempt, store: dict[str, Any]
    ) -> None:
        self._oauth = oauth
        self._protocol = protocol
        self._lease = lease
        self._attempt = attempt
        self.store = store
        self._verifier: str | None = None

    async def _update(self, change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
        self.store = await self._oauth.store.update(self._lease, self._attempt.server.store_key, change)

    async def _net(self, call: Callable[[], Awaitable[T]]) -> T:
        return await self._oauth.fenced(self._lease, call)

    @property
    def redirect_url(self) -> str:
        return self._attempt.configured_redirect_url or _text(self.store.get("redirectUrl")) or DEFAULT_REDIRECT_URL

    def client_metadata(self) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "client_name": "OpenClaw MCP",
            "redirect_uris": [self.redirect_url],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        if self._attempt.server.scope is not None:
            metadata["scope"] = self._attempt.server.scope
        return metadata

    def tokens(self) -> dict[str, Any] | None:
        if self._attempt.suppress_stored_tokens:
            return None
        tokens = self.store.get("tokens")
        if not isinstance(tokens, dict):
            return None
        discovery = self.store.get("discoveryState")
        discovered = discovery.get("authorizationServerUrl") if isinstance(discovery, dict) else None
        if not tokens.get("refresh_token") or discovered is None:
            return tokens
        issuer = self.store.get("tokensAuthorizationServerUrl")
        return tokens if issuer is not None and issuer == discovered else None

    async def _save_tokens(self, tokens: dict[str, Any]) -> None:
        now = self._oauth.clock.now_ms()
        await self._update(lambda store: mutations.set_tokens(store, tokens, now))

    def _redirect_allowed(self) -> None:
        if not self._attempt.allow_redirect:
            raise _required(self._attempt.server)

    async def _discover(self) -> tuple[str, dict[str, Any] | None, dict[str, Any] | None]:
        attempt, protocol = self._attempt, self._protocol
        cached = self.store.get("discoveryState")
        cached = cached if isinstance(cached, dict) else None
        resource_metadata_url = attempt.resource_metadata_url or (
            _text(cached.get("resourceMetadataUrl")) if cached else None
        )
        resource_metadata: dict[str, Any] | None
        if cached is not None and cached.get("authorizationServerUrl"):
            as_url = str(cached["authorizationServerUrl"])
            resource_metadata = cached.get("resourceMetadata")
            metadata = cached.get("authorizationServerMetadata")
            changed = False
            if metadata is None:
                metadata = await self._net(lambda: protocol.discover_authorization_server_metadata(as_url))
                changed = metadata is not None
            if resource_metadata is None:
                try:
                    resource_metadata = await self._net(
                        lambda: protocol.discover_resource_metadata(attempt.server.url, resource_metadata_url)
                    )
                    changed = True
                except Exception:
                    self._lease.check()
            if not changed:
                return as_url, metadata, resource_metadata
        else:
            resource_metadata = None
            as_url = ""
            try:
                resource_metadata = await self._net(
                    lambda: protocol.discover_resource_metadata(attempt.server.url, resource_metadata_url)
                )
                servers = resource_metadata.get("authorization_servers")
                if isinstance(servers, list) and servers and isinstance(servers[0], str):
                    as_url = servers[0]
            except Exception:
                self._lease.check()
            if not as_url:
                parts = urlsplit(attempt.server.url)
                as_url = f"{parts.scheme}://{parts.netloc}/"
            found = as_url
            metadata = await self._net(lambda: protocol.discover_authorization_server_metadata(found))
        state: dict[str, Any] = {"authorizationServerUrl": as_url}
        if resource_metadata_url is not None:
            state["resourceMetadataUrl"] = resource_metadata_url
        if resource_metadata is not None:
            state["resourceMetadata"] = resource_metadata
        if metadata is not None:
            state["authorizationServerMetadata"] = metadata
        await self._update(lambda store: mutations.set_discovery_state(store, state))
        return as_url, metadata, resource_metadata

    async def auth(self) -> Literal["authorized", "redirect"]:
        """The SDK ``auth()``: one retry after invalidating credentials the server rejected."""
        try:
            return await self._auth_internal()
        except OAuthErrorResponse as exc:
            scope: mutations.InvalidateScope
            if exc.error in _INVALIDATE_ALL:
                scope = "all"
            elif exc.error == "invalid_grant":
                scope = "tokens"
            else:
                raise
            suppress = self._attempt.suppress_stored_tokens
            await self._update(lambda store: mutations.invalidate(store, scope, suppress))
            return await self._auth_internal()

    async def _auth_internal(self) -> Literal["authorized", "redirect"]:
        attempt, protocol = self._attempt, self._protocol
        server = attempt.server
        as_url, metadata, resource_metadata = await self._discover()
        resource = protocol.select_resource(server.url, resource_metadata)
        supported = resource_metadata.get("scopes_supported") if resource_metadata else None
        resolved_scope = (
            attempt.scope
            or (" ".join(str(s) for s in supported) if isinstance(supported, list) and supported else None)
            or server.scope
        )
        stored_client = self.store.get("clientInformation")
        client: dict[str, Any]
        if isinstance(stored_client, dict):
            client = stored_client
        else:
            if attempt.authorization_code is not None:
                raise OAuthFlowError(
                    "Existing OAuth client information is required when exchanging an authorization code"
                )
            url_client_id = server.client_metadata_url
            if url_client_id is not None and (metadata or {}).get("client_id_metadata_document_supported") is True:
                client = {"client_id": url_client_id}
            else:
                body = self.client_metadata()
                if resolved_scope is not None:
                    body["scope"] = resolved_scope
                client = await self._net(lambda: protocol.register_client(as_url, metadata, body))
            information = client
            await self._update(lambda store: mutations.set_client_information(store, information))
        if attempt.authorization_code is not None:
            verifier = self._verifier or _text(self.store.get("codeVerifier"))
            if verifier is None:
                raise OAuthFlowError("Missing MCP OAuth code verifier. Run the login flow again.")
            code, redirect = attempt.authorization_code, self.redirect_url
            tokens = await self._net(
                lambda: protocol.exchange_code(
                    as_url,
                    metadata,
                    client,
                    code=code,
                    code_verifier=verifier,
                    redirect_url=redirect,
                    resource=resource,
                )
            )
            await self._save_tokens(tokens)
            return "authorized"
        stored = self.tokens()
        refresh_token = _text(stored.get("refresh_token")) if stored else None
        if refresh_token is not None:
            try:
                tokens = await self._net(
                    lambda: protocol.refresh(as_url, metadata, client, refresh_token=refresh_token, resource=resource)
                )
            except OAuthErrorResponse as exc:
                if exc.error != "server_error":
                    raise
            except OAuthFlowError:
                pass
            except Exception:
                self._lease.check()  # a network failure: the SDK falls through to a new authorization
            else:
                await self._save_tokens(tokens)
                return "authorized"
        self._redirect_allowed()
        state = str(uuid.uuid4())
        start = protocol.start_authorization(
            as_url,
            metadata,
            client,
            redirect_url=self.redirect_url,
            scope=resolved_scope,
            state=state,
            resource=resource,
        )
        self._verifier = start.code_verifier
        configured = attempt.configured_redirect_url
        await self._update(
            lambda store: mutations.authorization_redirect(
                store, start.code_verifier, start.authorization_url, configured
            )
        )
        return "redirect"


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

    async def fenced(self, lease: Lease, call: Callable[[], Awaitable[T]]) -> T:
        """Run one network step of a lease holder; it is cancelled if the lease is lost meanwhile."""
        lease.check()
        done: list[T] = []
        failures: list[Exception] = []
        async with anyio.create_task_group() as tg:

            async def watch() -> None:
                await lease.wait_lost()
                tg.cancel_scope.cancel()

            tg.start_soon(watch)
            try:
                done.append(await call())
            except Exception as exc:
                # Re-raised below, outside the task group, so callers see it unchanged (not grouped).
                failures.append(exc)
            finally:
                tg.cancel_scope.cancel()
        lease.check()
        if failures:
            raise failures.pop()
        return done[0]

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
        scope = _text(scope)
        async with self._lease(server.store_key) as lease:
            store = await self.store.read(server.store_key)
            await lease.verify()
            tokens = store.get("tokens") if isinstance(store.get("tokens"), dict) else None
            access = _text(tokens.get("access_token")) if tokens else None
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
                    raise _additional(server)
            challenge = store.get("pendingAuthorizationChallenge")
            if isinstance(challenge, dict) and challenge.get("requiresAuthorization") is True:
                raise _additional(server)
            if access is None or tokens is None:
                if allow_missing_token:
                    return None
                raise _required(server)
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
            attempt = _Attempt(
                server=server,
                configured_redirect_url=server.redirect_url,
                allow_redirect=False,
                resource_metadata_url=resource_metadata_url or _text(pending.get("resourceMetadataUrl")),
                scope=scope or _text(pending.get("scope")) or server.scope,
            )
            flow = _Flow(self, protocol, lease, attempt, store)
            result = await flow.auth()
            await lease.verify()
            refreshed = flow.tokens()
            token = _text(refreshed.get("access_token")) if refreshed else None
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
                    current, resource_metadata_url, _text(scope), True, rejected_access_token
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
            configured = server.redirect_url or _text(store.get("redirectUrl"))
            attempt = _Attempt(
                server=server,
                configured_redirect_url=configured,
                allow_redirect=True,
                suppress_stored_tokens=challenge.get("requiresAuthorization") is True,
                resource_metadata_url=_text(challenge.get("resourceMetadataUrl")),
                scope=_text(challenge.get("scope")) or server.scope,
            )
            try:
                result = await _Flow(self, protocol, lease, attempt, store).auth()
            except Exception as exc:
                # The reference matches ``String(error)``: an OAuth error shows its description, not its code.
                text = exc.description if isinstance(exc, OAuthErrorResponse) else str(exc)
                if server.redirect_url is None and _REDIRECT_REGISTRATION_ERROR.search(text):
                    lease.check()
                    attempt.configured_redirect_url = LOCALHOST_REDIRECT_URL
                    store = await self.store.read(key)
                    result = await _Flow(self, protocol, lease, attempt, store).auth()
                else:
                    raise
            if result == "authorized":
                return LoginAuthorized()
            pending = await self.store.read(key)
            await lease.verify()
            url = pending.get("lastAuthorizationUrl")
            state = _state_of(url)
            redirect = _text(pending.get("redirectUrl"))
            if not isinstance(url, str) or not pending.get("codeVerifier") or redirect is None or state is None:
                raise OAuthFlowError("MCP OAuth authorization session was not persisted.")
            await self.store.write_pending(lease, key, state)
            return LoginRedirect(authorization_url=url, redirect_url=redirect, state=state)

    async def login_complete(self, server: OAuthServer, protocol: OAuthProtocol, code: str) -> None:
        """Exchange the authorization ``code`` of the pending login and store the tokens."""
        authorization_code = _text(code)
        if authorization_code is None:
            raise OAuthFlowError("Missing MCP OAuth authorization code. Run the login flow again.")
        key = server.store_key
        async with self._lease(key) as lease:
            store = await self.store.read(key)
            await lease.verify()
            redirect = _text(store.get("redirectUrl"))
            if not _text(store.get("codeVerifier")) or redirect is None:
                raise OAuthFlowError("Missing MCP OAuth authorization session. Run the login flow again.")
            challenge = store.get("pendingAuthorizationChallenge")
            challenge = challenge if isinstance(challenge, dict) else {}
            attempt = _Attempt(
                server=server,
                configured_redirect_url=redirect,
                allow_redirect=True,
                suppress_stored_tokens=challenge.get("requiresAuthorization") is True,
                authorization_code=authorization_code,
                resource_metadata_url=_text(challenge.get("resourceMetadataUrl")),
                scope=_text(challenge.get("scope")) or server.scope,
            )
            result = await _Flow(self, protocol, lease, attempt, store).auth()
            if result != "authorized":
                raise OAuthFlowError("MCP OAuth authorization did not complete. Run the login flow again.")
            await self.store.update(lease, key, mutations.complete_authorization)
            await self.store.delete_pending(lease, key)
