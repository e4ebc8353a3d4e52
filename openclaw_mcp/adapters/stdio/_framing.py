"""Newline-delimited JSON-RPC framing of a stdio server's stdout (spec client-runtime §3.2).

Same semantics as the reference ``ReadBuffer``: a chunk that would grow the buffered bytes past 10 MiB
clears the buffer and fails the transport; each ``\\n``-terminated line, minus one trailing ``\\r``, is
decoded as UTF-8 (invalid bytes replaced) and parsed as a JSON-RPC message with the SDK's own message
adapter. A bad line becomes an ``InvalidLine`` item (the SDK session reports it) and reading continues.
"""

from __future__ import annotations

from typing import Final

import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ["MAX_READ_BUFFER_BYTES", "InvalidLine", "LineFramer", "ReadBufferOverflow", "encode_message"]

MAX_READ_BUFFER_BYTES: Final = 10 * 1024 * 1024


class ReadBufferOverflow(Exception):
    """The unterminated stdout data would exceed ``MAX_READ_BUFFER_BYTES``."""


class LineFramer:
    def __init__(self, max_bytes: int = MAX_READ_BUFFER_BYTES) -> None:
        self._max_bytes = max_bytes
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> list[SessionMessage | Exception]:
        """The messages (or per-line errors) completed by ``chunk``; raises ``ReadBufferOverflow``."""
        if len(self._buffer) + len(chunk) > self._max_bytes:
            self.clear()
            raise ReadBufferOverflow(f"ReadBuffer exceeded maximum size of {self._max_bytes} bytes")
        self._buffer += chunk
        items: list[SessionMessage | Exception] = []
        start = 0
        while (end := self._buffer.find(b"\n", start)) != -1:
            line = self._buffer[start:end].decode("utf-8", "replace")
            start = end + 1
            items.append(_parse(line.removesuffix("\r")))
        if start:
            del self._buffer[:start]
        return items

    def clear(self) -> None:
        self._buffer = bytearray()


class InvalidLine(ValueError):
    """A stdout line that is not a JSON-RPC message (the pydantic details are its ``__cause__``)."""


def _parse(line: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValidationError as exc:
        not_json = any(error["type"] == "json_invalid" for error in exc.errors())
        error = InvalidLine("stdout line is not valid JSON" if not_json else "stdout line is not a JSON-RPC message")
        error.__cause__ = exc
        return error


def encode_message(message: SessionMessage) -> bytes:
    """Compact JSON, non-ASCII unescaped, newline-terminated (what the SDK's own stdio transport writes)."""
    return message.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
