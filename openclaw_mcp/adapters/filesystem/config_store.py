"""``FileConfigStore``: the OpenClaw config file on the local filesystem (spec cli-registry §1.5, D5, D15).

- ``edit()`` creates the parent directory (each created level mode 0700), takes the reference-compatible
  sidecar lock ``<path>.lock`` (see ``_lock``) and reads the file under it, so a whole read → modify →
  write runs without interference from this or any other process (reference ones included).
- ``replace()`` writes a unique temporary file next to the config (``fsync``, mode 0600), rotates the
  backup ring (``.bak.4`` dropped, ``.bak.3``→``.bak.4`` … ``.bak``→``.bak.1``, the previous raw bytes
  → ``.bak``, all 0600; best effort, as in the reference), renames the temporary file over the config and
  ``fsync``s the directory. Like the reference it also sets the config directory to 0700 on every write.
  A ``SIGKILL`` at any moment leaves either the old or the new file; temporary files left by a killed
  writer are removed by the next ``edit()`` (only names this adapter creates, only of dead pids).
- ``chmod`` failures are ignored (D15). Every other ``OSError`` becomes ``ConfigStoreError`` whose message
  is the one-line text Node.js would give for the same failure (``EEXIST: file already exists, open
  '<path>'``), chained with ``from``. Lock and write permission failures inside the config directory get
  the reference's ``OpenClaw cannot write to the config directory …`` sentence.

File I/O is synchronous inside the async methods (small local files); only lock waits yield. With
``inline=True`` (a one-task process driving the coroutines without an event loop, see
``entrypoints.cli.inline``) nothing ever suspends: lock waits block the thread and there is no in-process
task lock; anyio is then never imported.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import TYPE_CHECKING

from openclaw_mcp.adapters.filesystem._atomic import remove_quietly, temp_name, write_new_file
from openclaw_mcp.adapters.filesystem._lock import (
    LockPolicy,
    SidecarLock,
    Sleep,
    acquire_sidecar_lock,
    blocking_sleep,
    pid_definitely_dead,
)
from openclaw_mcp.adapters.filesystem.includes import FileIncludeLoader
from openclaw_mcp.application.errors import ConfigReadError, ConfigStoreError
from openclaw_mcp.application.ports.config import ConfigEdit, ConfigFile, ConfigStore
from openclaw_mcp.jscompat.text import to_well_formed

__all__ = ["FileConfigStore"]

_BACKUPS = 4  # numbered backups kept besides ``.bak``

# libuv's wording for the errors a config write can meet (what the reference prints).
_UV_MESSAGES = {
    "EACCES": "permission denied",
    "EBUSY": "resource busy or locked",
    "EDQUOT": "disk quota exceeded",
    "EEXIST": "file already exists",
    "EINVAL": "invalid argument",
    "EIO": "i/o error",
    "EISDIR": "illegal operation on a directory",
    "ELOOP": "too many symbolic links encountered",
    "EMFILE": "too many open files",
    "ENAMETOOLONG": "name too long",
    "ENFILE": "file table overflow",
    "ENOENT": "no such file or directory",
    "ENOSPC": "no space left on device",
    "ENOTDIR": "not a directory",
    "ENOTEMPTY": "directory not empty",
    "EPERM": "operation not permitted",
    "EROFS": "read-only file system",
    "ETXTBSY": "text file is busy",
    "EXDEV": "cross-device link not permitted",
}
_DIRECTORY_DENIALS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})


def node_error_message(exc: OSError, syscall: str) -> str:
    """``exc`` as Node.js words it: ``<CODE>: <libuv message>, <syscall> '<path>'[ -> '<path2>']``."""
    code = errno.errorcode.get(exc.errno) if exc.errno is not None else None
    if code is None:
        return " ".join(str(exc).split())
    message = _UV_MESSAGES.get(code) or (exc.strerror or code).lower()
    text = f"{code}: {message}, {syscall}"
    if exc.filename is not None:
        text += f" '{os.fsdecode(exc.filename)}'"
    if exc.filename2 is not None:
        text += f" -> '{os.fsdecode(exc.filename2)}'"
    return text


def _writable(path: str) -> bool:
    """Whether the effective user may write ``path`` (root may write anything)."""
    if os.access in os.supports_effective_ids:
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def _encode(text: str) -> bytes:
    """UTF-8 as Node writes a JavaScript string: lone surrogates become U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return to_well_formed(text).encode("utf-8")


