"""``FileIncludeLoader``: config ``$include`` files on the local filesystem (spec cli-registry §1.2 item 4).

What the reference (``src/config/includes.ts``) checks, in its order, with its messages:

1. ``resolve``: no NUL byte; the directive and the resolved path shorter than 4096 UTF-16 units; relative
   paths are taken from the including file's directory (Node ``path.resolve``/``path.normalize``
   semantics); the path must lie inside the config directory or one of the allowed roots
   (``OPENCLAW_INCLUDE_ROOTS``, resolved at the entry: ``entrypoints.settings.include_roots``); when it
   exists, its real path (symlinks followed) must lie inside the real path of one of those directories. A
   missing file passes here and fails in ``load``.
2. ``load``: a regular file with one link, at most 2 MiB, whose real path stays inside the root it was
   admitted under; read as UTF-8 (invalid bytes become U+FFFD) and parsed as JSON5.

Every failure is a domain ``IncludeError``; the texts name the directive as written (``./a.json``) and,
where the reference does, the resolved path. The config root in the escape messages is the config file's
directory as given (not its real path).

The checks and reads are blocking system calls: ``resolve`` and ``load`` run them in a worker thread
(``anyio.to_thread.run_sync``), so the event loop keeps running. With ``inline=True`` (a one-task process
driving the coroutines without an event loop, see ``entrypoints.cli.inline``) they run directly and never
suspend; anyio is then never imported.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from openclaw_mcp.domain.includes import IncludeError
from openclaw_mcp.jscompat.text import utf16_len

if TYPE_CHECKING:
    from openclaw_mcp.application.ports.config import IncludeLoader

__all__ = ["MAX_INCLUDE_FILE_BYTES", "MAX_INCLUDE_PATH_LENGTH", "FileIncludeLoader"]

MAX_INCLUDE_FILE_BYTES = 2 * 1024 * 1024
MAX_INCLUDE_PATH_LENGTH = 4096
_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR})
_POSIX = os.sep == "/"
T = TypeVar("T")


def _normalize(path: str) -> str:
    """Node's ``path.normalize``: ``.``/``..``/repeated separators folded, a trailing separator kept."""
    if not _POSIX:
        return os.path.normpath(path)
    if not path:
        return "."
    absolute = path.startswith("/")
    parts: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not absolute:
                parts.append("..")
            continue
        parts.append(segment)
    body = "/".join(parts)
    if body and path.endswith("/"):
        body += "/"
    if absolute:
        return "/" + body
    return body or "."


def _resolve(directory: str, path: str) -> str:
    """Node's ``path.resolve(directory, path)`` for an absolute ``directory``: no trailing separator."""
    if not _POSIX:
        return os.path.abspath(os.path.join(directory, path))
    joined = _normalize(f"{directory}/{path}")
    return joined.rstrip("/") or "/"


def _is_inside(root: str, target: str) -> bool:
    """The reference's ``isPathInside``: ``target`` is ``root`` or below it."""
    if _POSIX:
        relative = posixpath.relpath(_resolve("/", target), _resolve("/", root))
        first = relative.split("/")[0]
        return relative == "." or (first != ".." and not relative.startswith("/"))
    try:
        relative = os.path.relpath(os.path.abspath(target), os.path.abspath(root))
    except ValueError:  # another drive
        return False
    first = relative.split(os.sep)[0]
    return relative == "." or (first != ".." and not os.path.isabs(relative))


def _safe_realpath(path: str) -> str:
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return path


