"""``--token`` / ``--token-file`` / ``--password`` / ``--password-file`` (spec serve-bridge §3.2).

upstream: ``gateway-secret-options.ts`` (``resolveGatewayAuthOptions``), ``acp/secret-file.ts``
(``readSecretFromFile``) over ``@openclaw/fs-safe`` ``readSecretFileSync`` (16 KiB, no symlinks, no hard
links, regular files only, trimmed, never empty). Error texts are the reference's, checked on node 24.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from openclaw_mcp.entrypoints.paths import resolve_home
from openclaw_mcp.entrypoints.serve.errors import CodedError
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none

__all__ = [
    "SECRET_FILE_MAX_BYTES",
    "GatewayAuthOptions",
    "read_secret_file",
    "resolve_gateway_auth_options",
    "secret_flag_warning",
]

SECRET_FILE_MAX_BYTES: Final = 16 * 1024

# libuv's error texts (what Node prints after the errno name)
_UV_MESSAGES: Final = {
    errno.ENOENT: "no such file or directory",
    errno.ENOTDIR: "not a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ELOOP: "too many symbolic links encountered",
    errno.ENAMETOOLONG: "name too long",
    errno.EISDIR: "illegal operation on a directory",
    errno.EIO: "i/o error",
    errno.EINVAL: "invalid argument",
    errno.EMFILE: "too many open files",
    errno.ENFILE: "file table overflow",
    errno.ENXIO: "no such device or address",
    errno.EBUSY: "resource busy or locked",
    errno.EOVERFLOW: "value too large for defined data type",
    errno.EAGAIN: "resource temporarily unavailable",
}


def _node_error(exc: OSError, syscall: str, path: str) -> CodedError:
    """A Node-style system error: ``ENOENT: no such file or directory, lstat '<path>'`` with code ``ENOENT``."""
    number = exc.errno or errno.EIO
    name = errno.errorcode.get(number, "EIO")
    text = _UV_MESSAGES.get(number) or os.strerror(number).lower()
    return CodedError(f"{name}: {text}, {syscall} '{path}'", code=name)


def _resolve_path(raw: str, env: Mapping[str, str]) -> str:
    """Trimmed, a leading ``~`` or ``~/`` expanded against the OpenClaw home, made absolute and normalised."""
    trimmed = js_trim(raw)
    if trimmed == "~" or trimmed.startswith("~/"):
        trimmed = os.path.join(resolve_home(env), trimmed[2:])
    return os.path.abspath(trimmed)


def _failed(action: str, label: str, path: str, cause: CodedError, shown: str) -> CodedError:
    return CodedError(f"Failed to {action} {label} file at {path}: {shown}", code=cause.code)


def read_secret_file(raw_path: str, label: str, env: Mapping[str, str]) -> str:
    """The trimmed content of a secret file, or :class:`CodedError` with the reference's message."""
    path = _resolve_path(raw_path, env)
    if not js_trim(raw_path):
        raise CodedError(f"{label} file path is empty.", code="invalid-path")
    try:
        info = os.lstat(path)
    except OSError as exc:
        cause = _node_error(exc, "lstat", path)
        raise _failed("inspect", label, path, cause, f"Error: {cause}") from cause
    if stat.S_ISLNK(info.st_mode):
        cause = CodedError(f"{label} file at {path} must not be a symlink.", code="symlink")
        raise _failed("inspect", label, path, cause, f"FsSafeError: {cause}") from cause
    if not stat.S_ISREG(info.st_mode):
        raise CodedError(f"{label} file at {path} must be a regular file.", code="not-file")
    if info.st_nlink > 1:
        raise CodedError(f"{label} file at {path} must not be hardlinked.", code="hardlink")
    if info.st_size > SECRET_FILE_MAX_BYTES:
        raise CodedError(f"{label} file at {path} exceeds {SECRET_FILE_MAX_BYTES} bytes.", code="too-large")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        cause = _node_error(exc, "open", path)
        raise _failed("read", label, path, cause, f"Error: {cause}") from cause
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino) or not stat.S_ISREG(opened.st_mode):
            cause = CodedError("security validation failed", code="path-mismatch")
            raise _failed("read", label, path, cause, f"Error: {cause}") from cause
        chunks: list[bytes] = []
        size = 0
        while size <= SECRET_FILE_MAX_BYTES:
            chunk = os.read(fd, SECRET_FILE_MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        cause = _node_error(exc, "read", path)
        raise _failed("read", label, path, cause, f"Error: {cause}") from cause
    finally:
        os.close(fd)
    if size > SECRET_FILE_MAX_BYTES:
        raise CodedError(f"{label} file at {path} exceeds {SECRET_FILE_MAX_BYTES} bytes.", code="too-large")
    secret = js_trim(b"".join(chunks).decode("utf-8", errors="replace"))
    if not secret:
        raise CodedError(f"{label} file at {path} is empty.", code="invalid-path")
    return secret


@dataclass(frozen=True, slots=True)
class GatewayAuthOptions:
    """The explicit Gateway credentials and the warnings to print (after both resolved)."""

    token: str | None = None
    password: str | None = None
    warnings: tuple[str, ...] = ()


def secret_flag_warning(flag: str) -> str:
    """The reference's warning as its log redaction prints it (decision S7: ``***`` included)."""
    return f"Warning: {flag} *** be exposed via process listings. Prefer {flag}-file or environment variables."


def _secret_option(
    direct: object, file: object, *, direct_flag: str, file_flag: str, label: str, env: Mapping[str, str]
) -> str | None:
    direct_value = js_trim_or_none(direct)
    file_value = js_trim_or_none(file)
    if direct_value and file_value:
        raise CodedError(f"Use either {direct_flag} or {file_flag} for {label}.")
    if file_value:
        return read_secret_file(file_value, label, env)
    return direct_value


def resolve_gateway_auth_options(options: Mapping[str, object], env: Mapping[str, str]) -> GatewayAuthOptions:
    """Token, then password; the first error stops (``CodedError``). Warnings for a non-empty raw
    ``--token``/``--password`` value."""
    token = _secret_option(
        options.get("token"),
        options.get("token_file"),
        direct_flag="--token",
        file_flag="--token-file",
        label="Gateway token",
        env=env,
    )
    password = _secret_option(
        options.get("password"),
        options.get("password_file"),
        direct_flag="--password",
        file_flag="--password-file",
        label="Gateway password",
        env=env,
    )
    warnings = tuple(
        secret_flag_warning(flag)
        for flag, key in (("--token", "token"), ("--password", "password"))
        if isinstance(options.get(key), str) and options.get(key)
    )
    return GatewayAuthOptions(token=token, password=password, warnings=warnings)
