"""JavaScript number facts."""

from __future__ import annotations

import math
import re
from typing import Final, TypeGuard

from openclaw_mcp.jscompat.jsjson import js_to_string
from openclaw_mcp.jscompat.text import js_trim

__all__ = ["MAX_SAFE_INTEGER", "is_safe_integer", "js_to_number", "string_to_number"]

MAX_SAFE_INTEGER: Final = 9_007_199_254_740_991
"""``Number.MAX_SAFE_INTEGER`` (2**53 - 1)."""


def is_safe_integer(value: object) -> TypeGuard[int | float]:
    """``Number.isSafeInteger(value)`` for a parsed JSON value (``bool`` is not a number)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value.is_integer() and abs(value) <= MAX_SAFE_INTEGER
    return isinstance(value, int) and abs(value) <= MAX_SAFE_INTEGER


_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")
_BASES = {"x": 16, "o": 8, "b": 2}


def string_to_number(text: str) -> float:
    """ECMAScript ``StringToNumber`` (``Number("…")``): trimmed, ``""`` → 0, decimal (ASCII digits only),
    ``Infinity``, ``0x``/``0o``/``0b`` integers (unsigned); NaN for anything else."""
    text = js_trim(text)
    if not text:
        return 0.0
    if _RADIX.fullmatch(text):
        return float(int(text[2:], _BASES[text[1].lower()]))
    if _DECIMAL.fullmatch(text):
        return float(text.replace("Infinity", "inf"))
    return math.nan


def js_to_number(value: object) -> float:
    """JavaScript ``Number(value)`` (``ToNumber(ToPrimitive(value))``) for JSON data: ``null`` → 0, booleans
    → 0/1, strings by :func:`string_to_number`, arrays through ``String()``, objects and ``undefined`` → NaN."""
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, float):
        return value
    if isinstance(value, str | list):
        return string_to_number(js_to_string(value))
    return math.nan
