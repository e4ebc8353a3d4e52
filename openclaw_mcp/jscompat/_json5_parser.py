"""The JSON5 parser behind :mod:`jscompat.json5` (private): npm json5 2.2.3's lexer and parser, its
messages and positions, optionally recording where each value starts."""

from __future__ import annotations

import re
from typing import Any

from openclaw_mcp.jscompat._json5_unicode import _is_id_continue, _is_id_start
from openclaw_mcp.jscompat.numbers import MAX_SAFE_INTEGER
from openclaw_mcp.jscompat.text import JS_LINE_TERMINATORS, JS_WHITESPACE, join_surrogate_pairs, utf16_len


class Json5Error(ValueError):
    """A ``JSON5.parse`` failure; ``message`` is json5's text without the ``SyntaxError: `` prefix."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return self.message


class _Node:
    """Where a value starts (code point offset) and, for containers, where its members start."""

    __slots__ = ("children", "offset")

    def __init__(self, offset: int, children: dict[str, _Node] | list[_Node] | None) -> None:
        self.offset = offset
        self.children = children


# -- lexical tables ------------------------------------------------------------------------------------

# json5 whitespace is JavaScript's (WhiteSpace and LineTerminator).
_WS = re.compile(f"[{JS_WHITESPACE}]*")
_WS_FIRST = frozenset(JS_WHITESPACE)
_COMMENT_END = re.compile(f"[{JS_LINE_TERMINATORS}]")
_DIGITS = re.compile("[0-9]*")
_HEX_DIGITS = re.compile("[0-9A-Fa-f]*")
_IDENT_ASCII = re.compile("[A-Za-z0-9$_\u200c\u200d]*")
_PLAIN = {
    '"': re.compile(f'[^"\\\\{JS_LINE_TERMINATORS}]*'),
    "'": re.compile(f"[^'\\\\{JS_LINE_TERMINATORS}]*"),
}
_HEX = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_LINE_CONTINUATIONS = frozenset("\n\u2028\u2029")
_FORMAT_CHAR = {
    "'": "\\'",
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\0": "\\0",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_EXACT_LIMIT = MAX_SAFE_INTEGER + 1  # every integer up to 2**53 is exact as a float


def _format_char(ch: str) -> str:
    """A character as json5 quotes it in messages."""
    escaped = _FORMAT_CHAR.get(ch)
    if escaped is not None:
        return escaped
    if ch < " ":
        return f"\\x{ord(ch):02x}"
    return ch


# -- the parser ----------------------------------------------------------------------------------------


class _Json5Parser:
    __slots__ = ("end", "pos", "text", "track", "warnings")

    def __init__(self, text: str, warnings: list[str] | None, *, track: bool) -> None:
        if not text.isascii() and any("\ud800" <= ch <= "\udfff" for ch in text):
            # JavaScript sees UTF-16: a surrogate pair spelled as two code points is one character.
            text = join_surrogate_pairs(text)
        self.text = text
        self.end = len(text)
        self.pos = 0
        self.warnings = warnings
        self.track = track

    # -- errors

    def _position(self, consumed: int, extra: int) -> tuple[int, int]:
        """json5's ``line:column`` once ``consumed`` code points are read (``extra``: end-of-input read)."""
        text = self.text
        line = 1 + text.count("\n", 0, consumed)
        line_start = text.rfind("\n", 0, consumed) + 1
        return line, utf16_len(text[line_start:consumed]) + extra

    def _invalid_char(self, index: int) -> Json5Error:
        """json5's error after reading the character at ``index`` (the end of input when past it)."""
        if index >= self.end:
            line, column = self._position(self.end, 1)
            return Json5Error(f"JSON5: invalid end of input at {line}:{column}", line, column)
        line, column = self._position(index + 1, 0)
        char = _format_char(self.text[index])
        return Json5Error(f"JSON5: invalid character '{char}' at {line}:{column}", line, column)

    def _invalid_identifier(self, backslash: int) -> Json5Error:
        line, column = self._position(backslash + 1, 0)
        return Json5Error(f"JSON5: invalid identifier character at {line}:{column}", line, column)

    # -- lexical helpers

    def _skip(self, pos: int) -> int:
        """Skip whitespace and comments from ``pos``; the index of the next significant character."""
        text = self.text
        end = self.end
        while pos < end:
            ch = text[pos]
            if ch in _WS_FIRST:
                m = _WS.match(text, pos)
                assert m is not None
                pos = m.end()
                continue
            if ch != "/":
                return pos
            nxt = text[pos + 1] if pos + 1 < end else ""
            if nxt == "*":
                close = text.find("*/", pos + 2)
                if close < 0:
                    raise self._invalid_char(end)
                pos = close + 2
            elif nxt == "/":
                m2 = _COMMENT_END.search(text, pos + 2)
                pos = end if m2 is None else m2.end()
            else:
                raise self._invalid_char(pos + 1)
        return pos

    def _literal(self, pos: int, word: str) -> int:
        """Match ``word`` whose first letter is at ``pos``; the index after it."""
        text = self.text
        if text.startswith(word, pos):
            return pos + len(word)
        for i in range(1, len(word)):
            if pos + i >= self.end or text[pos + i] != word[i]:
                raise self._invalid_char(pos + i)
        raise AssertionError("unreachable")  # pragma: no cover

    def _hex_code(self, pos: int, count: int) -> int:
        """The value of ``count`` hex digits at ``pos``."""
        text = self.text
        for i in range(pos, pos + count):
            if i >= self.end or text[i] not in _HEX:
                raise self._invalid_char(i)
        return int(text[pos : pos + count], 16)

    def _string(self, pos: int) -> tuple[str, int]:
        """The string whose opening quote is at ``pos``, and the index after its closing quote."""
        text = self.text
        end = self.end
        quote = text[pos]
        plain = _PLAIN[quote]
        pos += 1
        parts: list[str] = []
        surrogates = False
        while True:
            m = plain.match(text, pos)
            assert m is not None
            stop = m.end()
            if stop > pos:
                parts.append(text[pos:stop])
            pos = stop
            if pos >= end:
                raise self._invalid_char(pos)
            ch = text[pos]
            if ch == quote:
                value = "".join(parts)
                if surrogates:
                    value = join_surrogate_pairs(value)
                return value, pos + 1
            if ch == "\\":
                pos += 1
                if pos >= end:
                    raise self._invalid_char(pos)
                esc = text[pos]
                simple = _SIMPLE_ESCAPES.get(esc)
                if simple is not None:
                    parts.append(simple)
                    pos += 1
                elif esc == "u":
                    code = self._hex_code(pos + 1, 4)
                    if 0xD800 <= code <= 0xDFFF:
                        surrogates = True
                    parts.append(chr(code))
                    pos += 5
                elif esc == "x":
                    parts.append(chr(self._hex_code(pos + 1, 2)))
                    pos += 3
                elif esc == "0":
                    if pos + 1 < end and "0" <= text[pos + 1] <= "9":
                        raise self._invalid_char(pos + 1)
                    parts.append("\0")
                    pos += 1
                elif "1" <= esc <= "9":
                    raise self._invalid_char(pos)
                elif esc in _LINE_CONTINUATIONS:
                    pos += 1
                elif esc == "\r":
                    pos += 2 if text.startswith("\n", pos + 1) else 1
                else:
                    parts.append(esc)
                    pos += 1
            elif ch in "\n\r":
                raise self._invalid_char(pos)
            else:  # U+2028 / U+2029: accepted, with json5's console warning
                if self.warnings is not None:
                    message = f"JSON5: '{_format_char(ch)}' in strings is not valid ECMAScript; consider escaping"
                    self.warnings.append(message)
                parts.append(ch)
                pos += 1

    def _number(self, pos: int) -> tuple[int | float, int]:
        """The number (optionally signed) starting at ``pos``, and the index after it."""
        text = self.text
        end = self.end
        negative = False
        ch = text[pos]
        if ch == "-" or ch == "+":
            negative = ch == "-"
            pos += 1
            ch = text[pos] if pos < end else ""
            if ch == "I":
                pos = self._literal(pos, "Infinity")
                return (-_INF if negative else _INF), pos
            if ch == "N":
                return _NAN, self._literal(pos, "NaN")
            if not (ch == "." or "0" <= ch <= "9"):
                raise self._invalid_char(pos)
        start = pos
        is_int = True
        if ch == "0" and pos + 1 < end and text[pos + 1] in "xX":
            m = _HEX_DIGITS.match(text, pos + 2)
            assert m is not None
            if m.end() == pos + 2:
                raise self._invalid_char(pos + 2)
            return _signed_int(int(text[pos + 2 : m.end()], 16), negative), m.end()
        if ch == "0":
            pos += 1
        elif ch == ".":
            is_int = False
            pos += 1
            if pos >= end or not "0" <= text[pos] <= "9":
                raise self._invalid_char(pos)
            m = _DIGITS.match(text, pos)
            assert m is not None
            pos = m.end()
        else:
            m = _DIGITS.match(text, pos)
            assert m is not None
            pos = m.end()
        if ch != "." and pos < end and text[pos] == ".":
            is_int = False
            m = _DIGITS.match(text, pos + 1)
            assert m is not None
            pos = m.end()
        if pos < end and text[pos] in "eE":
            is_int = False
            pos += 1
            if pos < end and text[pos] in "+-":
                pos += 1
            m = _DIGITS.match(text, pos)
            assert m is not None
            if m.end() == pos:
                raise self._invalid_char(pos)
            pos = m.end()
        literal = text[start:pos]
        if is_int:
            return _signed_int(int(literal), negative), pos
        value = float(literal)
        return (-value if negative else value), pos

    def _identifier(self, pos: int) -> tuple[str, int]:
        """An unquoted property name starting at ``pos`` (known to start one), and the index after it."""
        text = self.text
        end = self.end
        parts: list[str] = []
        ch = text[pos]
        if ch == "\\":
            decoded = self._identifier_escape(pos)
            if not (decoded == "$" or decoded == "_" or _is_id_start(decoded)):
                raise self._invalid_identifier(pos)
            parts.append(decoded)
            pos += 6
        else:
            parts.append(ch)
            pos += 1
        while True:
            m = _IDENT_ASCII.match(text, pos)
            assert m is not None
            stop = m.end()
            if stop > pos:
                parts.append(text[pos:stop])
            pos = stop
            if pos >= end:
                break
            ch = text[pos]
            if ch == "\\":
                decoded = self._identifier_escape(pos)
                if not (decoded in "$_\u200c\u200d" or _is_id_continue(decoded)):
                    raise self._invalid_identifier(pos)
                parts.append(decoded)
                pos += 6
            elif ch >= "\x80" and _is_id_continue(ch):
                parts.append(ch)
                pos += 1
            else:
                break
        return "".join(parts), pos

    def _identifier_escape(self, pos: int) -> str:
        """The character of the ``\\uXXXX`` escape whose backslash is at ``pos``."""
        if pos + 1 >= self.end or self.text[pos + 1] != "u":
            raise self._invalid_char(pos + 1)
        return chr(self._hex_code(pos + 2, 4))

    # -- grammar

    def parse(self) -> tuple[Any, _Node | None]:
        """The root value, and (when tracking) where each value starts."""
        text = self.text
        end = self.end
        track = self.track
        # Open containers, innermost last; ``keys`` holds the pending key of every open object.
        stack: list[Any] = []
        keys: list[str] = []
        nodes: list[_Node] = []
        node: _Node | None = None
        pos = 0
        value: Any
        while True:
            # Produce one value (the caller skipped to it).
            pos = self._skip(pos)
            if pos >= end:
                raise self._invalid_char(pos)
            start = pos
            ch = text[pos]
            if ch == "{" or ch == "[":
                pos = self._skip(pos + 1)
                close = "}" if ch == "{" else "]"
                if pos < end and text[pos] == close:
                    value = {} if ch == "{" else []
                    pos += 1
                    if track:
                        node = _Node(start, {} if ch == "{" else [])
                else:
                    if ch == "{":
                        key, pos = self._key(pos)
                        keys.append(key)
                        stack.append({})
                    else:
                        stack.append([])
                    if track:
                        nodes.append(_Node(start, {} if ch == "{" else []))
                    continue
            elif ch == '"' or ch == "'":
                value, pos = self._string(pos)
                if track:
                    node = _Node(start, None)
            else:
                if ch == "n":
                    value, pos = None, self._literal(pos, "null")
                elif ch == "t":
                    value, pos = True, self._literal(pos, "true")
                elif ch == "f":
                    value, pos = False, self._literal(pos, "false")
                elif ch == "I":
                    value, pos = _INF, self._literal(pos, "Infinity")
                elif ch == "N":
                    value, pos = _NAN, self._literal(pos, "NaN")
                elif ch in "+-." or "0" <= ch <= "9":
                    value, pos = self._number(pos)
                else:
                    raise self._invalid_char(pos)
                if track:
                    node = _Node(start, None)
            # Hand the value to its container(s).
            while True:
                pos = self._skip(pos)
                if not stack:
                    if pos < end:
                        raise self._invalid_char(pos)
                    return value, node
                container = stack[-1]
                ch = text[pos] if pos < end else ""
                if type(container) is list:
                    container.append(value)
                    if track:
                        parent = nodes[-1]
                        assert isinstance(parent.children, list) and node is not None
                        parent.children.append(node)
                    if ch == ",":
                        pos = self._skip(pos + 1)
                        if pos < end and text[pos] == "]":
                            pos += 1
                        else:
                            break
                    elif ch == "]":
                        pos += 1
                    else:
                        raise self._invalid_char(pos)
                else:
                    key = keys[-1]
                    container[key] = value
                    if track:
                        parent = nodes[-1]
                        assert isinstance(parent.children, dict) and node is not None
                        parent.children[key] = node
                    if ch == ",":
                        pos = self._skip(pos + 1)
                        if pos < end and text[pos] == "}":
                            pos += 1
                        else:
                            keys[-1], pos = self._key(pos)
                            break
                    elif ch == "}":
                        pos += 1
                    else:
                        raise self._invalid_char(pos)
                    keys.pop()
                value = stack.pop()
                if track:
                    node = nodes.pop()

    def _key(self, pos: int) -> tuple[str, int]:
        """A property name at ``pos`` (whitespace skipped) and its colon; the index after the colon."""
        text = self.text
        if pos >= self.end:
            raise self._invalid_char(pos)
        ch = text[pos]
        if ch == '"' or ch == "'":
            key, pos = self._string(pos)
        elif ch == "\\" or ch == "$" or ch == "_" or _is_id_start(ch):
            key, pos = self._identifier(pos)
        else:
            raise self._invalid_char(pos)
        pos = self._skip(pos)
        if pos >= self.end or text[pos] != ":":
            raise self._invalid_char(pos)
        return key, pos + 1


_INF = float("inf")
_NAN = float("nan")


def _signed_int(number: int, negative: bool) -> int | float:
    """``sign * Number(digits)``: an ``int`` when exact and safe, ``-0.0`` for negative zero."""
    if negative:
        if number == 0:
            return -0.0
        number = -number
    if -_EXACT_LIMIT <= number <= _EXACT_LIMIT:
        return number
    return float(number)
