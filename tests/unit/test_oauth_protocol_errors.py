"""The OAuth protocol adapter's error contract: library exceptions leave it only as the port's errors, with
the texts the application showed before (``fetch failed``, the library's own text for an unusable URL)."""

from __future__ import annotations

import socket

import anyio
import pytest

from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol
from openclaw_mcp.application.ports.mcp import McpError
from openclaw_mcp.application.ports.oauth import OAuthFlowError, OAuthNetworkError

pytestmark = pytest.mark.asyncio


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_refused_connection_is_a_network_error_reading_fetch_failed() -> None:
    server_url = f"http://127.0.0.1:{_closed_port()}/mcp"
    with anyio.fail_after(10):
        async with HttpOAuthProtocol(server_url, timeout_s=5) as protocol:
            with pytest.raises(OAuthNetworkError) as failure:
                await protocol.discover_resource_metadata(server_url, None)
    assert str(failure.value) == "fetch failed"
    assert isinstance(failure.value, McpError) and failure.value.__cause__ is None


async def test_a_token_request_to_a_closed_port_is_a_network_error() -> None:
    as_url = f"http://127.0.0.1:{_closed_port()}/"
    with anyio.fail_after(10):
        async with HttpOAuthProtocol(as_url, timeout_s=5) as protocol:
            with pytest.raises(OAuthNetworkError, match=r"^fetch failed$"):
                await protocol.refresh(as_url, None, {"client_id": "c"}, refresh_token="rt", resource=None)


async def test_an_unusable_url_is_a_port_error_keeping_the_library_text() -> None:
    async with HttpOAuthProtocol("http://127.0.0.1:1/mcp", timeout_s=5) as protocol:
        with pytest.raises(OAuthFlowError) as failure:
            await protocol.discover_authorization_server_metadata("http://[::1/")
    assert str(failure.value) == "Invalid IPv6 URL"  # urllib's ValueError text, unchanged
