"""The config file port (``ConfigStore``/``ConfigEdit``), its ``$include`` files (``IncludeLoader``) and the
server-reference store (``ServerRefs``)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from openclaw_mcp.domain.record import Record

__all__ = ["ConfigEdit", "ConfigFile", "ConfigStore", "IncludeLoader", "ServerRefs"]


class ConfigFile(Record):
    """The raw OpenClaw config file: its resolved absolute path and text (``None`` when absent)."""

    path: str
    text: str | None

    @property
    def exists(self) -> bool:
        return self.text is not None


class IncludeLoader(Protocol):
    """Where the config's ``$include`` files come from: it answers the requests of the domain's include walk
    (``domain.includes.ResolveInclude`` / ``LoadInclude``; ``application.config_includes`` drives it).

    Both methods raise only ``domain.includes.IncludeError`` (the include error family), whose message is the
    reference's text; library errors are chained as its ``__cause__``. Neither blocks the event loop: file
    access runs off it (or, in a composition without an event loop, directly). Both are safe to cancel; an
    answer depends only on the arguments and the files, so a request may be asked again.
    """

    async def resolve(self, include_path: str, including_file: str) -> str:
        """The canonical path of ``include_path`` as written in ``including_file`` (the config path, or a
        path this loader returned): relative paths are taken from the including file's directory.

        Equal files give equal strings (the walk compares them with the including chain to detect cycles).
        A path that does not exist is returned all the same (``load`` then fails). Raises ``IncludeError``
        when the path is malformed or leaves the permitted directories.
        """
        ...

    async def load(self, include_path: str, resolved_path: str) -> Any:
        """The parsed content (plain JSON data, JSON5 syntax) of ``resolved_path``, returned by ``resolve``
        for ``include_path``; a new value on every call.

        Raises ``IncludeError`` when the file cannot be read, fails the file checks, or does not parse.
        """
        ...


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
        configured include roots); see ``IncludeLoader`` for its contract."""
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
