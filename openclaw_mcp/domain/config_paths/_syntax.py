"""Config path syntax: the reference's dot/bracket paths parsed into tokens and formatted back (upstream
``src/shared/dot-path.ts``, ``src/cli/config-cli-path.ts``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from openclaw_mcp.jscompat.jsjson import js_string
from openclaw_mcp.jscompat.jsonstrict import JsonSyntaxError, parse_json_strict
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "ConfigPath",
    "PathError",
    "Token",
    "array_index",
    "format_path",
    "outside_mcp_message",
    "parse_path",
]

Token = str | int

_BLOCKED_KEYS: Final = frozenset({"__proto__", "prototype", "constructor"})
_INDEX = re.compile(r"(?:0|[1-9][0-9]*)")
_MAX_INDEX: Final = 100_000
_PLAIN_SEGMENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$:-]*")


class PathError(ValueError):
    """A config path that does not parse; ``str()`` is the reference's message."""


@dataclass(frozen=True, slots=True)
class ConfigPath:
    """A parsed path: its tokens and the indices of tokens that were quoted numeric keys (``["0"]``)."""

    raw: str
    tokens: tuple[Token, ...]
    quoted_numeric: frozenset[int] = field(default_factory=frozenset)

    @property
    def keys(self) -> list[str]:
        """The tokens as strings (the reference's string-segment path)."""
        return [str(token) for token in self.tokens]


def outside_mcp_message(raw: str) -> str:
    """Our refusal of a path outside the ``mcp`` section (the reference would edit it)."""
    return f'openclaw-mcp manages only the mcp section; "{raw}" is outside it.'


def array_index(segment: str) -> int | None:
    """``parseConfigPathArrayIndex``: a canonical non-negative integer up to 100 000."""
    if _INDEX.fullmatch(segment) is None:
        return None
    index = int(segment)
    return index if index <= _MAX_INDEX else None


# -- parsing --------------------------------------------------------------------------------------


