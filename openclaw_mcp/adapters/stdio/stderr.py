"""The stdio server's stderr as bounded debug lines (spec client-runtime §3.4; upstream ``attachStderrLogging``).

A synchronous state machine fed with raw chunks; the progress flush is a timer the owner provides
(``schedule(delay_seconds, callback) -> cancel``), so tests can drive it with a fake clock.
"""

from __future__ import annotations

import codecs
import re
from collections import deque
from collections.abc import Callable
from typing import Final

from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "MAX_STDERR_LINE_BYTES",
    "PROGRESS_FLUSH_SECONDS",
    "TAIL_LINES",
    "TRUNCATED_PREFIX",
    "Schedule",
    "StderrLineLogger",
    "utf8_suffix",
]

MAX_STDERR_LINE_BYTES: Final = 8192
PROGRESS_FLUSH_SECONDS: Final = 0.25
TRUNCATED_PREFIX: Final = "[stderr line truncated] "
TAIL_LINES: Final = 5

Schedule = Callable[[float, Callable[[], None]], Callable[[], None]]
"""``schedule(delay_seconds, callback)`` starts a one-shot timer and returns the function cancelling it."""

_LINE_BREAK = re.compile("[\r\n]")


def utf8_suffix(text: str, max_bytes: int = MAX_STDERR_LINE_BYTES) -> str:
    """The longest suffix of ``text`` whose UTF-8 encoding has at most ``max_bytes`` bytes."""
    if len(text) * 4 <= max_bytes:
        return text
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return text
    start = len(encoded) - max_bytes
    while start < len(encoded) and encoded[start] & 0xC0 == 0x80:
        start += 1
    return encoded[start:].decode("utf-8", "surrogatepass")


class StderrLineLogger:
    """Splits stderr into lines and logs each as ``bundle-mcp:<server name>: <line>``."""

    def __init__(self, server_name: str, log: Callable[[str], None], schedule: Schedule) -> None:
        self._prefix = f"bundle-mcp:{server_name}: "
        self._log = log
        self._schedule = schedule
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = ""
        self._truncated = False
        self._cancel_timer: Callable[[], None] | None = None
        self._closed = False
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        """The last lines logged (without the prefix): a failed connect reports them (issue 36)."""

    def feed(self, chunk: bytes) -> None:
        """One chunk read from the stream."""
        if self._closed:
            return
        pieces = _LINE_BREAK.split(self._pending + self._decoder.decode(chunk))
        self._pending = pieces.pop()
        for piece in pieces:
            self._emit(piece)
        bounded = utf8_suffix(self._pending)
        if len(bounded) < len(self._pending):
            self._pending = bounded
            self._truncated = True
        if not self._pending:
            self._stop_timer()
        elif self._cancel_timer is None:
            self._cancel_timer = self._schedule(PROGRESS_FLUSH_SECONDS, self._flush_progress)

    def close(self) -> None:
        """Stream end or detach: flush what is pending once; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stop_timer()
        text = self._pending + self._decoder.decode(b"", final=True)
        self._pending = ""
        self._emit(text)

    def _flush_progress(self) -> None:
        self._cancel_timer = None
        if self._closed:
            return
        text, self._pending = self._pending, ""
        self._emit(text)

    def _stop_timer(self) -> None:
        cancel, self._cancel_timer = self._cancel_timer, None
        if cancel is not None:
            cancel()

    def _emit(self, text: str) -> None:
        bounded = utf8_suffix(text)
        if self._truncated or len(bounded) < len(text):
            bounded = TRUNCATED_PREFIX + bounded
        self._truncated = False
        message = js_trim(bounded)
        if message:
            self.tail.append(message)
            self._log(self._prefix + message)
