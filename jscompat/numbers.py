"""JavaScript number facts."""

from __future__ import annotations

from typing import Final, TypeGuard

__all__ = ["MAX_SAFE_INTEGER", "is_safe_integer"]

MAX_SAFE_INTEGER: Final = 9_007_199_254_740_991
"""``Number.MAX_SAFE_INTEGER`` (2**53 - 1)."""


def is_safe_integer(value: object) -> TypeGuard[int | float]:
    """``Number.isSafeInteger(value)`` for a parsed JSON value (``bool`` is not a number)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value.is_integer() and abs(value) <= MAX_SAFE_INTEGER
    return isinstance(value, int) and abs(value) <= MAX_SAFE_INTEGER
