"""The config file port (``ConfigStore``/``ConfigEdit``) and the server-reference store (``ServerRefs``)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from openclaw_mcp.domain.includes import IncludeLoader

__all__ = ["ConfigEdit", "ConfigFile", "ConfigStore", "ServerRefs"]


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """The raw OpenClaw config file: its resolved absolute path and text (``None`` when absent)."""

    path: str
    text: str | None

    @property
    def exists(self) -> bool:
        return self.text is not None


class ConfigEdit(Protocol):
    """One read-modify-write of the config file, performed while the store's write lock is held."""

    @property
    def current(self) -> ConfigFile:
        """The file as read after the lock was taken (what the edit must be based on)."""
        ...

    async def replace(self, text: str) -> None:
        """Atomically replace the file with ``text`` (mode 0600), rotating the ``.bak`` ring first.

        Afterwards a reader sees either the old or the new text, never a mix, even if the process is killed
        at any point. Raises ``ConfigStoreError`` on failure (the old file then stays in place).
        """
        ...

    async def save_rejected(self, text: str, stamp: str) -> str:
        """Save a refused payload next to the config as ``<path>.rejected.<stamp>`` (mode 0600, exclusive
        create) and return that path. Raises ``ConfigStoreError`` when it cannot be saved."""
        ...


class ConfigStore(Protocol):
    """The OpenClaw config file (``openclaw.json``)."""

    @property
    def path(self) -> str:
        """The resolved absolute config path."""
        ...

    async def read(self) -> ConfigFile:
        """Read the current file without locking. A missing file is ``ConfigFile(path, None)``.

        Raises ``ConfigReadError`` (a ``ConfigStoreError``) when the file exists but cannot be read
        (permissions, a directory in the way, …): the config service reports it as an invalid config.
        """
        ...

    def include_loader(self) -> IncludeLoader:
        """Where the config's ``$include`` files come from (confined to the config directory and the
        configured include roots). Its methods raise only ``IncludeError``."""
        ...

    def edit(self) -> AbstractAsyncContextManager[ConfigEdit]:
        """Take the cross-process write lock for a read-modify-write and yield the edit.

        Concurrent ``edit()`` blocks (in this or another process) are serialised, so no update is lost.
        The lock is released when the block exits, also on error or cancellation. Raises
        ``ConfigLockTimeout`` when the lock cannot be taken in time, ``ConfigStoreError`` for I/O failures.
        """
        ...


class ServerRefs(Protocol):
    """Servers the Claw lifecycle manages (state database ``claw_mcp_server_refs``)."""

    async def mark_independent(self, name: str, now_ms: int) -> None:
        """Record that an operator edited server ``name`` directly, so the lifecycle stops owning it.

        Best effort: a missing store, table or row is not an error, and nothing is ever raised.
        """
        ...
