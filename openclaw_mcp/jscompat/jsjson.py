"""JSON text exactly as JavaScript's ``JSON.stringify`` writes it.

The reference prints and writes JSON with ``JSON.stringify(value, null, 2)``. Three things differ from
Python's ``json`` module and are reproduced here (spec cli-registry §0.4, D2):

* **key order** — JavaScript iterates canonical integer keys (``"0"`` … ``"4294967294"``) first, in
  ascending numeric order, then the other keys in insertion order;
* **numbers** — ECMAScript ``Number::toString``: ``12000`` not ``12000.0``, ``1e+21``, ``1e-7``;
* **escapes** — lone surrogates are written as ``\\udxxx`` (well-formed ``JSON.stringify``).

Values are plain JSON data: ``dict`` (insertion ordered), ``list``, ``str``, ``int``, ``float``, ``bool``
and ``None``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "JsonValue",
    "is_array_index",
    "js_dumps",
    "js_number",
    "js_order",
    "js_ordered_keys",
    "js_string",
    "js_to_string",
    "js_truthy",
]

JsonValue = Any

_MAX_INDEX = 4294967294


def is_array_index(key: str) -> bool:
    """True for a canonical integer key that JavaScript orders first (``"0"``, ``"12"``; not ``"01"``)."""
    if not key or len(key) > 10 or not key.isascii() or not key.isdigit():
        return False
    if len(key) > 1 and key[0] == "0":
        return False
    return int(key) <= _MAX_INDEX


def js_ordered_keys(obj: Mapping[str, Any]) -> list[str]:
    """The keys of ``obj`` in JavaScript property order."""
    for key in obj:
        if key[:1].isdigit():
            break
    else:  # no key starts with a digit (the usual case): insertion order
        return list(obj)
    ints = sorted((k for k in obj if is_array_index(k)), key=int)
    if not ints:
        return list(obj)
    return ints + [k for k in obj if not is_array_index(k)]


def js_order(value: JsonValue) -> JsonValue:
    """A deep copy of ``value`` whose objects are re-keyed in JavaScript property order."""
    if isinstance(value, dict):
        return {k: js_order(value[k]) for k in js_ordered_keys(value)}
    if isinstance(value, list):
        return [js_order(v) for v in value]
    return value


def js_number(value: int | float) -> str:
    """ECMAScript ``Number::toString(value)`` (``String(n)``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 10**21:
            return str(value)
        try:
            value = float(value)
        except OverflowError:  # beyond the double range: JavaScript's number is an infinity
            value = math.inf if value > 0 else -math.inf
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    k = len(digits)
    n = exponent + k  # decimal point position: value = 0.digits × 10^n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exp = f"e{'+' if e >= 0 else '-'}{abs(e)}"
    if k == 1:
        return sign + digits + exp
    return sign + digits[0] + "." + digits[1:] + exp


def js_to_string(value: object) -> str:
    """JavaScript ``String(value)`` for JSON data: ``42.0`` → ``"42"``, arrays join their items with ``,``
    (``null`` and ``undefined`` items empty), objects → ``"[object Object]"``, :data:`UNDEFINED` →
    ``"undefined"``."""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if item is None or item is UNDEFINED else js_to_string(item) for item in value)
    return "[object Object]"


