"""JavaScript ``undefined``: one value, distinct from ``None`` (``null``), falsy, left out of JSON objects."""

from __future__ import annotations

import enum
from typing import Final, Literal

__all__ = ["UNDEFINED", "Undefined", "UndefinedType"]


class Undefined(enum.Enum):
    """The type of :data:`UNDEFINED`; an enum so that type checkers narrow ``x is UNDEFINED``."""

    UNDEFINED = "undefined"

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final = Undefined.UNDEFINED
UndefinedType = Literal[Undefined.UNDEFINED]
