"""The cross-process config write lock: a sidecar file ``<target>.lock`` shared with the reference CLI.

Format and rules follow the reference's sidecar lock (OpenClaw 2026.9.6, ``@openclaw/fs-safe`` 0.18), so a
Python writer and a reference writer exclude each other:

- The lock file is created exclusively (mode 0600) and holds the JSON object
  ``{"pid", "createdAt", "starttime"?}`` pretty-printed with two spaces, then a line of whitespace that
  makes every lock file's bytes unique. Port refinement: the bytes are staged in a private file and
  hard-linked into place (atomic, and exclusive like ``O_CREAT | O_EXCL``), so a crash can never leave
  an empty lock behind; without hard-link support the lock is created with ``O_EXCL`` directly.
- An existing lock is *stale* when its owner is gone: the recorded ``starttime`` differs from the live
  process's (the pid was reused) or the pid is definitely dead (no such process, or a Linux zombie). A lock
  that names a live pid is never stale, however old. Only a lock without a valid pid ages out: after
  ``stale_after`` seconds from ``createdAt`` (an unparseable ``createdAt`` is stale at once).
- Port extension: a lock with no owner facts at all (empty or garbled, e.g. a crash between create and
  write) ages out by its modification time instead of blocking forever as in the reference.
- A stale lock is removed only while the ``<target>.lock.reclaim`` directory (the reclaim guard) is held
  and only if its bytes and inode are unchanged; the new lock is then created at once. While someone else
  holds the guard, acquirers wait. Port extension: a guard older than ``stale_after`` (its reclaimer died) is
  removed.
- Waits between attempts: ``min(max, round(base × (1 + random)))`` with
  ``base = min(max, max(min, min × factor^attempt))``; after ``retries`` waits the acquisition fails with
  the reference's ``file lock timeout for <target>``.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from openclaw_mcp.application.errors import ConfigLockTimeout, ConfigStoreError

if TYPE_CHECKING:
    import random

__all__ = [
    "LockPolicy",
    "SidecarLock",
    "Sleep",
    "acquire_sidecar_lock",
    "blocking_sleep",
    "lock_payload",
    "pid_definitely_dead",
    "process_start_time",
]

Sleep = Callable[[float], Awaitable[None]]
"""How lock waits pause: ``anyio.sleep`` (the default) or :func:`blocking_sleep`."""

_MAX_LOCK_BYTES = 1024 * 1024
_TOKEN_BITS = 128
# Compiled on first use (``re``'s cache): only a lock naming a live-looking pid needs them.
_ZOMBIE_STATE = r"^State:\s+(\S)"
_SINGLE_THREAD = r"^Threads:[ \t]+1[ \t]*$"


@dataclass(frozen=True, slots=True)
class LockPolicy:
    """Retry and staleness settings; the defaults are the reference's config-lock options."""

    retries: int = 80
    min_delay: float = 0.025
    max_delay: float = 0.25
    factor: float = 1.2
    stale_after: float = 30.0

    def __post_init__(self) -> None:
        if self.retries < 0 or self.min_delay < 0 or self.factor < 0 or self.stale_after < 0:
            raise ValueError("lock policy values must be non-negative")
        if self.min_delay > self.max_delay:
            raise ValueError("lock min_delay must not exceed max_delay")

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based), jittered by ``rng``."""
        min_ms = self.min_delay * 1000
        max_ms = self.max_delay * 1000
        try:
            scaled = 0.0 if min_ms == 0 else min_ms * self.factor**attempt
        except OverflowError:
            scaled = max_ms
        base = min(max_ms, max(min_ms, scaled))
        return min(max_ms, round(base * (1 + rng.random()))) / 1000


class _Snapshot(NamedTuple):  # a NamedTuple: cheaper to define than a dataclass (CLI start-up)
    raw: bytes
    identity: tuple[int, int]
    mtime: float


class SidecarLock:
    """A lock file this process created; ``release`` removes it only if it is still ours."""

    __slots__ = ("_identity", "_raw", "_released", "path")

    def __init__(self, path: str, raw: bytes, identity: tuple[int, int]) -> None:
        self.path = path
        self._raw = raw
        self._identity = identity
        self._released = False

    def release(self) -> None:
        """Remove the lock file unless it was replaced meanwhile. Raises ``OSError`` on I/O failure."""
        if self._released:
            return
        self._released = True
        try:
            current = _read_snapshot(self.path)
        except _NotRegularFile:
            return
        if current is None or current.raw != self._raw or current.identity != self._identity:
            return
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


class _NotRegularFile(Exception):
    pass


def process_start_time(pid: int) -> int | None:
    """Linux ``/proc/<pid>/stat`` field 22 (start time in clock ticks since boot); ``None`` elsewhere."""
    if pid <= 0 or not sys.platform.startswith("linux"):
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    end = text.rfind(")")
    if end < 0:
        return None
    fields = text[end + 1 :].split()
    if len(fields) < 20:
        return None
    try:
        value = int(fields[19])
    except ValueError:
        return None
    return value if value >= 0 else None


def _iso_now() -> str:
    """``new Date().toISOString()``: UTC, milliseconds, ``Z``."""
    from datetime import UTC, datetime  # deferred (start-up): only writers take the lock

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def lock_payload(pid: int, created_at: str, starttime: int | None, token: bytes) -> bytes:
    """The bytes of a lock file: the owner JSON (two-space indent), then a whitespace line from ``token``."""
    owner: dict[str, object] = {"pid": pid, "createdAt": created_at}
    if starttime is not None:
        owner["starttime"] = starttime
    bits = "".join("\t" if byte & (1 << bit) else " " for byte in token for bit in range(7, -1, -1))
    text = f"{json.dumps(owner, indent=2, ensure_ascii=False)}\n{chr(9) * 8}{bits[:_TOKEN_BITS]}\n"
    return text.encode("utf-8")


def _parse_owner(raw: bytes) -> dict[str, object] | None:
    try:
        value = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _integer(value: object, minimum: int) -> int | None:
    """A JSON number that is an integer ≥ ``minimum`` (``Number.isInteger``), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    else:
        return None
    return number if number >= minimum else None


