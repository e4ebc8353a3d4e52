"""The MCP OAuth flow (spec cli-registry §7.8, §7.9) against a real loopback authorization server, with the
in-memory credential store and leases: login start/completion, token use and refresh, challenges, and the
HTTP connector's OAuth bearer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx2
import pytest

from openclaw_mcp.adapters.http import HttpMcpConnector
from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol
from openclaw_mcp.adapters.memory.leases import InMemoryLeaseStore
from openclaw_mcp.adapters.memory.oauth_status import InMemoryOAuthStore
from openclaw_mcp.application.oauth import LoginAuthorized, LoginRedirect, McpOAuth, OAuthAuthorizationRequired
from openclaw_mcp.application.ports.mcp import McpError
from openclaw_mcp.application.ports.oauth import OAuthFlowError, OAuthServer
from openclaw_mcp.domain.transport import HttpConfig
from openclaw_mcp.entrypoints.oauth import oauth_server, request_auth
from tests.fixtures.http_servers import LoopbackServer
from tests.fixtures.oauth_server import OAuthAuthority
from tests.fixtures.oauth_server import oauth_server as serve_authority

pytestmark = pytest.mark.asyncio


class Clock:
    def __init__(self, now: int = 1_795_958_899_000) -> None:
        self.now = now

    def now_ms(self) -> int:
        return self.now


@dataclass
class World:
    authority: OAuthAuthority
    oauth: McpOAuth
    store: InMemoryOAuthStore
    clock: Clock
    server: OAuthServer
    protocol: HttpOAuthProtocol
    loopback: LoopbackServer

    async def stored(self) -> dict[str, Any]:
        return await self.store.read(self.server.store_key)


@asynccontextmanager
async def world(**options: Any) -> AsyncIterator[World]:
    authority = OAuthAuthority(**options)
    clock = Clock()
    leases = InMemoryLeaseStore()
    store = InMemoryOAuthStore(leases=leases)
    async with serve_authority(authority) as loopback:
        server = oauth_server("docs", loopback.url("/mcp"))
        async with HttpOAuthProtocol(server.url) as protocol:
            yield World(authority, McpOAuth(store, leases, clock), store, clock, server, protocol, loopback)


async def browse(authorization_url: str) -> dict[str, str]:
    """Play the browser: open the authorization URL and return the redirect's query parameters."""
    async with httpx2.AsyncClient(follow_redirects=False) as client:
        response = await client.get(authorization_url)
    assert response.status_code == 302
    return dict(parse_qsl(urlsplit(response.headers["location"]).query))


async def login(w: World) -> None:
    start = await w.oauth.login_start(w.server, w.protocol)
    assert isinstance(start, LoginRedirect)
    await w.oauth.login_complete(w.server, w.protocol, (await browse(start.authorization_url))["code"])


def http_config(url: str) -> HttpConfig:
    return HttpConfig(
        transport_type="streamable-http",
        url=url,
        headers={"Authorization": "Bearer configured-must-not-be-sent"},
        auth="oauth",
        oauth=None,
        ssl_verify=None,
        client_cert=None,
        client_key=None,
        description=url,
        connection_timeout_ms=4_000,
        request_timeout_ms=4_000,
        supports_parallel_tool_calls=False,
    )


async def connect_and_list(w: World) -> list[str]:
    connector = HttpMcpConnector(oauth=lambda _name, config: request_auth(w.oauth, w.server, config))
    config = http_config(w.server.url)
    async with connector.connect("docs", config, on_event=lambda _e: None, log=lambda _t: None) as connection:
        result = await connection.request("tools/list", None, timeout_ms=4_000)
        return [tool["name"] for tool in result["tools"]]


# --- login ---------------------------------------------------------------------------------------------


async def test_login_start_registers_a_client_and_persists_a_pkce_authorization_in_reference_order() -> None:
    with anyio.fail_after(5):
        async with world() as w:
            start = await w.oauth.login_start(w.server, w.protocol)
            assert isinstance(start, LoginRedirect)
            parts = urlsplit(start.authorization_url)
            assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{w.authority.origin}/authorize"
            params = parse_qsl(parts.query)
            assert [name for name, _ in params] == [
                "response_type",
                "client_id",
                "code_challenge",
                "code_challenge_method",
                "redirect_uri",
                "state",
                "scope",
                "resource",
            ]
            query = dict(params)
            assert query["client_id"] == "client-1"
            assert query["redirect_uri"] == "http://127.0.0.1:8989/oauth/callback"
            assert query["scope"] == "docs.read"
            assert query["resource"] == w.authority.resource
            assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A8989%2Foauth%2Fcallback&" in parts.query
            assert start.state == query["state"] and len(start.state) == 36
            assert start.redirect_url == "http://127.0.0.1:8989/oauth/callback"
            assert w.authority.registrations == [
                {
                    "client_name": "OpenClaw MCP",
                    "redirect_uris": ["http://127.0.0.1:8989/oauth/callback"],
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                    "token_endpoint_auth_method": "none",
                    "scope": "docs.read",
                }
            ]
            stored = await w.stored()
            assert list(stored) == [
                "discoveryState",
                "clientInformation",
                "codeVerifier",
                "lastAuthorizationUrl",
                "redirectUrl",
            ]
            assert stored["discoveryState"]["authorizationServerUrl"] == w.authority.origin
            assert stored["lastAuthorizationUrl"] == start.authorization_url
            assert w.store.pending[start.state].store_key == w.server.store_key
            assert w.authority.token_calls == 0