class FileIncludeLoader:
    """Loads the include files of the config at ``config_path`` (absolute), admitting paths inside its
    directory and inside ``allowed_roots`` (absolute paths; others are ignored). ``inline``: see the module
    docstring."""

    def __init__(
        self,
        config_path: str,
        allowed_roots: Sequence[str] = (),
        *,
        max_bytes: int = MAX_INCLUDE_FILE_BYTES,
        inline: bool = False,
    ) -> None:
        self._config_dir = _normalize(os.path.dirname(config_path))
        self._allowed = [_normalize(root) for root in allowed_roots if root and os.path.isabs(root)]
        self._max_bytes = max_bytes
        self._real_roots: list[tuple[str, str]] | None = None
        self._admitted: dict[str, str] = {}  # resolved path -> real root it was admitted under
        self._inline = inline

    async def _blocking(self, call: Callable[[str, str], T], first: str, second: str) -> T:
        """``call(first, second)`` off the event loop (directly when inline)."""
        if self._inline:
            return call(first, second)
        import anyio.to_thread  # deferred: an inline process never imports anyio

        return await anyio.to_thread.run_sync(call, first, second)

    async def resolve(self, include_path: str, including_file: str) -> str:
        return await self._blocking(self._resolve_path, include_path, including_file)

    async def load(self, include_path: str, resolved_path: str) -> Any:
        return await self._blocking(self._load_file, include_path, resolved_path)

    def _roots(self) -> list[tuple[str, str]]:
        """``(root, real root)`` pairs, config directory first; real paths taken once per loader."""
        if self._real_roots is None:
            self._real_roots = [(root, _normalize(_safe_realpath(root))) for root in (self._config_dir, *self._allowed)]
        return self._real_roots

    def _resolve_path(self, include_path: str, including_file: str) -> str:
        if "\0" in include_path:
            raise IncludeError("Include path must not contain null bytes")
        if utf16_len(include_path) >= MAX_INCLUDE_PATH_LENGTH:
            raise IncludeError(f"Include path exceeds maximum length ({MAX_INCLUDE_PATH_LENGTH} characters)")
        if os.path.isabs(include_path):
            normalized = _normalize(include_path)
        else:
            normalized = _resolve(os.path.dirname(including_file), include_path)
        if utf16_len(normalized) >= MAX_INCLUDE_PATH_LENGTH:
            raise IncludeError(f"Resolved include path exceeds maximum length ({MAX_INCLUDE_PATH_LENGTH} characters)")
        roots = self._roots()
        lexical = next((real for root, real in roots if _is_inside(root, normalized)), None)
        if lexical is None:
            raise IncludeError(f"Include path escapes config directory: {include_path} (root: {self._config_dir})")
        try:
            real = os.path.realpath(normalized, strict=True)
        except OSError as exc:
            if exc.errno in _MISSING:
                self._admitted[normalized] = lexical
                return normalized
            raise IncludeError(
                f"Failed to resolve include file realpath: {include_path} (resolved: {normalized})"
            ) from exc
        admitted = next((real_root for _, real_root in roots if _is_inside(real_root, real)), None)
        if admitted is None:
            raise IncludeError(
                f"Include path resolves outside config directory (symlink): {include_path} (root: {self._config_dir})"
            )
        self._admitted[normalized] = admitted
        return normalized

    def _load_file(self, include_path: str, resolved_path: str) -> Any:
        text = self._read(include_path, resolved_path)
        from openclaw_mcp.jscompat.json5 import Json5Error, parse_json5

        try:
            return parse_json5(text)
        except Json5Error as exc:
            raise IncludeError(f"Failed to parse include file: {include_path} (resolved: {resolved_path})") from exc

    def _read(self, include_path: str, resolved_path: str) -> str:
        unreadable = f"Failed to read include file: {include_path} (resolved: {resolved_path})"
        insecure = (
            f"Include file failed security checks (regular file, max {self._max_bytes} bytes, no hardlinks): "
            f"{include_path}"
        )
        root = self._admitted.get(resolved_path)
        if root is None:  # not admitted by ``resolve``: re-check containment before any access
            self._resolve_path(resolved_path, resolved_path)
            root = self._admitted[resolved_path]
        try:
            real = os.path.realpath(resolved_path, strict=True)
            before = os.stat(real)
        except OSError as exc:
            raise IncludeError(unreadable) from exc
        if not _is_inside(root, real) or not self._acceptable(before):
            raise IncludeError(insecure)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(real, flags)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # swapped for a symlink since the check
                raise IncludeError(insecure) from exc
            raise IncludeError(unreadable) from exc
        try:
            opened = os.fstat(fd)
            if (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino) or not self._acceptable(opened):
                raise IncludeError(insecure)
            chunks: list[bytes] = []
            size = 0
            while size <= self._max_bytes:
                chunk = os.read(fd, self._max_bytes + 1 - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError as exc:
            raise IncludeError(unreadable) from exc
        finally:
            os.close(fd)
        if size > self._max_bytes:
            raise IncludeError(insecure)
        return b"".join(chunks).decode("utf-8", errors="replace")

    def _acceptable(self, info: os.stat_result) -> bool:
        return stat.S_ISREG(info.st_mode) and info.st_nlink <= 1 and info.st_size <= self._max_bytes


if TYPE_CHECKING:
    _: IncludeLoader = FileIncludeLoader("/openclaw.json")