def _quoted_segment(value: str) -> str:
    """A quoted bracket segment (``"a.b"`` as JSON, ``'a.b'`` with JavaScript-like escapes)."""
    quote = '"' if value.startswith('"') else "'"
    if quote == '"':
        try:
            parsed = parse_json_strict(value)
        except JsonSyntaxError:
            parsed = None
        if isinstance(parsed, str):
            return parsed
    if not value.endswith(quote) or len(value) < 2:
        raise ValueError("Unterminated quoted path segment")
    out: list[str] = []
    index = 1
    inner_end = len(value) - 1
    while index < inner_end:
        char = value[index]
        if char == quote:
            raise ValueError("Unexpected quote in path segment")
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 >= inner_end:
            raise ValueError("Unterminated escape in path segment")
        escaped = value[index + 1]
        index += 2
        if escaped in "\n\u2028\u2029":
            continue
        if escaped == "\r":
            if index < inner_end and value[index] == "\n":
                index += 1
            continue
        if escaped == "x":
            digits = value[index : index + 2]
            if re.fullmatch(r"[0-9a-fA-F]{2}", digits) is None:
                raise ValueError("Invalid hexadecimal escape in path segment")
            out.append(chr(int(digits, 16)))
            index += 2
            continue
        if escaped == "0":
            if index < len(value) and value[index].isdigit():
                raise ValueError("Invalid numeric escape in path segment")
            out.append("\0")
            continue
        if escaped in "123456789":
            raise ValueError("Invalid numeric escape in path segment")
        if escaped == "u":
            digits = value[index : index + 4]
            if re.fullmatch(r"[0-9a-fA-F]{4}", digits) is None:
                raise ValueError("Bad Unicode escape in path segment")
            out.append(chr(int(digits, 16)))
            index += 4
            continue
        out.append({"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}.get(escaped, escaped))
    return "".join(out)


def _bracket_segment(inside: str, raw: str) -> Token:
    trimmed = js_trim(inside)
    if trimmed.startswith(('"', "'")):
        try:
            parsed = _quoted_segment(trimmed)
        except ValueError:
            parsed = ""
        if js_trim(parsed):
            return parsed
        raise PathError(f"Invalid path bracket string ({trimmed}): {raw}")
    index = array_index(trimmed)
    return trimmed if index is None else index


def _bracket_close(path: str, start: int) -> int:
    quote: str | None = None
    index = start + 1
    while index < len(path):
        char = path[index]
        if quote is not None:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = None
        elif char == "]":
            return index
        elif char in "\"'" and not js_trim(path[start + 1 : index]):
            quote = char
        index += 1
    return -1


def parse_path(raw: str) -> ConfigPath:
    """``parseConcreteConfigPathWithProvenance``: dots, backslash escapes and brackets; raises ``PathError``."""
    text = js_trim(raw)
    if not text:
        raise PathError("Path is empty.")
    parts: list[Token] = []
    quoted_numeric: set[int] = set()
    current = ""
    emitted = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            if index + 1 >= len(text):
                raise PathError(f"Invalid path (trailing escape): {raw}")
            current += text[index + 1]
            index += 2
            continue
        if char == ".":
            if current and not js_trim(current):
                raise PathError(f"Invalid path (empty segment): {raw}")
            if not emitted and not js_trim(current):
                raise PathError(f"Invalid path (empty segment): {raw}")
            if current:
                parts.append(js_trim(current))
            current = ""
            emitted = False
            index += 1
            continue
        if char == "[":
            if current and not js_trim(current):
                raise PathError(f"Invalid path (empty segment): {raw}")
            if not js_trim(current) and not emitted and parts:
                raise PathError(f"Invalid path (empty segment): {raw}")
            if current:
                parts.append(js_trim(current))
            current = ""
            close = _bracket_close(text, index)
            if close == -1:
                raise PathError(f'Invalid path (missing "]"): {raw}')
            inside = js_trim(text[index + 1 : close])
            if not inside:
                raise PathError(f'Invalid path (empty "[]"): {raw}')
            segment = _bracket_segment(inside, raw)
            if isinstance(segment, str) and inside.startswith(('"', "'")) and array_index(segment) is not None:
                quoted_numeric.add(len(parts))
            parts.append(segment)
            following = text[close + 1] if close + 1 < len(text) else None
            if following is not None and following not in ".[":
                raise PathError(f"Invalid path (missing separator after bracket): {raw}")
            emitted = True
            index = close + 1
            continue
        current += char
        index += 1
    if not emitted and not js_trim(current):
        raise PathError(f"Invalid path (empty segment): {raw}")
    if current:
        parts.append(js_trim(current))
    for part in parts:
        if isinstance(part, str) and part in _BLOCKED_KEYS:
            raise PathError(f"Invalid path segment: {part}")
    return ConfigPath(raw, tuple(parts), frozenset(quoted_numeric))


def _append_segment(path: str, segment: Token) -> str:
    if isinstance(segment, int):
        return f"{path}[{segment}]"
    if _PLAIN_SEGMENT.fullmatch(segment) is None:
        return f"{path}[{js_string(segment)}]"
    return f"{path}.{segment}" if path else segment


def format_path(tokens: Sequence[Token], source: object = None) -> str:
    """``formatConcreteConfigPath``: how ``Updated …`` / ``Removed …`` / ``Config path not found`` name a path
    (a string index into an array of ``source`` is shown as ``[n]``)."""
    cursor: object = source
    out = ""
    for token in tokens:
        segment: Token = token
        if isinstance(token, str) and isinstance(cursor, list):
            index = array_index(token)
            segment = token if index is None else index
        if isinstance(cursor, dict):
            cursor = cursor.get(str(token))
        elif isinstance(cursor, list):
            position = array_index(str(token))
            cursor = cursor[position] if position is not None and position < len(cursor) else None
        else:
            cursor = None
        out = _append_segment(out, segment)
    return out
