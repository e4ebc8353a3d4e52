"""JSON5 parsing that reproduces npm ``json5`` 2.2.3: values, errors and their positions.

The config file is read with ``JSON.parse`` and, when that fails, with ``JSON5.parse`` (spec
cli-registry §1.2 item 2, §10 D9). Every strict JSON text is also JSON5 and parses to the same data, so
one JSON5 parser serves both; a failure is reported with json5's message, e.g.
``JSON5: invalid character ',' at 1:6``.

Reproduced json5 behaviour worth knowing:

* positions are ``line:column``; only ``\\n`` starts a line (``\\r``, U+2028 and U+2029 do not); the column
  counts UTF-16 code units (an astral character counts 2, a tab 1) read so far on the line, so the
  offending character itself is included, and reaching the end of the input adds one more. A raw line
  feed inside a string is therefore reported at ``<next line>:0``;
* an identifier escape that is not an identifier character (``{\\u0030:1}``) is
  ``invalid identifier character`` at the column of its backslash;
* raw U+2028 / U+2029 inside a string are accepted with a warning
  (``JSON5: '\\u2028' in strings is not valid ECMAScript; consider escaping``), collected in ``warnings``;
* a repeated key keeps its first position and takes the last value; ``__proto__`` is an ordinary key.

Values are plain Python data: ``dict`` (insertion ordered), ``list``, ``str``, ``bool``, ``None``,
``int`` for integer literals (decimal or hexadecimal, no fraction or exponent) up to 2**53 in magnitude,
``float`` otherwise (``Infinity``, ``NaN``, ``-0`` → ``-0.0``, big integers rounded to a double as
JavaScript does).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from typing import Any

from openclaw_mcp.jscompat._json5_parser import Json5Error, _Json5Parser, _Node, _signed_int
from openclaw_mcp.jscompat.text import JS_LINE_TERMINATORS

__all__ = [
    "Json5Error",
    "PathSegment",
    "locate_value_line",
    "locate_value_lines",
    "parse_json5",
]

PathSegment = str | int


def _json_integer(literal: str) -> int | float:
    """A JSON integer literal as the JSON5 parser converts it (``-0`` → ``-0.0``, beyond 2**53 a double)."""
    if literal[0] == "-":
        return _signed_int(int(literal[1:]), True)
    return _signed_int(int(literal), False)


# The C decoder of the standard library, with the JSON5 parser's integer conversion: for a strict JSON text
# (a config file usually is one) it builds the same value about fifteen times faster.
_decode_strict_json = json.JSONDecoder(parse_int=_json_integer).decode
_SURROGATE = re.compile("[\ud800-\udfff]")


def _strict_json_fast_path(text: str, warnings: list[str] | None) -> bool:
    """Whether a strict JSON ``text`` may go to the C decoder: not when json5 would warn (raw U+2028/U+2029
    with a ``warnings`` list to fill) or when raw surrogates could pair with escaped ones."""
    if warnings is not None and ("\u2028" in text or "\u2029" in text):
        return False
    return text.isascii() or _SURROGATE.search(text) is None


def parse_json5(text: str, *, warnings: list[str] | None = None) -> Any:
    """``JSON5.parse(text)``: the value, or :class:`Json5Error` with json5's message.

    json5's ``console.warn`` messages (raw U+2028/U+2029 in strings) are appended to ``warnings``.
    Every strict JSON text is JSON5 with the same value: one goes through the standard library's C decoder
    (same numbers, same key order, the last of repeated keys), anything else through the JSON5 parser,
    which also reports the errors.
    """
    if _strict_json_fast_path(text, warnings):
        try:
            return _decode_strict_json(text)
        except (ValueError, RecursionError):
            pass  # not strict JSON (or nested beyond the C decoder's recursion): the JSON5 parser decides
    return _Json5Parser(text, warnings, track=False).parse()[0]


def locate_value_lines(text: str) -> dict[tuple[PathSegment, ...], int]:
    """The 1-based line where each value of the document starts, by path (``()`` is the root).

    Object members are keyed by their (decoded) name, array elements by their index. For a repeated
    key only the occurrence whose value wins is listed. Empty when ``text`` does not parse.
    """
    try:
        _, root = _Json5Parser(text, None, track=True).parse()
    except Json5Error:
        return {}
    assert root is not None
    lines = _LineIndex(text)
    out: dict[tuple[PathSegment, ...], int] = {}
    todo: list[tuple[tuple[PathSegment, ...], _Node]] = [((), root)]
    while todo:
        path, node = todo.pop()
        out[path] = lines.line_at(node.offset)
        children = node.children
        if isinstance(children, dict):
            todo.extend(((*path, key), child) for key, child in children.items())
        elif children is not None:
            todo.extend(((*path, index), child) for index, child in enumerate(children))
    return out


def locate_value_line(text: str, path: Sequence[PathSegment]) -> int | None:
    """The 1-based line where the value at ``path`` starts in the JSON5 ``text``.

    ``path`` segments are object keys (``str``) and array indices (``int``); an object member is
    located at the first character of its value (for an object, its ``{``). Lines end at ``\\n``,
    ``\\r\\n``, ``\\r``, U+2028 and U+2029 (the reference's issue locator). None when the path is empty
    or does not exist, or when the text does not parse.
    """
    if not path:
        return None
    try:
        _, node = _Json5Parser(text, None, track=True).parse()
    except Json5Error:
        return None
    for segment in path:
        if node is None:
            return None
        children = node.children
        if isinstance(segment, str):
            node = children.get(segment) if isinstance(children, dict) else None
        elif isinstance(children, list) and not isinstance(segment, bool) and 0 <= segment < len(children):
            node = children[segment]
        else:
            node = None
    if node is None:
        return None
    return _LineIndex(text).line_at(node.offset)


_LINE_BREAK = re.compile(f"\r\n|[{JS_LINE_TERMINATORS}]")


class _LineIndex:
    __slots__ = ("starts",)

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def line_at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)