def _decode(data: bytes) -> str:
    """Text as Node's ``readFile(path, "utf8")`` decodes it (invalid bytes become U+FFFD, BOM kept)."""
    return data.decode("utf-8", errors="replace")


def _chmod(path: str, mode: int) -> None:
    try:
        os.chmod(path, mode)
    except OSError:
        pass  # D15: modes are applied where supported


def _make_private_dirs(directory: str) -> None:
    """``mkdir -p`` where every directory created gets mode 0700 (like Node's recursive ``mkdir``)."""
    missing: list[str] = []
    current = directory
    while not os.path.exists(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if os.path.exists(current) and not os.path.isdir(current):
        if current == directory:
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), directory)
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), directory)
    for path in reversed(missing):
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            if not os.path.isdir(path):
                raise
            continue
        _chmod(path, 0o700)


def _fsync_directory(directory: str) -> None:
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(directory, flags)
    except OSError:
        return  # not supported here (e.g. Windows); the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _rotate_backups(path: str, previous: bytes, temp_name: str) -> None:
    """Shift ``.bak`` → ``.bak.1`` … → ``.bak.4`` (dropping the old ``.bak.4``) and store ``previous`` as
    ``.bak``. Best effort, as in the reference: a backup that cannot be written never blocks the write."""
    base = f"{path}.bak"
    staged = os.path.join(os.path.dirname(path), temp_name)
    try:
        write_new_file(staged, previous)
    except OSError:
        staged = ""
    oldest = f"{base}.{_BACKUPS}"
    try:
        if stat.S_ISREG(os.lstat(oldest).st_mode):
            os.unlink(oldest)
    except OSError:
        pass
    for index in range(_BACKUPS - 1, -1, -1):
        source = base if index == 0 else f"{base}.{index}"
        try:
            if not stat.S_ISREG(os.lstat(source).st_mode):
                continue
            _chmod(source, 0o600)
            os.replace(source, f"{base}.{index + 1}")
        except OSError:
            continue
    if staged:
        try:
            os.replace(staged, base)
        except OSError:
            remove_quietly(staged)


def _sweep_abandoned_temps(path: str) -> None:
    """Remove temporary files (write, backup and lock staging) whose creator process is dead, e.g. after a
    ``SIGKILL`` mid-write. Only names this adapter creates are touched. Best effort."""
    directory = os.path.dirname(path)
    base = re.escape(os.path.basename(path))
    pattern = re.compile(rf"^(?:\.{base}\.(?:write|bak)|{base}\.lock)\.(\d+)\.[0-9a-f]{{32}}\.tmp$")
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        match = pattern.match(name)
        if match is not None and pid_definitely_dead(int(match.group(1))):
            remove_quietly(os.path.join(directory, name))


def _task_lock() -> AbstractAsyncContextManager[object]:
    import anyio  # deferred: inline stores never need it

    return anyio.Lock()


class _FileConfigEdit:
    """The ``ConfigEdit`` of one ``FileConfigStore.edit()`` block; unusable once the block has exited."""

    def __init__(self, store: FileConfigStore, raw: bytes | None) -> None:
        self._store = store
        self._raw = raw
        self._current = ConfigFile(store.path, None if raw is None else _decode(raw))
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
        path = self._store.path
        directory = os.path.dirname(path)
        data = _encode(text)
        temp = os.path.join(directory, temp_name(path, "write"))
        if self._raw is not None and not _writable(path):
            # a rename would swap in a new file where the user may not write the old one: refuse, change nothing
            denied = PermissionError(errno.EACCES, "permission denied", path)
            raise ConfigStoreError(
                f"OpenClaw cannot write the config file {path}: it is not writable for this user. Fix its "
                f"ownership or permissions, then try again. Underlying error: {node_error_message(denied, 'open')}"
            )
        try:
            _chmod(directory, 0o700)
            write_new_file(temp, data)
            if self._raw is not None:
                _rotate_backups(path, self._raw, temp_name(path, "bak"))
            os.replace(temp, path)
        except OSError as exc:
            remove_quietly(temp)
            raise self._store._write_error(exc, "rename" if exc.filename2 is not None else "open") from exc
        _fsync_directory(directory)
        self._raw = data
        self._current = ConfigFile(path, _decode(data))

    async def save_rejected(self, text: str, stamp: str) -> str:
        self._ensure_open()
        if not stamp or "/" in stamp or os.sep in stamp or stamp in (".", ".."):
            raise ConfigStoreError(f"invalid rejected-payload stamp: {stamp!r}")
        target = f"{self._store.path}.rejected.{stamp}"
        try:
            write_new_file(target, _encode(text))
        except OSError as exc:
            raise ConfigStoreError(node_error_message(exc, "open")) from exc
        return target