async def test_login_completion_exchanges_the_code_and_keeps_no_verifier() -> None:
    with anyio.fail_after(5):
        async with world() as w:
            await login(w)
            stored = await w.stored()
            assert list(stored) == [
                "discoveryState",
                "clientInformation",
                "tokens",
                "tokensAuthorizationServerUrl",
                "tokenExpiresAt",
            ]
            assert stored["tokens"] == {
                "access_token": "at-2",
                "token_type": "Bearer",
                "expires_in": 3600,
                "scope": "docs.read",
                "refresh_token": "rt-2",
            }
            assert stored["tokenExpiresAt"] == w.clock.now + 3_600_000
            assert stored["tokensAuthorizationServerUrl"] == w.authority.origin
            assert w.store.pending == {}
            (grant,) = w.authority.grants
            assert list(grant) == ["grant_type", "code", "code_verifier", "redirect_uri", "resource", "client_id"]
            assert grant["client_id"] == "client-1" and grant["resource"] == w.authority.resource


async def test_a_registration_refusing_the_default_redirect_is_retried_with_localhost() -> None:
    with anyio.fail_after(5):
        async with world(loopback_ip_redirects=False) as w:
            start = await w.oauth.login_start(w.server, w.protocol)
            assert isinstance(start, LoginRedirect)
            assert start.redirect_url == "http://localhost:8989/oauth/callback"
            assert [r["redirect_uris"] for r in w.authority.registrations] == [
                ["http://127.0.0.1:8989/oauth/callback"],
                ["http://localhost:8989/oauth/callback"],
            ]


async def test_a_configured_scope_is_requested_with_form_encoding() -> None:
    with anyio.fail_after(5):
        async with world() as w:
            server = oauth_server(
                "docs", w.server.url, scope=" docs.read docs.write ", redirect_url="http://[::1]:1/cb"
            )
            start = await w.oauth.login_start(server, w.protocol)
            assert isinstance(start, LoginRedirect)
            assert "&scope=docs.read+docs.write&" in start.authorization_url
            assert "&redirect_uri=http%3A%2F%2F%5B%3A%3A1%5D%3A1%2Fcb&" in start.authorization_url
            assert w.authority.registrations[0]["scope"] == "docs.read docs.write"


async def test_login_completion_without_a_pending_session_fails_with_the_reference_message() -> None:
    with anyio.fail_after(5):
        async with world() as w:
            with pytest.raises(OAuthFlowError) as missing:
                await w.oauth.login_complete(w.server, w.protocol, "abc")
            assert str(missing.value) == "Missing MCP OAuth authorization session. Run the login flow again."
            with pytest.raises(OAuthFlowError) as blank:
                await w.oauth.login_complete(w.server, w.protocol, "  ")
            assert str(blank.value) == "Missing MCP OAuth authorization code. Run the login flow again."


async def test_a_second_login_with_a_stored_refresh_token_needs_no_browser() -> None:
    with anyio.fail_after(5):
        async with world() as w:
            await login(w)
            assert isinstance(await w.oauth.login_start(w.server, w.protocol), LoginAuthorized)
            assert [grant["grant_type"] for grant in w.authority.grants] == ["authorization_code", "refresh_token"]
            assert list(w.authority.grants[1]) == ["grant_type", "refresh_token", "resource", "client_id"]
            assert (await w.stored())["tokens"]["access_token"] == w.authority.latest_access_token


# --- token use -----------------------------------------------------------------------------------------


async def test_a_fresh_token_is_used_without_contacting_the_token_endpoint() -> None:
    with anyio.fail_after(5):
        async with world() as w:
            await login(w)
            calls = w.authority.token_calls
            assert await w.oauth.resolve_access_token(w.server, w.protocol) == "at-2"
            assert w.authority.token_calls == calls


async def test_an_expiring_token_is_refreshed_and_the_rotated_tokens_are_stored() -> None:
    with anyio.fail_after(5):
        async with world() as w:
            await login(w)
            w.clock.now += 3_600_000 - 30_000  # inside the 30 s skew
            assert await w.oauth.resolve_access_token(w.server, w.protocol) == "at-3"
            stored = await w.stored()
            # ``{refresh_token: old, ...tokens}``: the refresh token key comes first, with the new value.
            assert list(stored["tokens"]) == ["refresh_token", "access_token", "token_type", "expires_in", "scope"]
            assert stored["tokens"]["refresh_token"] == "rt-3"
            assert stored["tokenExpiresAt"] == w.clock.now + 3_600_000
            assert await w.oauth.resolve_access_token(w.server, w.protocol) == "at-3"
            assert w.authority.token_calls == 2


