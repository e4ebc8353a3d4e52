"""A stdio MCP server process that leads its own process group, and the staged teardown of that group
(spec client-runtime §3.1, §3.6; decisions D5, D6).

The child is spawned without a shell, with ``start_new_session=True`` (so its pid is its process group id)
and, on Linux, raises its own ``oom_score_adj`` to 1000 from a pre-exec hook. Spawning goes through
asyncio's ``loop.subprocess_exec`` with a protocol of our own: anyio's ``open_process`` has no pre-exec hook,
and the protocol hands stdout/stderr chunks over as they arrive and owns the transport it must close.

``close()`` is the staged teardown of §3.6: stdin EOF, then SIGTERM to the group at 2 s, SIGKILL at 4 s,
polling every 100 ms until the process has exited and the group is extinct. Every caller of ``close()``
shares the same timeline (anchored at the first call) and returns when the group is gone.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import anyio

__all__ = [
    "GRACE_SECONDS",
    "KILL_CONFIRM_SECONDS",
    "POLL_SECONDS",
    "ProcessGroupSurvived",
    "StdioProcess",
    "group_alive",
]

GRACE_SECONDS: Final = 2.0
"""stdin EOF → SIGTERM, and SIGTERM → SIGKILL."""
POLL_SECONDS: Final = 0.1
KILL_CONFIRM_SECONDS: Final = 5.0
"""How long after SIGKILL the group may still look alive before the close gives up (a cleanup failure)."""
_PIPE_DRAIN_SECONDS: Final = 0.2
"""After the group is gone, how long stdout/stderr may take to report their end before being closed."""


class ProcessGroupSurvived(Exception):
    """The process group could not be confirmed extinct."""


def _raise_oom_score() -> None:
    """Pre-exec hook (runs in the forked child): raw syscalls only, errors ignored."""
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    except OSError:
        return
    try:
        os.write(fd, b"1000")
    except OSError:
        pass
    finally:
        os.close(fd)


def group_alive(pgid: int) -> bool:
    """Whether process group ``pgid`` still has members (``killpg(pgid, 0)``; EPERM counts as alive).

    On Linux a group whose remaining members are all zombies counts as extinct: a zombie runs nothing and
    holds nothing but its pid, and it lingers until its (possibly slow) reaper collects it.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _group_has_running_member(pgid)


def _group_has_running_member(pgid: int) -> bool:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat_file:
                stat = stat_file.read()
        except OSError:
            continue
        # "<pid> (<comm>) <state> <ppid> <pgrp> ..."; comm may contain spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] not in (b"Z", b"X"):
            return True
    return False


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


