"""Issue 32, OAuth hardening: hostile authorization servers on loopback against real ``openclaw mcp login``
processes, the runtime's token refresh (``openclaw mcp probe``) and the OAuth wire adapter.

- every OAuth fetch goes through the HTTP transport's guard: an authorization server on another loopback
  port, or a redirect there, is refused before any byte is sent (the reference's ``Blocked hostname or
  private/internal/special-use IP address``), and configured headers never cross origins;
- a hostile ``authorization_endpoint`` is printed WHATWG-normalised (control characters percent-encoded);
- metadata and token answers are bounded in size and in total time (beyond the reference);
- authorization server metadata must name the URL it came from as its ``issuer`` (RFC 8414 §3.3);
- a malformed request to the callback listener is answered ``400`` and the login keeps waiting.

Expected texts of the refusals and of the printed URL were checked against the reference CLI (OpenClaw
2026.9.6) with the same fixture server.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol
from openclaw_mcp.adapters.http.oauth_callback import CallbackResult, oauth_callback_listener
from openclaw_mcp.application.ports.oauth import OAuthFlowError, OAuthNetworkError
from tests.fixtures.http_servers import LoopbackServer
from tests.fixtures.oauth_server import OAuthAuthority
from tests.fixtures.oauth_server import oauth_server as serve_authority
from tests.fixtures.ports import free_port
from tests.unit.test_oauth_cli import browse, callback_login, login, run, write_servers

pytestmark = pytest.mark.asyncio

BLOCKED = "Blocked hostname or private/internal/special-use IP address"
RESOURCE_METADATA = "/.well-known/oauth-protected-resource/mcp"
AS_METADATA = "/.well-known/oauth-authorization-server"
API_KEY = "KEY-must-stay-home"
MAX_OAUTH_RESPONSE_BYTES = 1_048_576  # the cap decided for OAuth answers (adapters.http.oauth)


def docs(url: str, **extra: Any) -> dict[str, Any]:
    return {
        "url": url,
        "transport": "streamable-http",
        "auth": "oauth",
        "headers": {"X-Api-Key": API_KEY},
        "oauth": {"redirectUrl": f"http://127.0.0.1:{free_port()}/oauth/callback"},
        **extra,
    }


def reason(stderr: bytes) -> str:
    lines = [line for line in stderr.decode().splitlines() if line.startswith("[openclaw] Reason: ")]
    assert len(lines) == 1, stderr.decode()
    return lines[0].removeprefix("[openclaw] Reason: ")


@asynccontextmanager
async def two_servers(authority: OAuthAuthority) -> AsyncIterator[tuple[LoopbackServer, LoopbackServer]]:
    """The server under test and a bystander authority on another loopback port."""
    async with serve_authority(OAuthAuthority(prefix="OTHER-")) as other, serve_authority(authority) as server:
        yield server, other


# --- defect 11: SSRF guard and same-origin headers -------------------------------------------------------


async def test_login_refuses_an_authorization_server_on_another_loopback_port(tmp_path: Path) -> None:
    authority = OAuthAuthority(prefix="SECRET-")
    with anyio.fail_after(60):
        async with two_servers(authority) as (server, other):
            authority.authorization_server = other.origin
            write_servers(tmp_path, {"docs": docs(server.url("/mcp"))})
            result = await run(tmp_path, "login", "docs")
    assert result.returncode == 1 and result.stdout == b""
    assert reason(result.stderr) == BLOCKED
    assert other.requests == []  # no discovery, no registration, no code, verifier or secret sent there


async def test_login_never_follows_metadata_redirects_to_another_origin(tmp_path: Path) -> None:
    authority = OAuthAuthority(prefix="SECRET-")
    with anyio.fail_after(60):
        async with two_servers(authority) as (server, other):
            authority.redirects[RESOURCE_METADATA] = other.url(RESOURCE_METADATA)
            authority.redirects[AS_METADATA] = other.url(AS_METADATA)
            write_servers(tmp_path, {"docs": docs(server.url("/mcp"))})
            result = await run(tmp_path, "login", "docs")
    assert result.returncode == 1
    assert reason(result.stderr) == BLOCKED
    assert other.requests == []
    assert server.requests_to(AS_METADATA)[0].headers["x-api-key"] == API_KEY  # configured headers: home only


async def test_a_cross_origin_redirect_keeps_only_the_safe_headers() -> None:
    # The header policy on its own: the SSRF rule lifted so that a loopback origin can play "elsewhere".
    authority = OAuthAuthority()
    with anyio.fail_after(20):
        async with two_servers(authority) as (server, other):
            authority.redirects[RESOURCE_METADATA] = other.url(RESOURCE_METADATA)
            url = server.url("/mcp")
            protocol = HttpOAuthProtocol(url, headers={"X-Api-Key": API_KEY}, timeout_s=10, block_private_origins=False)
            async with protocol:
                await protocol.discover_resource_metadata(url, None)
    assert server.requests_to(RESOURCE_METADATA)[0].headers["x-api-key"] == API_KEY
    (arrived,) = other.requests_to(RESOURCE_METADATA)
    assert "x-api-key" not in arrived.headers


async def test_token_refresh_never_replays_the_refresh_token_to_another_origin(tmp_path: Path) -> None:
    authority = OAuthAuthority(prefix="SECRET-", expires_in=1)  # stale at once: every use refreshes
    with anyio.fail_after(90):
        async with two_servers(authority) as (server, other):
            write_servers(tmp_path, {"docs": docs(server.url("/mcp"))})
            await callback_login(tmp_path)
            authority.redirects["/token"] = other.url("/token")
            probe = await run(tmp_path, "probe", "docs", "--json")
    assert other.requests == []
    output = probe.stdout.decode() + probe.stderr.decode()
    assert "SECRET-" not in output
    assert 'MCP server \\"docs\\" requires OAuth authorization. Run openclaw mcp login docs.' in output


# --- defect 13: the printed authorization URL ------------------------------------------------------------


async def test_login_prints_a_hostile_authorization_endpoint_whatwg_normalised(tmp_path: Path) -> None:
    authority = OAuthAuthority()
    with anyio.fail_after(60):
        async with serve_authority(authority) as server:
            authority.authorization_endpoint = server.url("/authorize\x1b[31mRED\x07\x1b]0;title\x07")
            write_servers(tmp_path, {"docs": docs(server.url("/mcp"))})
            async with login(tmp_path, "docs") as running:
                assert await running.line() == 'Open this URL to authorize "docs":'
                url = await running.line()
                running.process.kill()
    assert url.startswith(f"{server.origin}/authorize%1B[31mRED%07%1B]0;title?response_type=code&client_id=client-1&")
    assert "\x1b" not in url and "\\x" not in url and url.isprintable() and url.isascii()


async def test_the_authorization_url_sets_parameters_like_url_search_params() -> None:
    protocol = HttpOAuthProtocol("http://127.0.0.1:9/mcp")
    metadata = {
        "authorization_endpoint": "https://as.example.com/a b?state=old&keep=x%20y&state=dup#frag",
        "response_types_supported": ["code"],
    }
    start = protocol.start_authorization(
        "https://as.example.com",
        metadata,
        {"client_id": "c 1"},
        redirect_url="http://127.0.0.1:1/cb",
        scope="a offline_access",
        state="st",
        resource=None,
    )
    await protocol.aclose()
    head, _, query = start.authorization_url.partition("?")
    assert head == "https://as.example.com/a%20b"
    names = [pair.split("=")[0] for pair in query.split("#")[0].split("&")]
    assert names == [
        "state",
        "keep",
        "response_type",
        "client_id",
        "code_challenge",
        "code_challenge_method",
        "redirect_uri",
        "scope",
        "prompt",
    ]
    assert "state=st&keep=x+y&" in query and "client_id=c+1" in query and query.endswith("#frag")


async def test_an_unparsable_authorization_endpoint_fails_the_flow() -> None:
    protocol = HttpOAuthProtocol("http://127.0.0.1:9/mcp")
    metadata = {"authorization_endpoint": "http://exa mple.com/authorize", "response_types_supported": ["code"]}
    with pytest.raises(OAuthFlowError, match=r"^Invalid URL$"):
        protocol.start_authorization(
            "http://127.0.0.1:9", metadata, {"client_id": "c"}, redirect_url="r", scope=None, state="s", resource=None
        )
    await protocol.aclose()


# --- beyond the reference: size and time bounds ----------------------------------------------------------


@pytest.mark.parametrize("announce_length", [True, False], ids=["content-length", "chunked"])
async def test_login_gives_up_on_a_huge_metadata_body_at_the_cap(tmp_path: Path, announce_length: bool) -> None:
    authority = OAuthAuthority(padded={AS_METADATA: 64 * 1024 * 1024}, announce_length=announce_length)
    with anyio.fail_after(60):
        async with serve_authority(authority) as server:
            write_servers(tmp_path, {"docs": docs(server.url("/mcp"))})
            result = await run(tmp_path, "login", "docs")
    assert result.returncode == 1
    assert reason(result.stderr) == f"OAuth response exceeds {MAX_OAUTH_RESPONSE_BYTES} bytes"
    assert authority.sent.get(AS_METADATA, 0) < 16 * 1024 * 1024
    assert authority.registrations == []


async def test_login_gives_up_on_a_slow_drip_metadata_body_at_the_request_timeout(tmp_path: Path) -> None:
    authority = OAuthAuthority(drip_s={AS_METADATA: 0.2})
    with anyio.fail_after(60):
        async with serve_authority(authority) as server:
            write_servers(tmp_path, {"docs": docs(server.url("/mcp"), requestTimeoutMs=1500)})
            started = time.monotonic()
            result = await run(tmp_path, "login", "docs")
            took = time.monotonic() - started
    assert result.returncode == 1
    assert reason(result.stderr) == "OAuth request timed out after 1500 ms"
    assert took < 15
    assert authority.sent[AS_METADATA] > 0  # it was dripping, not silent


async def test_token_refresh_gives_up_on_a_slow_drip_token_answer(tmp_path: Path) -> None:
    authority = OAuthAuthority(prefix="SECRET-", expires_in=1)
    with anyio.fail_after(90):
        async with serve_authority(authority) as server:
            write_servers(tmp_path, {"docs": docs(server.url("/mcp"), requestTimeoutMs=1500)})
            await callback_login(tmp_path)
            authority.drip_s["/token"] = 0.2
            started = time.monotonic()
            probe = await run(tmp_path, "probe", "docs", "--json")
            took = time.monotonic() - started
    assert took < 20
    output = probe.stdout.decode() + probe.stderr.decode()
    assert "SECRET-" not in output
    assert 'MCP server \\"docs\\" requires OAuth authorization. Run openclaw mcp login docs.' in output


# --- beyond the reference: the issuer ---------------------------------------------------------------------


async def test_login_refuses_metadata_naming_another_issuer(tmp_path: Path) -> None:
    authority = OAuthAuthority(issuer="https://evil.example.com")
    with anyio.fail_after(60):
        async with serve_authority(authority) as server:
            write_servers(tmp_path, {"docs": docs(server.url("/mcp"))})
            result = await run(tmp_path, "login", "docs")
    assert result.returncode == 1
    assert reason(result.stderr) == (
        f"Invalid OAuth metadata from {server.url(AS_METADATA)}: issuer does not match {server.origin}/"
    )
    assert authority.registrations == []


@pytest.mark.parametrize(
    ("issuer", "accepted"),
    [
        ("{origin}", True),
        ("{origin}/", True),
        ("{ORIGIN}", True),  # WHATWG: scheme and host are case-insensitive
        ("{origin}/tenant", False),
        ("{origin}?x=1", False),
        ("http://127.0.0.2:{port}", False),
        ("https://127.0.0.1:{port}", False),
    ],
)
async def test_the_issuer_must_be_the_authorization_server_url(issuer: str, accepted: bool) -> None:
    authority = OAuthAuthority()
    async with serve_authority(authority) as server:
        authority.issuer = issuer.format(origin=server.origin, ORIGIN=server.origin.upper(), port=server.port)
        async with HttpOAuthProtocol(server.url("/mcp"), timeout_s=10) as protocol:
            with anyio.fail_after(20):
                if accepted:
                    metadata = await protocol.discover_authorization_server_metadata(server.origin)
                    assert metadata is not None and metadata["issuer"] == authority.issuer
                else:
                    with pytest.raises(OAuthFlowError, match="issuer does not match"):
                        await protocol.discover_authorization_server_metadata(server.origin)


# --- hostile answers, table: every step fails closed, fast, and never leaves the origin ---------------------

STEPS = {
    "resource metadata": RESOURCE_METADATA,
    "server metadata": AS_METADATA,
    "registration": "/register",
    "token": "/token",
}


async def _step(protocol: HttpOAuthProtocol, step: str, server: LoopbackServer, metadata: dict[str, Any]) -> None:
    mcp = server.url("/mcp")
    if step == "resource metadata":
        await protocol.discover_resource_metadata(mcp, None)
    elif step == "server metadata":
        await protocol.discover_authorization_server_metadata(server.origin)
    elif step == "registration":
        client = {"redirect_uris": ["http://127.0.0.1:1/cb"], "token_endpoint_auth_method": "none"}
        await protocol.register_client(server.origin, metadata, client)
    else:
        await protocol.refresh(server.origin, metadata, {"client_id": "c"}, refresh_token="SECRET-rt", resource=None)


HOSTILE: dict[str, tuple[dict[str, Any], type[Exception], str]] = {
    "huge": (
        {"padded": 32 * 1024 * 1024},
        OAuthNetworkError,
        f"OAuth response exceeds {MAX_OAUTH_RESPONSE_BYTES} bytes",
    ),
    "huge chunked": (
        {"padded": 32 * 1024 * 1024, "announce_length": False},
        OAuthNetworkError,
        f"OAuth response exceeds {MAX_OAUTH_RESPONSE_BYTES} bytes",
    ),
    "drip": ({"drip_s": 0.2}, OAuthNetworkError, "OAuth request timed out after 1000 ms"),
    "redirect elsewhere": ({"redirect": "other"}, OAuthNetworkError, BLOCKED),
    "redirect to localhost": ({"redirect": "http://localhost:{port}/x"}, OAuthNetworkError, BLOCKED),
    "redirect to metadata ip": ({"redirect": "http://169.254.169.254/latest"}, OAuthNetworkError, BLOCKED),
    "redirect to file": ({"redirect": "file:///etc/passwd"}, OAuthNetworkError, "Invalid URL: must be http or https"),
    "redirect loop": ({"redirect": "self"}, OAuthNetworkError, "Redirect loop detected"),
}


@pytest.mark.parametrize("mode", list(HOSTILE))
@pytest.mark.parametrize("step", list(STEPS))
async def test_every_step_fails_closed_on_a_hostile_answer(step: str, mode: str) -> None:
    settings, error, message = HOSTILE[mode]
    path = STEPS[step]
    authority = OAuthAuthority(prefix="SECRET-", announce_length=settings.get("announce_length", True))
    async with two_servers(authority) as (server, other):
        metadata = authority.server_metadata()
        if "padded" in settings:
            authority.padded[path] = settings["padded"]
        if "drip_s" in settings:
            authority.drip_s[path] = settings["drip_s"]
        if "redirect" in settings:
            target = settings["redirect"]
            target = {"other": other.url(path), "self": server.url(path)}.get(target, target)
            authority.redirects[path] = target.format(port=other.port)
        protocol = HttpOAuthProtocol(server.url("/mcp"), headers={"X-Api-Key": API_KEY}, timeout_s=1)
        started = time.monotonic()
        with anyio.fail_after(20):
            async with protocol:
                with pytest.raises(error) as failure:
                    await _step(protocol, step, server, metadata)
        took = time.monotonic() - started
    assert str(failure.value) == message
    assert took < 5
    assert other.requests == []
    assert authority.sent.get(path, 0) < 16 * 1024 * 1024


# --- defect 14: the callback listener ---------------------------------------------------------------------

STATE = "4b0e3d1c-1111-4222-8333-944445555666"
BARE_400 = b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"


async def raw_exchange(port: int, data: bytes) -> bytes:
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(data)
        answer = b""
        try:
            while True:
                answer += await stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            pass
    return answer


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GARBAGE\r\n\r\n",
        b"GET\r\n\r\n",
        b"GET /oauth/callback HTTP/9.9\r\n\r\n",
        b"GET /oauth/\x00callback HTTP/1.1\r\n\r\n",
        b"GET //[ HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET http://[::1 HTTP/1.1\r\nHost: x\r\n\r\n",
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + b"\x00" * 40 + b"\r\n\r\n",
    ],
    ids=["garbage", "no-target", "bad-version", "nul", "bad-authority", "bad-absolute", "tls-hello"],
)
async def test_a_malformed_callback_request_gets_400_and_the_listener_keeps_waiting(request_bytes: bytes) -> None:
    port = free_port()
    with anyio.fail_after(10):
        async with (
            oauth_callback_listener(f"http://127.0.0.1:{port}/oauth/callback", STATE) as listener,
            httpx2.AsyncClient() as client,
        ):
            assert await raw_exchange(port, request_bytes) == BARE_400
            assert not listener.settled
            ok = await client.get(f"http://127.0.0.1:{port}/oauth/callback", params={"state": STATE, "code": "c"})
            assert ok.status_code == 200
            assert await listener.wait() == CallbackResult("authorization_code", code="c", state=STATE)


async def test_login_survives_a_malformed_request_to_its_callback(tmp_path: Path) -> None:
    authority = OAuthAuthority()
    port = free_port()
    with anyio.fail_after(60):
        async with serve_authority(authority) as server:
            servers = {"docs": docs(server.url("/mcp"))}
            servers["docs"]["oauth"]["redirectUrl"] = f"http://127.0.0.1:{port}/oauth/callback"
            write_servers(tmp_path, servers)
            async with login(tmp_path, "docs") as running:
                await running.line()
                url = await running.line()
                await running.line()
                await running.line()
                assert await raw_exchange(port, b"GARBAGE\r\n\r\n") == BARE_400
                assert await raw_exchange(port, b"GET //[ HTTP/1.1\r\n\r\n") == BARE_400
                async with httpx2.AsyncClient() as client:
                    callback = await client.get(await browse(url))
                assert callback.status_code == 200
                code, lines, err = await running.finish()
    assert (code, err) == (0, "")
    assert lines[-1] == 'MCP OAuth credentials saved for "docs".'
