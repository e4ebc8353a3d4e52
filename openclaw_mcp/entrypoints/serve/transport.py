"""The stdio transport of ``openclaw mcp serve``: newline-delimited messages over the process's file
descriptors (spec serve-bridge §4.1).

* :class:`FdSource` reads stdin without blocking the event loop (one readiness registration for the whole
  session, read-ahead bounded by a backlog); :class:`FdSink` writes stdout, non-blocking when it can.
* :class:`StdioTransport` frames the input into lines and writes each message whole through one lock, so
  responses and notifications never interleave. stdin end, an unreadable stdin, an over-long line or a failed
  write to stdout (e.g. ``EPIPE``) is "transport closed": the ``on_close`` callback is called once.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import os
import stat
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Final, Protocol

import anyio

__all__ = [
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
    that stops reading cannot block the event loop (:meth:`restore` puts the flags back)."""

    def __init__(self, fd: int, *, shared_with: tuple[int, ...] = (2,)) -> None:
        self._fd = fd
        self._restore_blocking = False
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

    async def write(self, data: bytes) -> None:
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
        failure also signals the close)."""
        async with self._write_lock:
            if self._closed:
                raise TransportClosed("Not connected")
            try:
                await self._sink.write(data)
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                self._closed = True
                self.signal_close()
                raise TransportClosed(_write_error_text(exc)) from exc

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
