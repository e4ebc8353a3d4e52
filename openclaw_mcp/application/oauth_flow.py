"""One run of the MCP SDK's OAuth ``auth()`` algorithm (spec cli-registry §7.8.1, §7.9) over the
:class:`~application.ports.oauth.OAuthProtocol` port and one credential store held under its lease:
discovery (reusing the stored ``discoveryState``), client registration, then a code exchange, a refresh
grant or a new PKCE authorization."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

import anyio

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.leases import Lease
from openclaw_mcp.application.ports.oauth import (
    DEFAULT_REDIRECT_URL,
    OAuthCredentialStore,
    OAuthErrorResponse,
    OAuthFlowError,
    OAuthNetworkError,
    OAuthProtocol,
    OAuthServer,
)
from openclaw_mcp.domain import oauth_store as mutations

__all__ = [
    "Attempt",
    "AuthFlow",
    "OAuthAuthorizationRequired",
    "additional",
    "fenced",
    "normalized_text",
    "required",
]

_INVALIDATE_ALL = frozenset({"invalid_client", "unauthorized_client"})

T = TypeVar("T")


class OAuthAuthorizationRequired(OAuthFlowError):
    """The server needs a (new) interactive login; the message names ``openclaw mcp login <name>``."""


def normalized_text(value: object) -> str | None:
    """The reference's ``normalizeOptionalString``: a trimmed non-empty string, else ``None``."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def required(server: OAuthServer) -> OAuthAuthorizationRequired:
    """``… requires OAuth authorization. Run openclaw mcp login <name>.``"""
    return OAuthAuthorizationRequired(
        f'MCP server "{server.name}" requires OAuth authorization. Run openclaw mcp login {server.name}.'
    )


def additional(server: OAuthServer) -> OAuthAuthorizationRequired:
    """``… requires additional OAuth authorization. Run openclaw mcp login <name>.``"""
    return OAuthAuthorizationRequired(
        f'MCP server "{server.name}" requires additional OAuth authorization. Run openclaw mcp login {server.name}.'
    )


async def fenced(lease: Lease, call: Callable[[], Awaitable[T]]) -> T:
    """Run one network step of a lease holder; it is cancelled if the lease is lost meanwhile."""
    lease.check()
    done: list[T] = []
    failures: list[ApplicationError] = []
    async with anyio.create_task_group() as tg:

        async def watch() -> None:
            await lease.wait_lost()
            tg.cancel_scope.cancel()

        tg.start_soon(watch)
        try:
            done.append(await call())
        except ApplicationError as exc:  # the port errors (OAuth, network, lease, store)
            # Re-raised below, outside the task group, so callers see it unchanged (not grouped).
            failures.append(exc)
        finally:
            tg.cancel_scope.cancel()
    lease.check()
    if failures:
        raise failures.pop()
    return done[0]


@dataclass(slots=True)
class Attempt:
    """One run of the SDK ``auth()`` algorithm: its options and the provider's settings."""

    server: OAuthServer
    configured_redirect_url: str | None
    allow_redirect: bool
    suppress_stored_tokens: bool = False
    authorization_code: str | None = None
    resource_metadata_url: str | None = None
    scope: str | None = None


class AuthFlow:
    """The SDK provider of one attempt, backed by the credential store under ``lease``."""

    def __init__(
        self,
        credentials: OAuthCredentialStore,
        clock: Clock,
        protocol: OAuthProtocol,
        lease: Lease,
        attempt: Attempt,
        store: dict[str, Any],
    ) -> None:
        self._credentials = credentials
        self._clock = clock
        self._protocol = protocol
        self._lease = lease
        self._attempt = attempt
        self.store = store
        self._verifier: str | None = None

    async def _update(self, change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
        self.store = await self._credentials.update(self._lease, self._attempt.server.store_key, change)

    async def _net(self, call: Callable[[], Awaitable[T]]) -> T:
        return await fenced(self._lease, call)

    @property
    def redirect_url(self) -> str:
        return (
            self._attempt.configured_redirect_url
            or normalized_text(self.store.get("redirectUrl"))
            or DEFAULT_REDIRECT_URL
        )

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
        now = self._clock.now_ms()
        await self._update(lambda store: mutations.set_tokens(store, tokens, now))

    def _redirect_allowed(self) -> None:
        if not self._attempt.allow_redirect:
            raise required(self._attempt.server)

    async def _discover(self) -> tuple[str, dict[str, Any] | None, dict[str, Any] | None]:
        attempt, protocol = self._attempt, self._protocol
        cached = self.store.get("discoveryState")
        cached = cached if isinstance(cached, dict) else None
        resource_metadata_url = attempt.resource_metadata_url or (
            normalized_text(cached.get("resourceMetadataUrl")) if cached else None
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
                except (OAuthFlowError, OAuthNetworkError):
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
            except (OAuthFlowError, OAuthNetworkError):
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
            verifier = self._verifier or normalized_text(self.store.get("codeVerifier"))
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
        refresh_token = normalized_text(stored.get("refresh_token")) if stored else None
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
            except OAuthNetworkError:
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