def _is_zombie(pid: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as handle:
            status = handle.read()
    except OSError:
        return False
    state = re.search(_ZOMBIE_STATE, status, re.MULTILINE)
    return state is not None and state.group(1) == "Z" and re.search(_SINGLE_THREAD, status, re.MULTILINE) is not None


def pid_definitely_dead(pid: int) -> bool:
    """Whether no process ``pid`` can be running: no such process, or a Linux zombie (never on Windows)."""
    if sys.platform == "win32":
        return False  # os.kill would terminate the process there; never judge a Windows owner dead
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OverflowError:
        return True  # no process can have that id
    except OSError:
        return False  # EPERM: it exists but belongs to someone else
    return _is_zombie(pid)


def _parse_created_at(value: str) -> float | None:
    text = value.strip()
    if text.endswith(("z", "Z")):
        text = text[:-1] + "+00:00"
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _is_stale(snapshot: _Snapshot, policy: LockPolicy, now: float) -> bool:
    owner = _parse_owner(snapshot.raw)
    pid = None if owner is None else _integer(owner.get("pid"), 1)
    if owner is not None and pid is not None:
        recorded = _integer(owner.get("starttime"), 0)
        if recorded is not None:
            observed = process_start_time(pid)
            if observed is not None and observed != recorded:
                return True
        return pid_definitely_dead(pid)
    created_at = None if owner is None else owner.get("createdAt")
    if isinstance(created_at, str):
        created = _parse_created_at(created_at)
        return created is None or now - created > policy.stale_after
    return now - snapshot.mtime > policy.stale_after


_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


_NO_LINK = frozenset(
    code
    for code in (
        errno.EPERM,
        errno.EACCES,
        errno.EXDEV,
        errno.EMLINK,
        errno.ENOSYS,
        getattr(errno, "ENOTSUP", None),
        getattr(errno, "EOPNOTSUPP", None),
    )
    if code is not None
)


def _identity(info: os.stat_result) -> tuple[int, int]:
    return (info.st_dev, info.st_ino)


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _read_snapshot(path: str) -> _Snapshot | None:
    """The lock file's bytes and identity, or ``None`` when it is absent or changed while being read."""
    before = _lstat(path)
    if before is None:
        return None
    if not stat.S_ISREG(before.st_mode):
        raise _NotRegularFile(path)
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _NotRegularFile(path) from exc
        raise
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise _NotRegularFile(path)
        if _identity(opened) != _identity(before):
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= _MAX_LOCK_BYTES:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    after = _lstat(path)
    if after is None or _identity(after) != _identity(before):
        return None
    return _Snapshot(b"".join(chunks)[:_MAX_LOCK_BYTES], _identity(after), after.st_mtime)


def _create_exclusive(path: str, raw: bytes) -> tuple[int, int] | None:
    """``O_CREAT | O_EXCL`` create of ``path`` holding ``raw``; its identity, or ``None`` if it exists."""
    try:
        fd = os.open(path, _CREATE_FLAGS, 0o600)
    except FileExistsError:
        return None
    identity: tuple[int, int] | None = None
    try:
        identity = _identity(os.fstat(fd))
        view = memoryview(raw)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except BaseException:
        os.close(fd)
        current = _lstat(path)
        if identity is not None and current is not None and _identity(current) == identity:
            os.unlink(path)
        raise
    os.close(fd)
    return identity


def _try_create(path: str, raw: bytes) -> SidecarLock | None:
    """Create the lock file holding ``raw``; ``None`` when it already exists.

    The content is staged in a private file and hard-linked into place, so the lock appears complete or
    not at all, even if this process is killed meanwhile. Where hard links are unsupported the lock is
    created with ``O_CREAT | O_EXCL`` directly (what the reference does).
    """
    staged = f"{path}.{os.getpid()}.{os.urandom(16).hex()}.tmp"
    try:
        identity = _create_exclusive(staged, raw)
    except OSError:
        identity = None
    if identity is None:
        direct = _create_exclusive(path, raw)
        return None if direct is None else SidecarLock(path, raw, direct)
    try:
        os.link(staged, path)
    except FileExistsError:
        return None
    except OSError as exc:
        if exc.errno not in _NO_LINK:
            raise
        direct = _create_exclusive(path, raw)
        return None if direct is None else SidecarLock(path, raw, direct)
    finally:
        try:
            os.unlink(staged)
        except OSError:
            pass
    return SidecarLock(path, raw, identity)


def _try_take_guard(path: str) -> bool:
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        return False
    return True


def _release_guard(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass  # gone already, or someone put files in it: it then ages out (see _guard_blocks)


def _guard_blocks(path: str, policy: LockPolicy, now: float) -> bool:
    """Whether another reclaimer holds the guard; a guard abandoned for ``stale_after`` is removed."""
    info = _lstat(path)
    if info is None:
        return False
    if stat.S_ISDIR(info.st_mode) and now - info.st_mtime > policy.stale_after:
        try:
            os.rmdir(path)
        except OSError:
            return True
        return False
    return True


async def blocking_sleep(seconds: float) -> None:
    """A lock wait that blocks the thread and never suspends the coroutine (for one-task processes that
    drive coroutines without an event loop)."""
    time.sleep(seconds)


async def _event_loop_sleep(seconds: float) -> None:
    import anyio  # deferred: processes that wait with ``blocking_sleep`` never import it

    await anyio.sleep(seconds)


async def acquire_sidecar_lock(
    target: str, policy: LockPolicy, rng: random.Random, sleep: Sleep | None = None
) -> SidecarLock:
    """Take ``<target>.lock``, waiting and reclaiming stale locks as described in the module docstring.

    Waits go through ``sleep`` (default ``anyio.sleep``). Raises ``ConfigLockTimeout`` when the retries run
    out, ``ConfigStoreError`` when the lock path is not a regular file, ``OSError`` for other I/O failures.
    Cancellation while waiting leaves nothing behind.
    """
    lock_path = f"{target}.lock"
    guard_path = f"{lock_path}.reclaim"
    own_pid = os.getpid()
    own_start = process_start_time(own_pid)
    attempt = 0
    guard_held = False
    pause_for = sleep or _event_loop_sleep

    async def wait() -> None:
        nonlocal attempt
        if attempt >= policy.retries:
            raise ConfigLockTimeout(f"file lock timeout for {target}")
        pause = policy.delay(attempt, rng)
        attempt += 1
        await pause_for(pause)

    try:
        while True:
            if not guard_held and _guard_blocks(guard_path, policy, time.time()):
                await wait()
                continue
            raw = lock_payload(own_pid, _iso_now(), own_start, os.urandom(_TOKEN_BITS // 8))
            created = _try_create(lock_path, raw)
            if created is not None:
                return created
            if guard_held:
                _release_guard(guard_path)
                guard_held = False
                await wait()
                continue
            try:
                snapshot = _read_snapshot(lock_path)
            except _NotRegularFile as exc:
                raise ConfigStoreError(f"sidecar lock is not a regular file: {lock_path}") from exc
            if snapshot is None or not _is_stale(snapshot, policy, time.time()):
                await wait()
                continue
            guard_held = _try_take_guard(guard_path)
            if not guard_held:
                await wait()
                continue
            try:
                current = _read_snapshot(lock_path)
            except _NotRegularFile as exc:
                raise ConfigStoreError(f"sidecar lock is not a regular file: {lock_path}") from exc
            if (
                current is not None
                and current.raw == snapshot.raw
                and current.identity == snapshot.identity
                and _is_stale(current, policy, time.time())
            ):
                try:
                    os.unlink(lock_path)
                    continue  # removed: create ours right away, still holding the guard
                except FileNotFoundError:
                    pass
            _release_guard(guard_path)
            guard_held = False
            await wait()
    finally:
        if guard_held:
            _release_guard(guard_path)
