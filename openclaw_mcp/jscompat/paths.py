"""Node's ``path.posix`` (the reference's path handling on POSIX): ``path.normalize``, ``path.resolve`` and the
reference's ``isPathInside``."""

from __future__ import annotations

import posixpath

__all__ = ["is_path_inside", "path_normalize", "path_resolve"]


def path_normalize(path: str) -> str:
    """Node's ``path.posix.normalize``."""
    if not path:
        return "."
    normalized = posixpath.normpath(path)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    if path.endswith("/") and not normalized.endswith("/"):
        normalized += "/"
    return normalized


def path_resolve(base: str, path: str) -> str:
    """Node's ``path.posix.resolve(base, path)`` for an absolute ``base``."""
    joined = path if path.startswith("/") else f"{base}/{path}"
    normalized = posixpath.normpath(joined)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    return normalized


def is_path_inside(root: str, target: str) -> bool:
    """``target`` is ``root`` or below it (both already resolved)."""
    if target == root:
        return True
    prefix = root if root.endswith("/") else root + "/"
    return target.startswith(prefix)
