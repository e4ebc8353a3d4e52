"""Factories for the ``IncludeLoader`` contract suite: one async context manager per adapter.

Each factory takes a directory for its files and the include files of the suite (paths relative to the
config's directory → text) and yields an ``IncludeHarness``: a ready loader for the config ``openclaw.json``
in that directory, holding those files.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from openclaw_mcp.adapters.filesystem.includes import FileIncludeLoader
from openclaw_mcp.adapters.memory.includes import InMemoryIncludeLoader
from openclaw_mcp.application.ports.config import IncludeLoader


@dataclass(frozen=True, slots=True)
class IncludeHarness:
    loader: IncludeLoader
    config_path: str  # absolute
    root: str  # the config's directory, as the loader names it in its messages


IncludeLoaderFactory = Callable[[Path, Mapping[str, str]], AbstractAsyncContextManager[IncludeHarness]]


@asynccontextmanager
async def memory_include_loader(tmp_path: Path, files: Mapping[str, str]) -> AsyncIterator[IncludeHarness]:
    root = "/memory/state"
    held = {f"{root}/{name}": text for name, text in files.items()}
    yield IncludeHarness(InMemoryIncludeLoader(f"{root}/openclaw.json", held), f"{root}/openclaw.json", root)


def _write(tmp_path: Path, files: Mapping[str, str]) -> Path:
    root = tmp_path / "state"
    root.mkdir()
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


@asynccontextmanager
async def file_include_loader(tmp_path: Path, files: Mapping[str, str]) -> AsyncIterator[IncludeHarness]:
    root = _write(tmp_path, files)
    config = str(root / "openclaw.json")
    yield IncludeHarness(FileIncludeLoader(config), config, str(root))


@asynccontextmanager
async def inline_file_include_loader(tmp_path: Path, files: Mapping[str, str]) -> AsyncIterator[IncludeHarness]:
    root = _write(tmp_path, files)
    config = str(root / "openclaw.json")
    yield IncludeHarness(FileIncludeLoader(config, inline=True), config, str(root))


FACTORIES = [
    pytest.param(memory_include_loader, id="memory"),
    pytest.param(file_include_loader, id="filesystem"),
    pytest.param(inline_file_include_loader, id="filesystem-inline"),
]
