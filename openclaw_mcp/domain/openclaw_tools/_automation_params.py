"""The ``automations`` tool's argument readers (spec openclaw-tools.md §5, §6.1; upstream ``common.ts``,
``param-key.ts``): a key is read under its camelCase name or its snake_case form; numbers are strict; a failed check
raises :class:`ToolInputError`, whose message is the tool error text. Part of :mod:`.automations`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.jscompat.numbers import is_safe_integer
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none

__all__ = [
    "MISSING",
    "ToolInputError",
    "has_text",
    "is_number",
    "js_falsy",
    "read_non_negative",
    "read_positive",
    "read_string",
    "require_job_id",
    "require_string",
]

_ID_REQUIRED: Final = "jobId required (id accepted for backward compatibility)"
MISSING: Final = object()
"""What :func:`read_string`'s lookup yields for an absent key (a present ``null`` is ``None``)."""


class ToolInputError(Exception):
    """A local check failed; its message is the tool error text."""


def _snake_case(key: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", key)).lower()


def _raw(params: Mapping[str, Any], key: str) -> Any:
    """The value under ``key`` or its snake_case form (present keys win, even when ``null``); else MISSING."""
    if key in params:
        return params[key]
    snake = _snake_case(key)
    return params[snake] if snake != key and snake in params else MISSING


def read_string(params: Mapping[str, Any], key: str, *, trim: bool = True) -> str | None:
    """``readToolStringParam``: strings only, trimmed unless ``trim=False``; empty → absent."""
    raw = _raw(params, key)
    if not isinstance(raw, str):
        return None
    value = js_trim(raw) if trim else raw
    return value or None


def require_string(params: Mapping[str, Any], key: str) -> str:
    """:func:`read_string`, else ``<key> required``."""
    value = read_string(params, key)
    if value is None:
        raise ToolInputError(f"{key} required")
    return value


_STRICT_NUMBER: Final = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?", re.IGNORECASE | re.ASCII)


def _read_number(raw: Any) -> int | float | None:
    """``readNumberParam`` with ``strict``: finite numbers, or strict numeric strings."""
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return raw if isinstance(raw, int) or math.isfinite(raw) else None
    if isinstance(raw, str):
        text = js_trim(raw)
        if text and _STRICT_NUMBER.fullmatch(text):
            parsed = float(text)
            return parsed if math.isfinite(parsed) else None
    return None


def _read_integer(
    params: Mapping[str, Any], key: str, *, minimum: int, maximum: int | None, message: str
) -> int | None:
    """``readPositiveIntegerParam`` / ``readNonNegativeIntegerParam``: absent, ``null`` or blank → ``None``."""
    raw = _raw(params, key)
    number = _read_number(raw)
    if number is not None and is_safe_integer(number) and number >= minimum:
        if maximum is not None and number > maximum:
            raise ToolInputError(message)
        return int(number)
    if raw is MISSING or raw is None or (isinstance(raw, str) and not js_trim(raw)):
        return None
    raise ToolInputError(message)


def read_positive(
    params: Mapping[str, Any], key: str, *, maximum: int | None = None, message: str | None = None
) -> int | None:
    return _read_integer(
        params, key, minimum=1, maximum=maximum, message=message or f"{key} must be a positive integer"
    )


def read_non_negative(params: Mapping[str, Any], key: str) -> int | None:
    return _read_integer(params, key, minimum=0, maximum=None, message=f"{key} must be a non-negative integer")


def require_job_id(params: Mapping[str, Any]) -> str:
    """``jobId``, else the legacy ``id``."""
    job_id = read_string(params, "jobId") or read_string(params, "id")
    if job_id is None:
        raise ToolInputError(_ID_REQUIRED)
    return job_id


def has_text(value: object) -> bool:
    """A string with something besides JavaScript whitespace."""
    return js_trim_or_none(value) is not None


def is_number(value: object) -> bool:
    """A JSON number (booleans excluded)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def js_falsy(value: object) -> bool:
    """JavaScript falsiness of a JSON value: ``null``, ``false``, ``""``, ``0``."""
    return value is None or value is False or value == "" or (is_number(value) and value == 0)
