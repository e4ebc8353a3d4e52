"""OAuthStatusReader contract: must pass for every implementation."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.oauth_status import InMemoryOAuthStatusReader
from openclaw_mcp.adapters.sqlite import SqliteOAuthStatusReader
from openclaw_mcp.application.errors import OAuthStoreError
from openclaw_mcp.application.ports.oauth import OAuthStatusReader

pytestmark = pytest.mark.asyncio

Stores = dict[str, Any]
Factory = Callable[[Path, Stores], AbstractAsyncContextManager[OAuthStatusReader]]

SCHEMA = """
CREATE TABLE mcp_oauth_stores (store_key TEXT NOT NULL PRIMARY KEY,
  format_version INTEGER NOT NULL CHECK (format_version = 1), store_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL) STRICT;
"""


@asynccontextmanager
async def memory_reader(tmp: Path, stores: Stores) -> AsyncIterator[OAuthStatusReader]:
    yield InMemoryOAuthStatusReader({k: v for k, v in stores.items() if isinstance(v, dict)})


@asynccontextmanager
async def sqlite_reader(tmp: Path, stores: Stores) -> AsyncIterator[OAuthStatusReader]:
    db = tmp / "state" / "openclaw.sqlite"
    if stores:
        db.parent.mkdir(parents=True)
        with sqlite3.connect(db) as conn:
            conn.executescript(SCHEMA)
            for key, value in stores.items():
                text = value if isinstance(value, str) else json.dumps(value)
                conn.execute("INSERT INTO mcp_oauth_stores VALUES (?, 1, ?, 0)", (key, text))
        conn.close()
    yield SqliteOAuthStatusReader(str(db))


@pytest.fixture(params=[pytest.param(memory_reader, id="memory"), pytest.param(sqlite_reader, id="sqlite")])
def factory(request: pytest.FixtureRequest) -> Factory:
    return request.param  # type: ignore[no-any-return]


TOKENS = {"tokens": {"access_token": "at", "token_type": "Bearer"}}


async def test_a_missing_store_reads_as_none(factory: Factory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with factory(tmp_path, {}) as reader:
            assert await reader.read_store("docs-0123456789abcdef") is None
            assert await reader.count_principals("docs-0123456789abcdef-r-") == 0


async def test_reads_the_stored_object(factory: Factory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with factory(tmp_path, {"k": {"credentialState": "cleared"}, "other": TOKENS}) as reader:
            assert await reader.read_store("k") == {"credentialState": "cleared"}


async def test_counts_only_principals_with_tokens_under_the_prefix(factory: Factory, tmp_path: Path) -> None:
    stores = {
        "op-r-1": TOKENS,
        "op-r-2": {"credentialState": "cleared"},
        "op-r-3": TOKENS,
        "other-r-1": TOKENS,
    }
    with anyio.fail_after(5):
        async with factory(tmp_path, stores) as reader:
            assert await reader.count_principals("op-r-") == 2


async def test_a_corrupt_row_raises_the_store_error(tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with sqlite_reader(tmp_path, {"bad": "{not json"}) as reader:
            with pytest.raises(
                OAuthStoreError, match=r"^MCP OAuth store bad is invalid: store_json is not valid JSON$"
            ):
                await reader.read_store("bad")


async def test_sqlite_server_refs_mark_only_existing_rows(tmp_path: Path) -> None:
    from openclaw_mcp.adapters.sqlite.server_refs import SqliteServerRefs

    db = tmp_path / "openclaw.sqlite"
    refs = SqliteServerRefs(str(db))
    with anyio.fail_after(5):
        await refs.mark_independent("docs", 1)  # no database: nothing happens, nothing is created
        assert not db.exists()
        with sqlite3.connect(db) as conn:
            conn.execute(
                "CREATE TABLE claw_mcp_server_refs (agent_id TEXT NOT NULL, name TEXT NOT NULL, "
                "independent_owner INTEGER NOT NULL DEFAULT 0, updated_at_ms INTEGER NOT NULL, "
                "PRIMARY KEY (agent_id, name)) STRICT"
            )
            conn.execute("INSERT INTO claw_mcp_server_refs VALUES ('main', 'docs', 0, 0)")
        conn.close()
        await refs.mark_independent("docs", 42)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT independent_owner, updated_at_ms FROM claw_mcp_server_refs").fetchall() == [(1, 42)]
    conn.close()
