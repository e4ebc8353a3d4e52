"""``InMemoryConfigStore``: the config file kept in memory, for unit tests, demos and embedding.

It honours the same contract as the filesystem store (``tests/contract/test_config_store_contract.py``):
edits are serialised by an ``anyio.Lock`` and each ``replace`` rotates a five-entry backup ring, exposed
as ``backups`` (newest first: ``.bak``, ``.bak.1`` … ``.bak.4``); rejected payloads land in ``rejected``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio

from openclaw_mcp.adapters.memory.includes import InMemoryIncludeLoader
from openclaw_mcp.application.errors import ConfigStoreError
from openclaw_mcp.application.ports.config import ConfigEdit, ConfigFile, ConfigStore

__all__ = ["InMemoryConfigStore"]

_RING = 5  # ``.bak`` plus ``.bak.1`` … ``.bak.4``


class _MemoryConfigEdit:
    def __init__(self, store: InMemoryConfigStore) -> None:
        self._store = store
        self._current = ConfigFile(store.path, store.text)
        self._open = True

    @property
    def current(self) -> ConfigFile:
        return self._current

    def close(self) -> None:
        self._open = False

    def _ensure_open(self) -> None:
        if not self._open:
            raise ConfigStoreError("the config edit is closed; start a new edit() block")

    async def replace(self, text: str) -> None:
        self._ensure_open()
        self._store.commit(text)
        self._current = ConfigFile(self._store.path, text)

    async def save_rejected(self, text: str, stamp: str) -> str:
        self._ensure_open()
        if not stamp or "/" in stamp or stamp in (".", ".."):
            raise ConfigStoreError(f"invalid rejected-payload stamp: {stamp!r}")
        target = f"{self._store.path}.rejected.{stamp}"
        if target in self._store.rejected:
            raise ConfigStoreError(f"EEXIST: file already exists, open '{target}'")
        self._store.rejected[target] = text
        return target


class InMemoryConfigStore:
    """A config "file" at ``path`` whose content is ``text`` (``None``: absent)."""

    def __init__(
        self, path: str = "/memory/openclaw.json", text: str | None = None, files: dict[str, str] | None = None
    ) -> None:
        self._path = path
        self.text = text
        self.files: dict[str, str] = files if files is not None else {}  # ``$include`` files by absolute path
        self.backups: list[str] = []
        self.rejected: dict[str, str] = {}
        self._lock = anyio.Lock()

    @property
    def path(self) -> str:
        return self._path

    def commit(self, text: str) -> None:
        """Replace the content, pushing the previous one (if any) onto the backup ring."""
        if self.text is not None:
            self.backups.insert(0, self.text)
            del self.backups[_RING:]
        self.text = text

    async def read(self) -> ConfigFile:
        return ConfigFile(self._path, self.text)

    def include_loader(self) -> InMemoryIncludeLoader:
        return InMemoryIncludeLoader(self._path, self.files)

    @asynccontextmanager
    async def edit(self) -> AsyncIterator[ConfigEdit]:
        async with self._lock:
            edit = _MemoryConfigEdit(self)
            try:
                yield edit
            finally:
                edit.close()


if TYPE_CHECKING:
    _store: ConfigStore = InMemoryConfigStore()
    _edit: ConfigEdit = _MemoryConfigEdit(InMemoryConfigStore())
