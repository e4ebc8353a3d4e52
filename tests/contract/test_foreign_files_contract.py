"""The ``ForeignFiles`` contract: must pass for every implementation (filesystem and in-memory)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from openclaw_mcp.adapters.filesystem.foreign_files import FileForeignFiles
from openclaw_mcp.adapters.memory.foreign_files import InMemoryForeignFiles
from openclaw_mcp.application.ports.foreign_files import ForeignFileError, ForeignFiles, ForeignUpdate

pytestmark = pytest.mark.asyncio

Seed = Callable[[str, str], Awaitable[None]]


def _file(tmp_path: Path) -> tuple[ForeignFiles, Callable[[str, str], None]]:
    def seed(path: str, text: str) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)

    return FileForeignFiles(), seed


def _memory(tmp_path: Path) -> tuple[ForeignFiles, Callable[[str, str], None]]:
    files = InMemoryForeignFiles()

    def seed(path: str, text: str) -> None:
        files._texts[path] = text  # seeding is the memory adapter's constructor input
        files.modes[path] = 0o644

    return files, seed


@pytest.fixture(params=[pytest.param(_memory, id="memory"), pytest.param(_file, id="filesystem")])
def adapter(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[ForeignFiles, Callable[[str, str], None], Path]:
    files, seed = request.param(tmp_path)
    return files, seed, tmp_path


async def test_read_of_an_absent_file_is_none(adapter: tuple[ForeignFiles, Callable[[str, str], None], Path]) -> None:
    files, _, tmp = adapter
    with anyio.fail_after(5):
        assert await files.read(str(tmp / "none.json"), "json") is None


@pytest.mark.parametrize(("syntax", "text"), [("json", '{"a": '), ("jsonc", "{a: ,}"), ("toml", "[x\n")])
async def test_a_malformed_file_raises_foreign_file_error_naming_the_path(
    adapter: tuple[ForeignFiles, Callable[[str, str], None], Path], syntax: str, text: str
) -> None:
    files, seed, tmp = adapter
    path = str(tmp / f"bad.{syntax}")
    seed(path, text)
    with anyio.fail_after(5), pytest.raises(ForeignFileError) as info:
        await files.read(path, syntax)  # type: ignore[arg-type]
    assert str(info.value).startswith(f"{path}: ")
    assert "\n" not in str(info.value)


async def test_write_merges_entries_and_keeps_other_keys_and_backs_up(
    adapter: tuple[ForeignFiles, Callable[[str, str], None], Path],
) -> None:
    files, seed, tmp = adapter
    path = str(tmp / "d" / "mcp.json")
    seed(path, '{"other": 1, "mcpServers": {"keep": {"command": "k"}, "x": {"command": "old"}}}')
    with anyio.fail_after(5):
        written = await files.write(path, ForeignUpdate("json", "mcpServers", {"x": {"command": "new"}}))
        document = await files.read(path, "json")
        backup = await files.read(f"{path}.bak", "json")
    assert written.backup == f"{path}.bak"
    assert document is not None and document.data == {
        "other": 1,
        "mcpServers": {"keep": {"command": "k"}, "x": {"command": "new"}},
    }
    assert backup is not None and backup.data["mcpServers"]["x"] == {"command": "old"}


async def test_write_creates_a_new_file_without_backup_with_mode_0644(
    adapter: tuple[ForeignFiles, Callable[[str, str], None], Path],
) -> None:
    files, _, tmp = adapter
    path = str(tmp / "new" / "config.toml")
    with anyio.fail_after(5):
        written = await files.write(
            path, ForeignUpdate("toml", "mcp_servers", {"a": {"command": "c", "env": {"K": "v"}}})
        )
        document = await files.read(path, "toml")
    assert written.backup is None
    assert document is not None and document.data == {"mcp_servers": {"a": {"command": "c", "env": {"K": "v"}}}}
    assert document.mode == 0o644


async def test_private_writes_are_mode_0600_also_the_backup(
    adapter: tuple[ForeignFiles, Callable[[str, str], None], Path],
) -> None:
    files, seed, tmp = adapter
    path = str(tmp / "p.json")
    seed(path, "{}")
    with anyio.fail_after(5):
        await files.write(path, ForeignUpdate("json", "mcpServers", {"a": {"command": "c"}}, private=True))
        document = await files.read(path, "json")
        backup = await files.read(f"{path}.bak", "json")
    assert document is not None and document.mode == 0o600
    assert backup is not None and backup.mode == 0o600


async def test_writing_over_a_malformed_file_raises_and_changes_nothing(
    adapter: tuple[ForeignFiles, Callable[[str, str], None], Path],
) -> None:
    files, seed, tmp = adapter
    path = str(tmp / "bad.json")
    seed(path, "{broken")
    with anyio.fail_after(5):
        with pytest.raises(ForeignFileError):
            await files.write(path, ForeignUpdate("json", "mcpServers", {"a": {"command": "c"}}))
        with pytest.raises(ForeignFileError):
            await files.read(path, "json")
        assert await files.read(f"{path}.bak", "json") is None


async def test_render_is_the_document_of_an_absent_file(
    adapter: tuple[ForeignFiles, Callable[[str, str], None], Path],
) -> None:
    files, _, _ = adapter
    with anyio.fail_after(5):
        text = await files.render(ForeignUpdate("json", "servers", {"a": {"type": "stdio", "command": "c"}}))
    assert '"servers"' in text and '"command": "c"' in text
