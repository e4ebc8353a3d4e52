"""Token refresh across processes (spec cli-registry §7.6, §7.9) with the SQLite credential store and a real
loopback authorization server that rotates refresh tokens: ten processes needing a refresh at the same
moment cause exactly one token-endpoint call and all end up with the newest token; a process killed while
holding the lease blocks the others only until the lease expires."""

from __future__ import annotations

import hashlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import pytest
from anyio.streams.text import TextReceiveStream

from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol
from openclaw_mcp.application.oauth import LoginRedirect, McpOAuth
from openclaw_mcp.application.ports.leases import LeasePolicy
from openclaw_mcp.application.ports.oauth import OAuthServer
from openclaw_mcp.entrypoints.oauth import oauth_server, sqlite_mcp_oauth
from tests.fixtures.oauth_server import OAuthAuthority
from tests.fixtures.oauth_server import oauth_server as serve_authority

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 10


def sha(text: str | None) -> str:
    return hashlib.sha256((text or "").encode()).hexdigest()


class Worker:
    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        assert process.stdout is not None
        self._lines = TextReceiveStream(process.stdout)
        self._buffer = ""

    async def line(self) -> str:
        while "\n" not in self._buffer:
            self._buffer += await self._lines.receive()
        line, self._buffer = self._buffer.split("\n", 1)
        return line


@asynccontextmanager
async def worker(*args: str) -> AsyncIterator[Worker]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = await anyio.open_process(
        [sys.executable, "-m", "tests.fixtures.oauth_worker", *args], cwd=ROOT, env=env, stderr=None
    )
    try:
        yield Worker(process)
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.kill()
            await process.wait()
            await process.aclose()


async def logged_in(authority: OAuthAuthority, oauth: McpOAuth, server: OAuthServer) -> None:
    async with HttpOAuthProtocol(server.url) as protocol:
        start = await oauth.login_start(server, protocol)
        assert isinstance(start, LoginRedirect)
        async with httpx2.AsyncClient() as client:
            location = (await client.get(start.authorization_url)).headers["location"]
        code = httpx2.URL(location).params["code"]
        await oauth.login_complete(server, protocol, code)


async def expire_tokens(oauth: McpOAuth, server: OAuthServer) -> None:
    policy = oauth.policy

    def expired(store: dict[str, Any]) -> dict[str, Any]:
        return {**store, "tokenExpiresAt": 0}

    async with oauth.leases.hold(
        policy.scope, server.store_key, duration_ms=policy.duration_ms, wait_ms=policy.wait_ms
    ) as lease:
        await oauth.store.update(lease, server.store_key, expired)


async def test_ten_processes_refreshing_at_once_make_one_token_call_and_share_the_newest_token(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "state" / "openclaw.sqlite")
    go = tmp_path / "go"
    authority = OAuthAuthority(token_delay_s=0.3)
    with anyio.fail_after(90):
        async with serve_authority(authority) as loopback:
            server = oauth_server("docs", loopback.url("/mcp"))
            oauth = sqlite_mcp_oauth(db)
            await logged_in(authority, oauth, server)
            await expire_tokens(oauth, server)
            calls_before = authority.token_calls
            stale = authority.latest_refresh_token
            results: list[str] = []
            async with anyio.create_task_group() as tg:
                ready = anyio.Event()
                started = 0

                async def run() -> None:
                    nonlocal started
                    async with worker("resolve", db, server.url, str(go)) as process:
                        assert await process.line() == "ready"
                        started += 1
                        if started == WORKERS:
                            ready.set()
                        results.append(await process.line())
                        assert await process.process.wait() == 0

                for _ in range(WORKERS):
                    tg.start_soon(run)
                await ready.wait()
                go.write_text("go")
            assert authority.token_calls - calls_before == 1
            assert authority.grants[-1]["refresh_token"] == stale
            newest = authority.latest_access_token
            assert results == [sha(newest)] * WORKERS
            stored = await oauth.store.read(server.store_key)
            assert stored["tokens"]["access_token"] == newest
            assert stored["tokens"]["refresh_token"] == authority.latest_refresh_token


async def test_a_holder_killed_while_holding_the_lease_blocks_others_only_until_it_expires(tmp_path: Path) -> None:
    db = str(tmp_path / "state" / "openclaw.sqlite")
    authority = OAuthAuthority()
    short = LeasePolicy(scope="core:mcp-oauth", duration_ms=1_500, wait_ms=20_000)
    with anyio.fail_after(60):
        async with serve_authority(authority) as loopback:
            server = oauth_server("docs", loopback.url("/mcp"))
            await logged_in(authority, sqlite_mcp_oauth(db), server)
            oauth = sqlite_mcp_oauth(db, policy=short)
            await expire_tokens(oauth, server)
            async with worker("hold", db, server.store_key, str(short.duration_ms)) as holder:
                assert await holder.line() == "held"
                holder.process.send_signal(signal.SIGKILL)
                assert await holder.process.wait() == -signal.SIGKILL
            async with HttpOAuthProtocol(server.url) as protocol:
                token = await oauth.resolve_access_token(server, protocol)
            assert token == authority.latest_access_token
            assert authority.grants[-1]["grant_type"] == "refresh_token"