def js_truthy(value: object) -> bool:
    """JavaScript ``Boolean(value)`` for JSON data: ``null``, :data:`UNDEFINED`, ``false``, ``0``, ``-0``,
    ``NaN`` and ``""`` are falsy; objects and arrays (even empty) are truthy."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, str):
        return value != ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0 and value == value  # NaN is not equal to itself
    return True


def _shortest_digits(value: float) -> tuple[str, int]:
    """(digits, exponent) with value == int(digits) × 10^exponent, digits the shortest round trip."""
    text = repr(value)
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, frac = mantissa.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    exponent -= len(frac)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return stripped or "0", exponent


_encode_string = json.encoder.encode_basestring

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


_SURROGATE = re.compile("[\ud800-\udfff]")


def js_string(text: str) -> str:
    """A JSON string literal as ``JSON.stringify`` writes it (non-ASCII raw, controls escaped)."""
    if not _SURROGATE.search(text):
        # Python's C string encoder writes exactly what JSON.stringify writes, surrogates aside.
        return _encode_string(text)
    out = ['"']
    for ch in text:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch < " " or "\ud800" <= ch <= "\udfff":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def js_dumps(value: JsonValue, indent: int | None = 2) -> str:
    """``JSON.stringify(value, null, indent)`` (compact when ``indent`` is None or 0)."""
    if _python_writes_the_same(value):
        # Python's encoder (C when compact) writes the same text when there is no float, no integer of 21
        # digits or more, no integer-like key and no lone surrogate.
        text = _pretty(value, indent) if indent else _compact(value)
        if not _SURROGATE.search(text):
            return text
    parts: list[str] = []
    _write(value, parts, " " * indent if indent else "", "")
    return "".join(parts)


def _pretty(value: JsonValue, indent: int) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=indent)`` for values :func:`_python_writes_the_same`
    accepts (strings, booleans, null, safe integers, lists and objects), written by direct recursion with the
    C string encoder: about twice as fast as the standard library's pure-Python indenting encoder."""
    step = " " * indent
    parts: list[str] = []
    append = parts.append
    encode = _encode_string

    def write(item: JsonValue, current: str) -> None:
        kind = type(item)
        if kind is str:
            append(encode(item))
        elif kind is dict:
            if not item:
                append("{}")
                return
            inner = current + step
            separator = ",\n" + inner
            append("{\n" + inner)
            first = True
            for key, child in item.items():
                if first:
                    first = False
                else:
                    append(separator)
                append(encode(key))
                append(": ")
                write(child, inner)
            append("\n" + current + "}")
        elif kind is list or kind is tuple:
            if not item:
                append("[]")
                return
            inner = current + step
            separator = ",\n" + inner
            append("[\n" + inner)
            first = True
            for child in item:
                if first:
                    first = False
                else:
                    append(separator)
                write(child, inner)
            append("\n" + current + "]")
        elif item is None:
            append("null")
        elif item is True:
            append("true")
        elif item is False:
            append("false")
        else:
            append(int.__repr__(item))

    write(value, "")
    return "".join(parts)


_NON_FINITE = frozenset({"NaN", "Infinity", "-Infinity"})
"""What ``js_number`` writes for a number ``JSON.stringify`` writes as ``null``."""

_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
_INT_LIMIT = 10**21


def _python_writes_the_same(value: JsonValue) -> bool:
    # A container met twice (shared, or a cycle) sends the value to ``_write``, which recurses: a cycle
    # ends there in RecursionError rather than looping here for ever.
    pending = [value]
    pop, extend = pending.pop, pending.extend
    seen: set[int] = set()
    while pending:
        item = pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is dict or kind is list or kind is tuple:
            if id(item) in seen:
                return False
            seen.add(id(item))
        if kind is dict:
            for key in item:
                if type(key) is not str or (key[:1].isdigit() and is_array_index(key)):
                    return False
            extend(item.values())
        elif kind is list or kind is tuple:
            extend(item)
        elif kind is not int or not -_INT_LIMIT < item < _INT_LIMIT:
            return False
    return True


def _write(value: JsonValue, out: list[str], step: str, current: str) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(js_string(value))
    elif isinstance(value, int | float):
        text = js_number(value)
        out.append("null" if text in _NON_FINITE else text)
    elif isinstance(value, dict):
        keys = js_ordered_keys(value)
        if not keys:
            out.append("{}")
            return
        inner = current + step
        sep = ",\n" + inner if step else ","
        out.append("{\n" + inner if step else "{")
        for i, key in enumerate(keys):
            if i:
                out.append(sep)
            out.append(js_string(key))
            out.append(": " if step else ":")
            _write(value[key], out, step, inner)
        out.append("\n" + current + "}" if step else "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = current + step
        sep = ",\n" + inner if step else ","
        out.append("[\n" + inner if step else "[")
        for i, item in enumerate(value):
            if i:
                out.append(sep)
            _write(item, out, step, inner)
        out.append("\n" + current + "]" if step else "]")
    else:
        raise TypeError(f"not JSON data: {type(value).__name__}")