class _ChildProtocol(asyncio.SubprocessProtocol):
    def __init__(self, on_stdout: Callable[[bytes], None], on_stderr: Callable[[bytes], None]) -> None:
        self._on_stdout = on_stdout
        self._on_stderr = on_stderr
        self.exited = anyio.Event()
        self.stdout_closed = anyio.Event()
        self.stderr_closed = anyio.Event()
        self.stdin_lost = False
        self._writable = anyio.Event()
        self._writable.set()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self._on_stdout(data)
        elif fd == 2:
            self._on_stderr(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 0:
            self.stdin_lost = True
            self._writable.set()
        elif fd == 1:
            self.stdout_closed.set()
        elif fd == 2:
            self.stderr_closed.set()

    def process_exited(self) -> None:
        self.exited.set()

    def pause_writing(self) -> None:
        if self._writable.is_set():
            self._writable = anyio.Event()

    def resume_writing(self) -> None:
        self._writable.set()

    async def drain(self) -> None:
        await self._writable.wait()


class StdioProcess:
    """One spawned server; ``pid`` is also its process group id."""

    def __init__(self, transport: asyncio.SubprocessTransport, protocol: _ChildProtocol) -> None:
        self._transport = transport
        self._protocol = protocol
        self.pid: int = transport.get_pid()
        self._stdin_closed = False
        self._close_started: float | None = None
        self._term_sent = False
        self._kill_sent_at: float | None = None
        self._released = False

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | None,
        raise_oom_score: bool,
        on_stdout: Callable[[bytes], None],
        on_stderr: Callable[[bytes], None],
    ) -> StdioProcess:
        """Start the server. Raises ``OSError`` (missing executable, bad cwd, …) or ``ValueError``."""
        loop = asyncio.get_running_loop()
        protocol = _ChildProtocol(on_stdout, on_stderr)
        preexec = _raise_oom_score if raise_oom_score and sys.platform.startswith("linux") else None
        transport, _ = await loop.subprocess_exec(
            lambda: protocol,
            *argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
            preexec_fn=preexec,
        )
        return cls(transport, protocol)

    @property
    def returncode(self) -> int | None:
        return self._transport.get_returncode()

    @property
    def exited(self) -> anyio.Event:
        return self._protocol.exited

    @property
    def stdout_closed(self) -> anyio.Event:
        return self._protocol.stdout_closed

    @property
    def stderr_closed(self) -> anyio.Event:
        return self._protocol.stderr_closed

    @property
    def done(self) -> bool:
        """The process exited and its process group is extinct."""
        return self.returncode is not None and not group_alive(self.pid)

    async def write(self, data: bytes) -> None:
        """Write to stdin and wait until the pipe accepted it; raises ``BrokenPipeError`` when it cannot."""
        pipe = self._transport.get_pipe_transport(0)
        if self._stdin_closed or self._protocol.stdin_lost or pipe is None or pipe.is_closing():
            raise BrokenPipeError("Not connected")
        assert isinstance(pipe, asyncio.WriteTransport)
        pipe.write(data)
        await self._protocol.drain()
        if self._protocol.stdin_lost:
            raise BrokenPipeError("stdin of the MCP server closed")

    async def close(self, *, force: bool = False) -> None:
        """Staged teardown (§3.6); ``force`` sends SIGKILL to the group at once (``force_close``).

        Returns when the process exited and the group is extinct, then releases the pipes. Raises
        ``ProcessGroupSurvived`` when the group still looks alive ``KILL_CONFIRM_SECONDS`` after SIGKILL.
        """
        if self._close_started is None:
            self._close_started = anyio.current_time()
        if force and self._kill_sent_at is None:
            self._kill_sent_at = anyio.current_time()
            _signal_group(self.pid, signal.SIGKILL)
        if not self._stdin_closed:
            self._stdin_closed = True
            pipe = self._transport.get_pipe_transport(0)
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                _signal_group(self.pid, signal.SIGTERM)
        while not self.done:
            now = anyio.current_time()
            elapsed = now - self._close_started
            if not self._term_sent and elapsed >= GRACE_SECONDS:
                self._term_sent = True
                _signal_group(self.pid, signal.SIGTERM)
            if self._kill_sent_at is None and elapsed >= 2 * GRACE_SECONDS:
                self._kill_sent_at = now
                _signal_group(self.pid, signal.SIGKILL)
            if self._kill_sent_at is not None and now - self._kill_sent_at >= KILL_CONFIRM_SECONDS:
                raise ProcessGroupSurvived(
                    f"MCP server process group {self.pid} could not be confirmed extinct after SIGKILL"
                )
            await self._pause(now)
        await self._release()

    async def _pause(self, now: float) -> None:
        assert self._close_started is not None
        elapsed = now - self._close_started
        stages = [stage for stage in (GRACE_SECONDS, 2 * GRACE_SECONDS) if stage > elapsed]
        delay = min([POLL_SECONDS, *(stage - elapsed for stage in stages)])
        with anyio.move_on_after(delay):
            if self.returncode is None:
                await self.exited.wait()
            else:
                await anyio.sleep(delay)

    async def _release(self) -> None:
        if self._released:
            return
        self._released = True
        # Nothing in the group holds the pipes any more: their ends arrive promptly (unless a process that
        # left the group kept them), which lets the last stdout/stderr bytes through before closing.
        with anyio.move_on_after(_PIPE_DRAIN_SECONDS):
            await self.stdout_closed.wait()
            await self.stderr_closed.wait()
        self.release()

    def release(self) -> None:
        """Close the pipes and the subprocess transport (idempotent)."""
        self._transport.close()
