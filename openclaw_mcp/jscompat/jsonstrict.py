"""Strict JSON (RFC 8259) parsing with the exact error messages of V8's ``JSON.parse`` (node 24).

``openclaw mcp set <name> <value>`` parses a value that starts with ``{`` or ``[`` with ``JSON.parse`` and
prints ``Invalid JSON: <message>`` on failure (spec cli-registry §3.7, §10 D9). This module is a small
parser of its own that mirrors V8: the same notion of what is an error, the same message for it, and the
same reported position — a 0-based UTF-16 offset, with a 1-based line and UTF-16 column.

Parsed values are plain Python data: ``dict`` (insertion ordered; a repeated key keeps its first position
and takes the last value, as in JavaScript), ``list``, ``str``, ``bool``, ``None``, ``int`` for integer
literals up to 2**53 in magnitude and ``float`` otherwise (``-0`` is ``-0.0``; big integers are rounded to
the nearest double as JavaScript does).
"""

from __future__ import annotations

import re
from typing import Any

from openclaw_mcp.jscompat.numbers import MAX_SAFE_INTEGER
from openclaw_mcp.jscompat.text import join_surrogate_pairs, utf16_len

__all__ = ["JsonSyntaxError", "js_number_value", "parse_json_strict"]


class JsonSyntaxError(ValueError):
    """A ``JSON.parse`` failure; ``message`` is V8's text without the ``SyntaxError: `` prefix."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


_EXACT_LIMIT = MAX_SAFE_INTEGER + 1  # every integer up to 2**53 is exact as a float
_EXACT_DIGITS = len(str(_EXACT_LIMIT))
_WS = re.compile(r"[ \t\n\r]*")
# A run of string characters that need no attention: not a quote, backslash or control character.
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')
_DIGITS = re.compile(r"[0-9]*")
_HEX4 = re.compile(r"[0-9a-fA-F]{0,4}")
_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_SPECIAL_SOURCES = frozenset({"[object Object]", "undefined", "Infinity", "NaN"})
_CONTEXT = 10

_WITH_POSITION = " at position {pos} (line {line} column {column})"
_EXPECTED_PROP_OR_RBRACE = "Expected property name or '}' in JSON"
_EXPECTED_DOUBLE_QUOTED = "Expected double-quoted property name in JSON"
_EXPECTED_COLON = "Expected ':' after property name in JSON"
_EXPECTED_COMMA_OR_RBRACE = "Expected ',' or '}' after property value in JSON"
_EXPECTED_COMMA_OR_RBRACK = "Expected ',' or ']' after array element in JSON"
_UNTERMINATED_STRING = "Unterminated string in JSON"
_BAD_CONTROL = "Bad control character in string literal in JSON"
_BAD_ESCAPE = "Bad escaped character in JSON"
_BAD_UNICODE = "Bad Unicode escape in JSON"
_NO_NUMBER_AFTER_MINUS = "No number after minus sign in JSON"
_EXPONENT_MISSING = "Exponent part is missing a number in JSON"
_UNTERMINATED_FRACTION = "Unterminated fractional number in JSON"
_NON_WHITESPACE_AFTER = "Unexpected non-whitespace character after JSON"
_UNEXPECTED_NUMBER = "Unexpected number in JSON"
_UNEXPECTED_STRING = "Unexpected string in JSON"


def parse_json_strict(text: str) -> Any:
    """``JSON.parse(text)``; raises :class:`JsonSyntaxError` with V8's message on failure."""
    return _StrictParser(text).parse()


