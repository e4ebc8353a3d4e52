"""The files of ``openclaw completion``: the cached scripts under ``<state>/completions`` and the shell startup
profile that sources one. Writes are atomic (a temporary sibling, ``fsync``, rename) and keep an existing
file's mode; a profile that is a symbolic link is written through to its target, so the link survives."""

from __future__ import annotations

import errno
import os
import stat

from openclaw_mcp.adapters.filesystem._atomic import remove_quietly, temp_name, write_new_file

__all__ = ["FileCompletionFiles", "exists", "os_home", "read_text", "write_profile", "write_script"]


def os_home() -> str:
    """The operating system's home directory (``$HOME`` unset)."""
    return os.path.expanduser("~")


def exists(path: str) -> bool:
    return os.path.exists(path)


def read_text(path: str) -> str | None:
    """The file's text (UTF-8, invalid bytes replaced), None when it does not exist. Raises ``OSError``."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    return data.decode("utf-8", errors="replace")


def _new_file_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _publish(path: str, text: str) -> None:
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = _new_file_mode()
    temp = os.path.join(directory, temp_name(path, "completion"))
    write_new_file(temp, text.encode("utf-8"), mode)
    try:
        os.replace(temp, path)
    except BaseException:
        remove_quietly(temp)
        raise


def write_script(path: str, text: str) -> None:
    """Replace the cached completion script at ``path`` atomically (parent directories created). Raises ``OSError``."""
    _publish(path, text)


def _profile_target(path: str) -> str:
    """Where writing ``path`` must go: the file itself, or the target of the symbolic link it is (even dangling)."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    canonical_dir = os.path.realpath(directory)
    if os.path.exists(path):
        return os.path.realpath(path)
    try:
        link = os.readlink(path)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.EINVAL):
            raise
        return os.path.join(canonical_dir, os.path.basename(path))
    target = link if os.path.isabs(link) else os.path.join(canonical_dir, link)
    target_dir = os.path.dirname(target)
    os.makedirs(target_dir, exist_ok=True)
    return os.path.join(os.path.realpath(target_dir), os.path.basename(target))


def write_profile(path: str, text: str) -> None:
    """Replace the shell profile at ``path`` atomically, through a symbolic link. Raises ``OSError``."""
    _publish(_profile_target(path), text)


class FileCompletionFiles:
    """The completion command's files as one adapter (the composition root builds it): the functions of this
    module as methods."""

    exists = staticmethod(exists)
    os_home = staticmethod(os_home)
    read_text = staticmethod(read_text)
    write_script = staticmethod(write_script)
    write_profile = staticmethod(write_profile)
