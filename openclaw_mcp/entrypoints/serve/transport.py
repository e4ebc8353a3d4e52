"""The stdio transport of ``openclaw mcp serve``: newline-delimited messages over the process's file
descriptors (spec serve-bridge §4.1).

* :class:`FdSource` reads stdin without blocking the event loop (one readiness registration for the whole
  session, read-ahead bounded by a backlog); :class:`FdSink` writes stdout, non-blocking when it can.
* :class:`StdioTransport` frames the input into lines and writes each message whole through one lock, so
  responses and notifications never interleave. stdin end, an unreadable stdin, an over-long line or a failed
  write to stdout (e.g. ``EPIPE``) is "transport closed": the ``on_close`` callback is called once.

Whole frames (decision; the reference's Node writes a stdout pipe synchronously, so its frames are always whole
and its shutdown waits for a reader that never reads without bound): a frame once begun is never abandoned by a
cancellation — its write is shielded; :meth:`StdioTransport.close_output` (or, not waiting,
:meth:`~StdioTransport.stop_output`) starts no new frame and gives the frame being written
:data:`FRAME_GRACE_S` seconds to finish. On a Linux pipe :class:`FdSink` also hands the
kernel a frame only when it fits whole in the pipe's free space (growing the pipe, up to the system's
``pipe-max-size``, for a frame larger than it), so that what sits in the pipe is whole frames even when the
reader has stopped reading: only a frame larger than the largest pipe, whose reader stops for good in the
middle of it, can be left unfinished — after the grace period, so that shutdown stays bounded.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import math
import os
import select
import stat
import struct
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Final, Protocol

import anyio

try:  # POSIX
    import fcntl
    import termios
except ImportError:  # pragma: no cover - Windows
    fcntl = termios = None  # type: ignore[assignment]

__all__ = [
    "FRAME_GRACE_S",
    "MAX_LINE_BYTES",
    "ByteSink",
    "ByteSource",
    "FdSink",
    "FdSource",
    "StdioTransport",
    "TransportClosed",
    "process_stdio",
]

MAX_LINE_BYTES: Final = 10 * 1024 * 1024
"""The SDK's read buffer limit: a line longer than this with its newline, or an unterminated one, closes the
transport."""

FRAME_GRACE_S: Final = 5.0
"""How long the frame being written when the output closes may take to finish (decision: a reader that has
stopped reading must not keep the process alive for ever)."""

_READ_CHUNK: Final = 65536
_READ_BACKLOG: Final = 4 * 1024 * 1024
"""Input read ahead of the server: above this, the descriptor is not read until the server catches up."""


class ByteSource(Protocol):
    async def read(self) -> bytes:
        """The next chunk of input; ``b""`` at end of input. Raises ``OSError`` when unreadable."""
        ...


class ByteSink(Protocol):
    async def write(self, data: bytes) -> None:
        """Write all of ``data``. Raises ``OSError`` (or an anyio stream error) when the peer is gone."""
        ...


class TransportClosed(Exception):
    """stdout can no longer be written."""


# --- stdio file descriptors ------------------------------------------------------------------------------


class FdSource:
    """Reads a file descriptor without blocking the event loop. Pipes, sockets and terminals are watched by
    the event loop for as long as the source is open (one registration, not one per read: each costs system
    calls on every message), and read as soon as they are readable; regular files and devices that cannot be
    polled are read directly — they never block for long. :meth:`close` ends the watch."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            mode = 0
        self._pollable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))
        self._loop: asyncio.AbstractEventLoop | None = None
        self._chunks: collections.deque[bytes] = collections.deque()
        self._error: OSError | None = None
        self._ended = False
        self._arrived: anyio.Event | None = None
        self._paused = False

    async def read(self) -> bytes:
        if self._pollable and self._watch():
            return await self._next_chunk()
        while True:
            if self._pollable:
                try:
                    await anyio.wait_readable(self._fd)
                except (OSError, ValueError, NotImplementedError):
                    self._pollable = False
            try:
                return os.read(self._fd, _READ_CHUNK)
            except BlockingIOError:
                await anyio.sleep(0.01)

    def close(self) -> None:
        """Stop watching the descriptor (it is not closed)."""
        loop, self._loop = self._loop, None
        if loop is not None and not loop.is_closed():
            loop.remove_reader(self._fd)

    def _watch(self) -> bool:
        """Register the readiness callback once (on asyncio); ``False`` when the descriptor cannot be watched."""
        if self._loop is not None or self._ended:
            return True
        try:
            loop = asyncio.get_running_loop()
            loop.add_reader(self._fd, self._on_readable)
        except (RuntimeError, OSError, ValueError, NotImplementedError):
            self._pollable = False
            return False
        self._loop = loop
        return True

    def _on_readable(self) -> None:
        try:
            chunk = os.read(self._fd, _READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self._error, chunk = exc, b""
        if chunk:
            self._chunks.append(chunk)
            if self._loop is not None and sum(map(len, self._chunks)) > _READ_BACKLOG:
                self._loop.remove_reader(self._fd)  # resumed once the reader has caught up
                self._paused = True
        else:
            self._ended = True
            self.close()
        if self._arrived is not None:
            self._arrived.set()

    async def _next_chunk(self) -> bytes:
        while not self._chunks:
            if self._ended:
                if self._error is not None:
                    raise self._error
                return b""
            self._arrived = anyio.Event()
            await self._arrived.wait()
        chunk = b"".join(self._chunks)
        self._chunks.clear()
        if self._paused and self._loop is not None and not self._ended:
            self._paused = False
            self._loop.add_reader(self._fd, self._on_readable)
        return chunk


class FdSink:
    """Writes a file descriptor; a pipe or socket of its own is switched to non-blocking mode so a client
    that stops reading cannot block the event loop (:meth:`restore` puts the flags back). On a Linux pipe a
    frame is handed to the kernel only once it fits whole in the pipe (see the module docstring)."""

    def __init__(self, fd: int, *, shared_with: tuple[int, ...] = (2,)) -> None:
        self._fd = fd
        self._restore_blocking = False
        self._pipe_room: _PipeRoom | None = None
        try:
            info = os.fstat(fd)
        except OSError:
            return
        if not (stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)):
            return
        for other in shared_with:
            try:
                other_info = os.fstat(other)
            except OSError:
                continue
            if (other_info.st_dev, other_info.st_ino) == (info.st_dev, info.st_ino):
                return  # the same pipe as stderr: keep blocking writes (stderr must not see EAGAIN)
        if os.get_blocking(fd):
            os.set_blocking(fd, False)
            self._restore_blocking = True
        if stat.S_ISFIFO(info.st_mode):
            self._pipe_room = _PipeRoom.of(fd)

    async def write(self, data: bytes) -> None:
        if self._pipe_room is not None and len(data) > select.PIPE_BUF:
            await self._pipe_room.wait_for(len(data))  # (a write up to PIPE_BUF is whole by itself)
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                await anyio.wait_writable(self._fd)
                continue
            view = view[written:]

    def restore(self) -> None:
        if self._restore_blocking:
            self._restore_blocking = False
            with contextlib.suppress(OSError):
                os.set_blocking(self._fd, True)