class _StrictParser:
    __slots__ = ("end", "pos", "text")

    def __init__(self, text: str) -> None:
        if not text.isascii() and any("\ud800" <= ch <= "\udfff" for ch in text):
            # JavaScript sees UTF-16: a surrogate pair spelled as two code points is one character.
            text = join_surrogate_pairs(text)
        self.text = text
        self.pos = 0
        self.end = len(text)

    # -- errors -------------------------------------------------------------------------------------

    def _fail(self, what: str, pos: int) -> JsonSyntaxError:
        """An error whose message names its position (V8 messages with ``at position``)."""
        head = self.text[:pos]
        # JSON knows only \r and \n as line terminators; \r\n counts once.
        line = 1 + head.count("\n") + head.count("\r") - head.count("\r\n")
        line_start = max(head.rfind("\n"), head.rfind("\r")) + 1
        column = 1 + utf16_len(head[line_start:])
        offset = utf16_len(head)
        return JsonSyntaxError(what + _WITH_POSITION.format(pos=offset, line=line, column=column))

    def _unexpected(self, pos: int) -> JsonSyntaxError:
        """V8's report for an unexpected character when no specific message applies."""
        text = self.text
        if pos >= self.end:
            return JsonSyntaxError("Unexpected end of JSON input")
        ch = text[pos]
        if ch == '"':
            return self._fail(_UNEXPECTED_STRING, pos)
        if ch == "-" or "0" <= ch <= "9":
            return self._fail(_UNEXPECTED_NUMBER, pos)
        if text in _SPECIAL_SOURCES:
            return JsonSyntaxError(f'"{text}" is not valid JSON')
        return JsonSyntaxError(_unexpected_token_message(text, pos))

    # -- parsing ------------------------------------------------------------------------------------

    def _skip_ws(self) -> int:
        pos = self.pos
        text = self.text
        if pos < self.end and text[pos] in " \t\n\r":
            m = _WS.match(text, pos)
            assert m is not None
            pos = m.end()
            self.pos = pos
        return pos

    def parse(self) -> Any:
        text = self.text
        end = self.end
        # Open containers, innermost last; ``keys`` holds the pending key of every open object.
        stack: list[Any] = []
        keys: list[str] = []
        value: Any
        while True:
            # Produce one value.
            while True:
                pos = self._skip_ws()
                if pos >= end:
                    raise self._unexpected(pos)
                ch = text[pos]
                if ch == '"':
                    self.pos = pos + 1
                    value = self._string()
                elif ch == "-" or "0" <= ch <= "9":
                    value = self._number()
                elif ch == "{":
                    self.pos = pos + 1
                    pos = self._skip_ws()
                    if pos < end and text[pos] == "}":
                        self.pos = pos + 1
                        value = {}
                    else:
                        keys.append(self._key(_EXPECTED_PROP_OR_RBRACE))
                        stack.append({})
                        continue
                elif ch == "[":
                    self.pos = pos + 1
                    pos = self._skip_ws()
                    if pos < end and text[pos] == "]":
                        self.pos = pos + 1
                        value = []
                    else:
                        stack.append([])
                        continue
                elif ch == "t":
                    self._literal("true")
                    value = True
                elif ch == "f":
                    self._literal("false")
                    value = False
                elif ch == "n":
                    self._literal("null")
                    value = None
                else:
                    raise self._unexpected(pos)
                break
            # Hand the value to its container(s).
            while True:
                pos = self._skip_ws()
                if not stack:
                    if pos < end:
                        raise self._fail(_NON_WHITESPACE_AFTER, pos)
                    return value
                container = stack[-1]
                ch = text[pos] if pos < end else ""
                if type(container) is list:
                    container.append(value)
                    if ch == ",":
                        self.pos = pos + 1
                        break
                    if ch == "]":
                        self.pos = pos + 1
                        value = stack.pop()
                        continue
                    raise self._fail(_EXPECTED_COMMA_OR_RBRACK, pos)
                container[keys[-1]] = value
                if ch == ",":
                    self.pos = pos + 1
                    keys[-1] = self._key(_EXPECTED_DOUBLE_QUOTED)
                    break
                if ch == "}":
                    self.pos = pos + 1
                    keys.pop()
                    value = stack.pop()
                    continue
                raise self._fail(_EXPECTED_COMMA_OR_RBRACE, pos)

    def _key(self, missing: str) -> str:
        """A property name and its colon; ``missing`` is the message when no ``"`` starts one."""
        pos = self._skip_ws()
        if pos >= self.end or self.text[pos] != '"':
            raise self._fail(missing, pos)
        self.pos = pos + 1
        key = self._string()
        pos = self._skip_ws()
        if pos >= self.end or self.text[pos] != ":":
            raise self._fail(_EXPECTED_COLON, pos)
        self.pos = pos + 1
        return key

    def _literal(self, word: str) -> None:
        text = self.text
        pos = self.pos
        if text.startswith(word, pos):
            self.pos = pos + len(word)
            return
        for i in range(1, len(word)):
            if pos + i >= self.end:
                break
            if text[pos + i] != word[i]:
                raise self._unexpected(pos + i)
        raise JsonSyntaxError("Unexpected end of JSON input")

    def _string(self) -> str:
        """The rest of a string whose opening quote has been consumed."""
        text = self.text
        end = self.end
        pos = self.pos
        parts: list[str] = []
        surrogates = False
        while True:
            m = _PLAIN.match(text, pos)
            assert m is not None
            stop = m.end()
            if stop > pos:
                parts.append(text[pos:stop])
            pos = stop
            if pos >= end:
                raise self._fail(_UNTERMINATED_STRING, end)
            ch = text[pos]
            if ch == '"':
                self.pos = pos + 1
                result = "".join(parts)
                if surrogates:
                    result = join_surrogate_pairs(result)
                return result
            if ch != "\\":
                raise self._fail(_BAD_CONTROL, pos)
            pos += 1
            if pos >= end:
                raise JsonSyntaxError("Unexpected end of JSON input")
            esc = text[pos]
            simple = _SIMPLE_ESCAPES.get(esc)
            if simple is not None:
                parts.append(simple)
                pos += 1
                continue
            if esc == "u":
                h = _HEX4.match(text, pos + 1)
                assert h is not None
                digits = h.group()
                if len(digits) < 4:
                    raise self._fail(_BAD_UNICODE, h.end())
                code = int(digits, 16)
                if 0xD800 <= code <= 0xDFFF:
                    surrogates = True
                parts.append(chr(code))
                pos = h.end()
                continue
            if ord(esc) > 0xFF:
                raise self._unexpected(pos)
            raise self._fail(_BAD_ESCAPE, pos)

    def _number(self) -> int | float:
        text = self.text
        end = self.end
        start = pos = self.pos
        if text[pos] == "-":
            pos += 1
        if pos < end and text[pos] == "0":
            pos += 1
            if pos < end and "0" <= text[pos] <= "9":
                raise self._unexpected(pos)
        else:
            m = _DIGITS.match(text, pos)
            assert m is not None
            if m.end() == pos:
                raise self._fail(_NO_NUMBER_AFTER_MINUS, pos)
            pos = m.end()
        is_int = True
        if pos < end and text[pos] == ".":
            is_int = False
            pos += 1
            m = _DIGITS.match(text, pos)
            assert m is not None
            if m.end() == pos:
                raise self._fail(_UNTERMINATED_FRACTION, pos)
            pos = m.end()
        if pos < end and text[pos] in "eE":
            is_int = False
            pos += 1
            if pos < end and text[pos] in "+-":
                pos += 1
            m = _DIGITS.match(text, pos)
            assert m is not None
            if m.end() == pos:
                raise self._fail(_EXPONENT_MISSING, pos)
            pos = m.end()
        self.pos = pos
        literal = text[start:pos]
        return js_number_value(literal, is_int)