class FileConfigStore:
    """The config file at ``path`` (made absolute), with the reference's lock, atomic writes and backups.

    The keyword arguments tune the lock (defaults: the reference's 80 retries, 25–250 ms, factor 1.2,
    stale after 30 s); ``rng`` seeds the wait jitter. ``inline``: see the module docstring.
    """

    def __init__(
        self,
        path: str,
        *,
        lock_retries: int = 80,
        lock_min_delay: float = 0.025,
        lock_max_delay: float = 0.25,
        lock_factor: float = 1.2,
        lock_stale_after: float = 30.0,
        rng: random.Random | None = None,
        include_roots: Sequence[str] = (),
        inline: bool = False,
    ) -> None:
        self._path = os.path.abspath(path)
        self._include_roots = tuple(include_roots)
        self._policy = LockPolicy(
            retries=lock_retries,
            min_delay=lock_min_delay,
            max_delay=lock_max_delay,
            factor=lock_factor,
            stale_after=lock_stale_after,
        )
        self._rng = rng  # created on the first edit when not given (reads never need it)
        self._inline = inline
        self._sleep: Sleep | None = blocking_sleep if inline else None
        # Serialises this store's own edits (tasks of one process) before they reach the file lock.
        self._local: AbstractAsyncContextManager[object] = nullcontext() if inline else _task_lock()

    @property
    def path(self) -> str:
        return self._path

    @property
    def lock_path(self) -> str:
        return f"{self._path}.lock"

    def _write_error(self, exc: OSError, syscall: str) -> ConfigStoreError:
        """The ``ConfigStoreError`` for a failed lock or write: permission trouble in the config directory
        gets the reference's explanatory sentence around Node's error text."""
        message = node_error_message(exc, syscall)
        if exc.errno in _DIRECTORY_DENIALS and exc.filename is not None:
            directory = os.path.dirname(self._path)
            failed = os.path.dirname(os.path.abspath(os.fsdecode(exc.filename)))
            if failed == directory or failed == os.path.realpath(directory):
                message = (
                    f"OpenClaw cannot write to the config directory {directory}. Fix its ownership or "
                    f"permissions, then try again. Underlying error: {message}"
                )
        return ConfigStoreError(message)

    def _read_raw(self) -> bytes | None:
        try:
            with open(self._path, "rb") as handle:
                return handle.read()
        except FileNotFoundError:
            return None
        except IsADirectoryError as exc:
            raise ConfigReadError("EISDIR: illegal operation on a directory, read") from exc
        except OSError as exc:
            raise ConfigReadError(node_error_message(exc, "open")) from exc

    async def read(self) -> ConfigFile:
        raw = self._read_raw()
        return ConfigFile(self._path, None if raw is None else _decode(raw))

    def include_loader(self) -> FileIncludeLoader:
        """Loads ``$include`` files relative to the config, confined to its directory and ``include_roots``."""
        return FileIncludeLoader(self._path, self._include_roots, inline=self._inline)

    @asynccontextmanager
    async def edit(self) -> AsyncIterator[ConfigEdit]:
        async with self._local:
            try:
                _make_private_dirs(os.path.dirname(self._path))
            except OSError as exc:
                raise ConfigStoreError(node_error_message(exc, "mkdir")) from exc
            try:
                if self._rng is None:
                    import random

                    self._rng = random.Random()
                lock: SidecarLock = await acquire_sidecar_lock(self._path, self._policy, self._rng, self._sleep)
            except OSError as exc:
                raise self._write_error(exc, "open") from exc
            edit: _FileConfigEdit | None = None
            try:
                _sweep_abandoned_temps(self._path)
                edit = _FileConfigEdit(self, self._read_raw())
                yield edit
            except BaseException:
                if edit is not None:
                    edit.close()
                try:
                    lock.release()
                except OSError:
                    pass  # the original failure matters more; a leftover lock of a live pid is ours
                raise
            edit.close()
            try:
                lock.release()
            except OSError as exc:
                raise ConfigStoreError(node_error_message(exc, "unlink")) from exc


if TYPE_CHECKING:
    import random

    _store: ConfigStore = FileConfigStore("/conformance/openclaw.json")
    _edit: ConfigEdit = _FileConfigEdit(FileConfigStore("/conformance/openclaw.json"), None)
