"""Response bodies read with the reference's size caps (upstream ``mcp-http-fetch.ts``): 10 485 760 bytes
per body, and per server-sent event on event streams."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx2

from openclaw_mcp.adapters.http._errors import MAX_HTTP_BYTES, BodyTooLarge, EventTooLarge

__all__ = ["LimitedStream", "discard", "response_text"]


async def discard(response: httpx2.Response) -> None:
    """Read the rest of ``response`` (errors ignored) and close it."""
    try:
        async for _ in response.aiter_raw():
            pass
    except (httpx2.HTTPError, httpx2.StreamError):
        pass
    finally:
        await response.aclose()


async def response_text(response: httpx2.Response) -> str:
    """``await response.text()`` of the reference, ``null`` when the body cannot be read in full."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_raw():
            size += len(chunk)
            if size > MAX_HTTP_BYTES:
                return "null"
            chunks.append(chunk)
    except (httpx2.HTTPError, httpx2.StreamError):
        return "null"
    finally:
        await response.aclose()
    return b"".join(chunks).decode("utf-8", errors="replace").removeprefix("\ufeff")


class _EventSizeLimit:
    """Counts the bytes of the server-sent event being received (upstream ``limitMcpResponseStream``):
    field lines count with their line break, comment lines do not, a blank line starts a new event."""

    def __init__(self) -> None:
        self._retained = 0
        self._line = 0
        self._comment = False
        self._previous_cr = False

    def _check(self) -> None:
        if self._retained + self._line > MAX_HTTP_BYTES:
            raise EventTooLarge()

    def _finish_line(self) -> None:
        if self._line == 0:
            self._retained = 0
        elif not self._comment:
            self._retained += self._line + 1
        self._line = 0
        self._comment = False
        self._check()

    def feed(self, chunk: bytes) -> None:
        size = len(chunk)
        cursor = 1 if self._previous_cr and chunk[:1] == b"\n" else 0
        if size:
            self._previous_cr = False
        lf = chunk.find(b"\n", cursor)
        cr = chunk.find(b"\r", cursor)
        while cursor < size:
            delimiter = cr if lf < 0 else lf if cr < 0 else min(lf, cr)
            end = size if delimiter < 0 else delimiter
            if end > cursor:
                if self._line == 0:
                    self._comment = chunk[cursor] == 0x3A
                self._line += end - cursor
                self._previous_cr = False
                self._check()
            if delimiter < 0:
                break
            self._finish_line()
            self._previous_cr = chunk[delimiter] == 0x0D
            cursor = delimiter + 1
            if self._previous_cr and cursor < size and chunk[cursor] == 0x0A:
                cursor += 1
                self._previous_cr = False
            if 0 <= lf < cursor:
                lf = chunk.find(b"\n", cursor)
            if 0 <= cr < cursor:
                cr = chunk.find(b"\r", cursor)


class LimitedStream(httpx2.AsyncByteStream):
    """A response body with the size caps applied while it is read."""

    def __init__(
        self,
        inner: httpx2.AsyncByteStream,
        *,
        event_stream: bool,
        on_error: Callable[[Exception], None],
    ) -> None:
        self._inner = inner
        self._event_stream = event_stream
        self._on_error = on_error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        events = _EventSizeLimit() if self._event_stream else None
        total = 0
        try:
            async for chunk in self._inner:
                if events is not None:
                    events.feed(chunk)
                else:
                    total += len(chunk)
                    if total > MAX_HTTP_BYTES:
                        raise BodyTooLarge()
                yield chunk
        except (httpx2.TransportError, BodyTooLarge, EventTooLarge) as exc:
            self._on_error(exc)
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()