def js_number_value(literal: str, is_int: bool) -> int | float:
    """The JavaScript number of a decimal literal, as ``int`` when it is an exact safe integer."""
    if is_int and len(literal) - literal.startswith("-") <= _EXACT_DIGITS:
        number = int(literal)
        if number == 0 and literal.startswith("-"):
            return -0.0
        if -_EXACT_LIMIT <= number <= _EXACT_LIMIT:
            return number
    # The nearest double of the literal itself: no ``int`` of more than 4,300 digits is built (Python refuses
    # it), and a literal beyond the double range is an infinity, as in JavaScript.
    return float(literal)


def _unexpected_token_message(text: str, pos: int) -> str:
    """``Unexpected token '<c>', <context> is not valid JSON``, cut in UTF-16 code units as V8 does."""
    if text.isascii():
        length = len(text)

        def units(a: int, b: int) -> str:
            return text[a:b]

    else:
        encoded = text.encode("utf-16-le", "surrogatepass")
        length = len(encoded) // 2
        pos = utf16_len(text[:pos])

        def units(a: int, b: int) -> str:
            return encoded[2 * a : 2 * b].decode("utf-16-le", "surrogatepass")

    ch = units(pos, pos + 1)
    if length < 2 * _CONTEXT + 1:
        context = f'"{text}"'
    elif pos < _CONTEXT:
        context = f'"{units(0, pos + _CONTEXT)}"...'
    elif pos < length - _CONTEXT:
        context = f'..."{units(pos - _CONTEXT, pos + _CONTEXT)}"...'
    else:
        context = f'..."{units(pos - _CONTEXT, length)}"'
    return f"Unexpected token '{ch}', {context} is not valid JSON"