async def test_a_rejected_refresh_token_clears_the_tokens_and_asks_for_a_login() -> None:
    with anyio.fail_after(5):
        async with world() as w:
            await login(w)
            w.authority.refresh_tokens.clear()  # e.g. another host rotated it
            w.clock.now += 4_000_000
            with pytest.raises(OAuthAuthorizationRequired) as failure:
                await w.oauth.resolve_access_token(w.server, w.protocol)
            assert str(failure.value) == 'MCP server "docs" requires OAuth authorization. Run openclaw mcp login docs.'
            stored = await w.stored()
            assert stored["credentialState"] == "cleared" and "tokens" not in stored


async def test_an_expired_token_without_refresh_token_asks_for_a_login() -> None:
    with anyio.fail_after(5):
        async with world() as w:
            await login(w)
            key = w.server.store_key
            w.store.stores[key]["tokens"] = {"access_token": "at-2", "token_type": "Bearer", "expires_in": 3600}
            w.clock.now += 4_000_000
            with pytest.raises(OAuthAuthorizationRequired) as failure:
                await w.oauth.resolve_access_token(w.server, w.protocol)
            assert str(failure.value) == (
                'MCP server "docs" has expired OAuth credentials. Run openclaw mcp login docs.'
            )


async def test_a_connection_sends_the_oauth_token_instead_of_a_configured_authorization_header() -> None:
    with anyio.fail_after(10):
        async with world() as w:
            await login(w)
            assert await connect_and_list(w)
            assert w.authority.token_calls == 1
            authorizations = {request.headers.get("authorization") for request in w.loopback.requests_to("/mcp")}
            assert authorizations == {"Bearer at-2"}


async def test_missing_credentials_fail_the_connect_with_the_login_hint_and_record_the_challenge() -> None:
    with anyio.fail_after(10):
        async with world() as w:
            with pytest.raises(McpError) as failure:
                await connect_and_list(w)
            assert str(failure.value) == 'MCP server "docs" requires OAuth authorization. Run openclaw mcp login docs.'
            assert await w.stored() == {
                "pendingAuthorizationChallenge": {"resourceMetadataUrl": w.authority.resource_metadata_url},
                "credentialState": "uninitialized",
            }


async def test_insufficient_scope_requires_a_new_login_until_it_happens() -> None:
    with anyio.fail_after(10):
        async with world() as w:
            await login(w)
            w.authority.insufficient_scope = True
            with pytest.raises(McpError) as failure:
                await connect_and_list(w)
            message = 'MCP server "docs" requires additional OAuth authorization. Run openclaw mcp login docs.'
            assert str(failure.value) == message
            stored = await w.stored()
            assert stored["pendingAuthorizationChallenge"] == {
                "resourceMetadataUrl": w.authority.resource_metadata_url,
                "scope": "docs.write",
                "requiresAuthorization": True,
            }
            calls = w.authority.token_calls
            with pytest.raises(OAuthAuthorizationRequired) as again:
                await w.oauth.resolve_access_token(w.server, w.protocol)
            assert str(again.value) == message
            assert w.authority.token_calls == calls
            # The next login withholds the stored refresh token and asks for the challenged scope.
            start = await w.oauth.login_start(w.server, w.protocol)
            assert isinstance(start, LoginRedirect)
            assert dict(parse_qsl(urlsplit(start.authorization_url).query))["scope"] == "docs.write"
            assert w.authority.token_calls == calls
            await w.oauth.login_complete(w.server, w.protocol, (await browse(start.authorization_url))["code"])
            stored = await w.stored()
            assert "pendingAuthorizationChallenge" not in stored
            w.authority.insufficient_scope = False
            assert await w.oauth.resolve_access_token(w.server, w.protocol) == w.authority.latest_access_token


async def test_a_token_rejected_twice_is_recorded_as_requiring_authorization() -> None:
    with anyio.fail_after(10):
        async with world() as w:
            await login(w)
            w.authority.reject_all = True
            with pytest.raises(McpError):
                await connect_and_list(w)
            stored = await w.stored()
            # One refresh after the first 401 (re-discovering from the challenge's metadata URL), then the
            # retry's 401 is recorded against the refreshed token.
            assert [grant["grant_type"] for grant in w.authority.grants] == ["authorization_code", "refresh_token"]
            assert stored["tokens"]["access_token"] == w.authority.latest_access_token
            assert stored["pendingAuthorizationChallenge"] == {
                "resourceMetadataUrl": w.authority.resource_metadata_url,
                "requiresAuthorization": True,
            }
            assert stored["discoveryState"]["resourceMetadataUrl"] == w.authority.resource_metadata_url
