"""ProjectionFiles and BearerTokens contracts (spec runtime-projection §1.4, §5.2, D-RP5): every adapter
passes the same suite — the filesystem and in-memory files, the in-memory tokens and the MCP OAuth store's
tokens over a real SQLite file."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import anyio
import pytest

from openclaw_mcp.adapters.filesystem.projection_files import FilesystemProjectionFiles
from openclaw_mcp.adapters.memory.projection_files import InMemoryBearerTokens, InMemoryProjectionFiles
from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.projection import BearerTokens, ProjectionFiles
from tests.unit.test_projection import stored_bearer_tokens, stored_token

pytestmark = pytest.mark.asyncio

FilesFactory = Callable[[Path], ProjectionFiles]
TokensFactory = Callable[[Path, dict[str, str]], AbstractAsyncContextManager[BearerTokens]]
URL = "https://docs.example.com/mcp"


def filesystem_files(tmp: Path) -> ProjectionFiles:
    (tmp / "existing.json").write_text('{"mcpServers": {}}', encoding="utf-8")
    return FilesystemProjectionFiles(root=str(tmp))


def memory_files(tmp: Path) -> ProjectionFiles:
    return InMemoryProjectionFiles({str(tmp / "existing.json"): '{"mcpServers": {}}'}, root=str(tmp))


@pytest.fixture(params=[filesystem_files, memory_files], ids=["filesystem", "memory"])
def files_factory(request: pytest.FixtureRequest) -> FilesFactory:
    factory: FilesFactory = request.param
    return factory


@asynccontextmanager
async def memory_tokens(tmp: Path, tokens: dict[str, str]) -> AsyncIterator[BearerTokens]:
    yield InMemoryBearerTokens(dict(tokens))


@asynccontextmanager
async def sqlite_tokens(tmp: Path, tokens: dict[str, str]) -> AsyncIterator[BearerTokens]:
    if not tokens:
        (tmp / "state").mkdir()
        async with stored_bearer_tokens(tmp / "state" / "openclaw.sqlite") as empty:
            yield empty
        return
    ((name, token),) = tokens.items()
    async with stored_token(tmp / "state", name, URL, token) as store:
        yield store


@pytest.fixture(params=[memory_tokens, sqlite_tokens], ids=["memory", "sqlite"])
def tokens_factory(request: pytest.FixtureRequest) -> TokensFactory:
    factory: TokensFactory = request.param
    return factory


async def test_written_files_are_readable_private_and_removed_with_their_directory(
    files_factory: FilesFactory, tmp_path: Path
) -> None:
    files = files_factory(tmp_path)
    with anyio.fail_after(10):
        first = await files.write_private("openclaw-cli-mcp-", "mcp.json", '{"a": "é"}\n')
        second = await files.write_private("openclaw-cli-mcp-", "mcp.json", "{}\n")
        assert first != second
        assert os.path.basename(first) == "mcp.json"
        assert os.path.basename(os.path.dirname(first)).startswith("openclaw-cli-mcp-")
        assert await files.read_text(first) == '{"a": "é"}\n'
        if isinstance(files, FilesystemProjectionFiles):
            assert stat.S_IMODE(os.stat(first).st_mode) == 0o600
            assert stat.S_IMODE(os.stat(os.path.dirname(first)).st_mode) == 0o700
        await files.remove(first)
        await files.remove(first)  # already gone is fine
        assert await files.read_text(first) is None
        assert not os.path.exists(os.path.dirname(first))
        assert await files.read_text(second) == "{}\n"
        await files.remove(second)


async def test_reading_returns_existing_text_and_none_for_anything_else(
    files_factory: FilesFactory, tmp_path: Path
) -> None:
    files = files_factory(tmp_path)
    with anyio.fail_after(10):
        assert await files.read_text(str(tmp_path / "existing.json")) == '{"mcpServers": {}}'
        assert await files.read_text(str(tmp_path / "missing.json")) is None
        assert await files.read_text(str(tmp_path)) is None


async def test_a_stored_token_is_returned(tokens_factory: TokensFactory, tmp_path: Path) -> None:
    with anyio.fail_after(10):
        async with tokens_factory(tmp_path, {"docs": "at-1"}) as tokens:
            assert await tokens.access_token("docs", {"url": URL, "auth": "oauth"}) == "at-1"


async def test_a_missing_token_asks_for_a_login(tokens_factory: TokensFactory, tmp_path: Path) -> None:
    with anyio.fail_after(10):
        async with tokens_factory(tmp_path, {}) as tokens:
            with pytest.raises(ApplicationError) as caught:
                await tokens.access_token("docs", {"url": URL, "auth": "oauth"})
    assert str(caught.value) == 'MCP server "docs" requires OAuth authorization. Run openclaw mcp login docs.'