_F_GETPIPE_SZ: Final = getattr(fcntl, "F_GETPIPE_SZ", None)
_F_SETPIPE_SZ: Final = getattr(fcntl, "F_SETPIPE_SZ", None)
_PIPE_MAX_SIZE: Final = "/proc/sys/fs/pipe-max-size"
_ROOM_POLL_MAX_S: Final = 0.05


class _PipeRoom:
    """The free space of a Linux pipe, from its write end: its size (``F_GETPIPE_SZ``) less the bytes not yet
    read (``FIONREAD``) less two pages (the kernel stores a pipe in pages: a page partly read, or partly
    written, still takes a whole one)."""

    def __init__(self, fd: int, slack: int, get_size: int) -> None:
        self._fd = fd
        self._slack = slack
        self._get_size = get_size
        self._max_size: int | None = None

    @classmethod
    def of(cls, fd: int) -> _PipeRoom | None:
        """The room of pipe ``fd``; ``None`` where the system cannot tell it (not Linux)."""
        if fcntl is None or termios is None or _F_GETPIPE_SZ is None:
            return None
        try:
            fcntl.fcntl(fd, _F_GETPIPE_SZ)
        except OSError:
            return None
        return cls(fd, 2 * os.sysconf("SC_PAGE_SIZE"), _F_GETPIPE_SZ)

    async def wait_for(self, size: int) -> None:
        """Return once ``size`` bytes fit whole in the pipe (at once when they never can, even in the largest
        pipe; or when the pipe cannot be inspected, or has no reader left: the write then tells)."""
        need = size + self._slack
        try:
            capacity = fcntl.fcntl(self._fd, self._get_size)
            if need > capacity:
                capacity = self._grow(need, capacity)
                if need > capacity:
                    return
            delay = 0.001
            while capacity - self._unread() < need and not self._reader_gone():
                await anyio.sleep(delay)
                delay = min(2 * delay, _ROOM_POLL_MAX_S)
        except OSError:
            return

    def _unread(self) -> int:
        unread: int = struct.unpack("i", fcntl.ioctl(self._fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        return unread

    def _reader_gone(self) -> bool:
        poller = select.poll()
        poller.register(self._fd, select.POLLOUT)
        return any(events & select.POLLERR for _fd, events in poller.poll(0))

    def _grow(self, need: int, capacity: int) -> int:
        """The pipe's size after growing it to hold ``need`` bytes, when the system allows a pipe so large."""
        if _F_SETPIPE_SZ is None:
            return capacity
        if self._max_size is None:
            try:
                with open(_PIPE_MAX_SIZE, encoding="ascii") as limit:
                    self._max_size = int(limit.read().strip())
            except (OSError, ValueError):
                self._max_size = 0
        if need > self._max_size:
            return capacity
        try:
            grown: int = fcntl.fcntl(self._fd, _F_SETPIPE_SZ, need)
        except OSError:  # e.g. the user's pipe pages are used up
            return capacity
        return grown


# --- framing -------------------------------------------------------------------------------------------


class StdioTransport:
    """Lines in, whole messages out, over a byte source and sink; ``on_close`` is called once when the
    transport closes by itself (input ended or unreadable, a line over :data:`MAX_LINE_BYTES`, a failed
    write)."""

    def __init__(self, source: ByteSource, sink: ByteSink, *, on_close: Callable[[], None] = lambda: None) -> None:
        self._source = source
        self._sink = sink
        self._on_close = on_close
        self._write_lock = anyio.Lock(fast_acquire=True)
        self._closed = False
        self._close_signalled = False
        self._frame: anyio.CancelScope | None = None
        self._finish_by = math.inf

    async def read_lines(self, handle: Callable[[bytes], Awaitable[None]], stopped: Callable[[], bool]) -> None:
        """Hand each input line (without its ``\\n`` or ``\\r\\n``) to ``handle``, one at a time, until the
        input ends (then ``on_close``) or ``stopped()`` is true after a line (the reader's own stop)."""
        buffer = bytearray()
        while True:
            try:
                chunk = await self._source.read()
            except (OSError, anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            start = 0
            too_long = False
            while (end := buffer.find(b"\n", start)) != -1:
                if end + 1 - start > MAX_LINE_BYTES:
                    # However the input was split into reads: the SDK buffers a line and its newline before
                    # taking the line, and refuses to hold more than MAX_LINE_BYTES.
                    too_long = True
                    break
                line = bytes(buffer[start:end])
                start = end + 1
                await handle(line[:-1] if line.endswith(b"\r") else line)
                if stopped():
                    return
            del buffer[:start]
            if too_long or len(buffer) > MAX_LINE_BYTES:
                break  # the SDK clears its buffer and closes the transport
        if not stopped():
            self.signal_close()

    async def send(self, data: bytes) -> None:
        """Write one encoded message whole. Raises :class:`TransportClosed` once stdout failed (the first
        failure also signals the close) or the output was closed. Waiting for its turn can be cancelled;
        once its write has begun, the frame is finished: a cancellation waits for it (see
        :meth:`close_output` for the bound)."""
        async with self._write_lock:
            if self._closed:
                raise TransportClosed("Not connected")
            with anyio.CancelScope(shield=True, deadline=self._finish_by) as frame:
                self._frame = frame
                try:
                    await self._sink.write(data)
                except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                    self._closed = True
                    self.signal_close()
                    raise TransportClosed(_write_error_text(exc)) from exc
                finally:
                    self._frame = None
            if frame.cancelled_caught:  # the grace period of close_output is over: the frame is given up
                self._closed = True
                raise TransportClosed("write timed out")

    def stop_output(self, grace: float = FRAME_GRACE_S) -> None:
        """Start no new frame; the frame being written (if any) is given up after ``grace`` seconds unless
        finished by then. Does not wait (for a ``finally``: a cancelled sender waits for its frame)."""
        self._closed = True
        self._finish_by = min(self._finish_by, anyio.current_time() + grace)
        if self._frame is not None:
            self._frame.deadline = self._finish_by

    async def close_output(self, grace: float = FRAME_GRACE_S) -> None:
        """:meth:`stop_output`, then return once the frame being written (if any) is finished, or given up."""
        self.stop_output(grace)
        with anyio.move_on_after(grace):
            async with self._write_lock:  # the frame being written holds it; waiting senders give up
                pass

    def signal_close(self) -> None:
        if not self._close_signalled:
            self._close_signalled = True
            self._on_close()


def _write_error_text(exc: BaseException) -> str:
    """Node's wording for a failed stdout write (``write EPIPE``)."""
    if isinstance(exc, BrokenPipeError):
        return "write EPIPE"
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"write {errno.errorcode.get(exc.errno, 'EIO')}"
    return str(exc) or type(exc).__name__


@contextlib.contextmanager
def process_stdio(stdin: ByteSource | None, stdout: ByteSink | None) -> Iterator[tuple[ByteSource, ByteSink]]:
    """``stdin`` and ``stdout``, or for ``None`` the process's own: file descriptor 0, and the descriptor of
    ``sys.stdout`` (1 when it has none). On exit the descriptor source is closed and stdout is given back to
    Python."""
    fd_source = fd_sink = None
    if stdin is None:
        stdin = fd_source = FdSource(0)
    if stdout is None:
        try:
            fd = sys.stdout.fileno()
        except (AttributeError, OSError, ValueError):
            fd = 1
        stdout = fd_sink = FdSink(fd)
    try:
        yield stdin, stdout
    finally:
        if fd_source is not None:
            fd_source.close()
        if fd_sink is not None:
            fd_sink.restore()
