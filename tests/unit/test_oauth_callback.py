"""The loopback OAuth callback listener of ``openclaw mcp login`` (spec cli-registry §7.8.2): the response
table, the security headers, the wait's outcome and the start-up refusals."""

from __future__ import annotations

import anyio
import httpx2
import pytest

from openclaw_mcp.adapters.http.oauth_callback import CallbackResult, OAuthCallbackError, oauth_callback_listener
from tests.fixtures.ports import free_port, occupied_port

pytestmark = pytest.mark.asyncio

STATE = "4b0e3d1c-1111-4222-8333-944445555666"
SECURITY_HEADERS = {
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
}


async def test_the_callback_answers_the_reference_table_and_yields_the_trimmed_code() -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with anyio.fail_after(5):
        async with (
            oauth_callback_listener(f"{base}/oauth/callback", STATE) as listener,
            httpx2.AsyncClient() as client,
        ):
            options = await client.request("OPTIONS", f"{base}/oauth/callback")
            assert (options.status_code, options.text) == (204, "")
            cases = [
                ("GET", "/elsewhere", 404, "Callback route not found."),
                ("POST", "/oauth/callback", 405, "Method not allowed."),
                ("GET", "/oauth/callback?state=wrong&code=x", 400, "Invalid OAuth state."),
                ("GET", f"/oauth/callback?state={STATE}&code=%20%20", 400, "Missing OAuth authorization code."),
            ]
            for method, path, status, body in cases:
                response = await client.request(method, f"{base}{path}")
                assert (response.status_code, response.text) == (status, body)
                assert response.headers["content-type"] == "text/plain; charset=utf-8"
                assert {name: response.headers[name] for name in SECURITY_HEADERS} == SECURITY_HEADERS
                if status == 405:
                    assert response.headers["allow"] == "GET, OPTIONS"
            assert not listener.settled
            ok = await client.get(f"{base}/oauth/callback", params={"state": STATE, "code": " the-code ", "x": "1"})
            assert (ok.status_code, ok.text) == (
                200,
                "Authorization received; return to the terminal while OpenClaw finishes.",
            )
            assert await listener.wait() == CallbackResult("authorization_code", code="the-code", state=STATE)
            late = await client.get(f"{base}/oauth/callback", params={"state": STATE, "code": "again"})
            assert (late.status_code, late.text) == (409, "OAuth callback was already received.")


async def test_an_error_callback_settles_as_oauth_error() -> None:
    port = free_port()
    with anyio.fail_after(5):
        async with (
            oauth_callback_listener(f"http://localhost:{port}/cb", STATE) as listener,
            httpx2.AsyncClient() as client,
        ):
            response = await client.get(
                f"http://127.0.0.1:{port}/cb",
                params={"state": STATE, "error": "access_denied", "error_description": "no"},
            )
            assert (response.status_code, response.text) == (400, "Authorization was not completed.")
            assert await listener.wait() == CallbackResult("oauth_error", error="access_denied", error_description="no")


async def test_the_wait_times_out_with_the_reference_message() -> None:
    with anyio.fail_after(5):
        async with oauth_callback_listener(f"http://127.0.0.1:{free_port()}/", STATE, timeout_s=0.05) as listener:
            with pytest.raises(OAuthCallbackError) as failure:
                await listener.wait()
    assert str(failure.value) == "OAuth callback timeout"


@pytest.mark.parametrize(
    ("redirect_url", "message"),
    [
        ("https://127.0.0.1:8989/cb", "OAuth callback redirect must use HTTP on a loopback address"),
        ("http://example.com:8989/cb", "OAuth callback redirect must use HTTP on a loopback address"),
        ("http://127.0.0.2:8989/cb", "OAuth callback redirect must use HTTP on a loopback address"),
    ],
)
async def test_non_loopback_redirects_are_refused(redirect_url: str, message: str) -> None:
    with anyio.fail_after(5), pytest.raises(OAuthCallbackError) as failure:
        async with oauth_callback_listener(redirect_url, STATE):
            pass
    assert str(failure.value) == message


async def test_a_port_in_use_fails_like_node_listen() -> None:
    with occupied_port() as port, anyio.fail_after(5), pytest.raises(OAuthCallbackError) as failure:
        async with oauth_callback_listener(f"http://127.0.0.1:{port}/oauth/callback", STATE):
            pass
    assert str(failure.value) == f"listen EADDRINUSE: address already in use 127.0.0.1:{port}"
