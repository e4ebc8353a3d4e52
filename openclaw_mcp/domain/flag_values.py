"""Parsers of registry command values (spec cli-registry §3.0.2, §3.7 step 1). Each raises
``ValueProblem`` with the exact message the reference prints."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from openclaw_mcp.jscompat.jsonstrict import JsonSyntaxError, parse_json_strict

__all__ = [
    "ValueProblem",
    "parse_approval",
    "parse_auth",
    "parse_config_value",
    "parse_csv",
    "parse_key_values",
    "parse_seconds",
    "parse_ssl_verify",
    "trimmed_or_none",
]


class ValueProblem(ValueError):
    """A flag or argument value the command refuses; ``str(exc)`` is the message."""


def trimmed_or_none(value: str | None) -> str | None:
    if value is None:
        return None
    text = value.strip()
    return text or None


def parse_csv(value: str | None) -> list[str] | None:
    """Comma-split, trimmed, empties dropped; ``None`` when nothing is left (or not given)."""
    if value is None:
        return None
    items = [item.strip() for item in value.split(",")]
    kept = [item for item in items if item]
    return kept or None


def parse_key_values(entries: Sequence[str], label: str) -> dict[str, str] | None:
    """``KEY=VALUE`` entries (first ``=`` splits; key trimmed; later duplicates overwrite)."""
    result: dict[str, str] = {}
    for entry in entries:
        index = entry.find("=")
        if index <= 0:
            raise ValueProblem(f"{label} entries must use KEY=VALUE.")
        key = entry[:index].strip()
        if not key:
            raise ValueProblem(f"{label} entries must use a non-empty key.")
        result[key] = entry[index + 1 :]
    return result or None


_SECONDS = re.compile(r"^[+-]?((\d+\.?\d*)|(\.\d+))(e[+-]?\d+)?$", re.IGNORECASE)


def parse_seconds(value: str | None, label: str) -> int | float | None:
    """Seconds → milliseconds, multiplied as JavaScript does (``2.5`` → ``2500``, ``0.0001`` → ``0.1``)."""
    if value is None:
        return None
    text = value.strip()
    if not _SECONDS.match(text):
        raise ValueProblem(f"{label} must be a positive number.")
    seconds = float(text)
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueProblem(f"{label} must be a positive number.")
    ms = seconds * 1000
    if not math.isfinite(ms):
        raise ValueProblem(f"{label} must be a positive number.")
    return int(ms) if ms.is_integer() else ms


def parse_approval(value: str | None) -> str | None:
    if value is None:
        return None
    mode = value.strip().lower()
    if mode not in ("auto", "prompt", "approve"):
        raise ValueProblem('--approval must be "auto", "prompt", or "approve".')
    return mode


def parse_auth(value: str | None) -> str | None:
    if value is None:
        return None
    mode = value.strip().lower()
    if not mode:
        return None
    if mode != "oauth":
        raise ValueProblem('Invalid --auth value. Use "oauth".')
    return mode


def parse_ssl_verify(value: str | None) -> bool | None:
    if value is None:
        return None
    text = value.strip().lower()
    if text not in ("true", "false"):
        raise ValueProblem("--ssl-verify must be true or false.")
    return text == "true"


_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def parse_config_value(raw: str) -> Any:
    """The reference's ``parseConfigValue``: JSON for ``{``/``[``, literals, numbers, quoted strings."""
    text = raw.strip()
    if not text:
        raise ValueProblem("Missing value.")
    if text[0] in "{[":
        try:
            return parse_json_strict(text)
        except JsonSyntaxError as exc:
            raise ValueProblem(f"Invalid JSON: SyntaxError: {exc.message}") from exc
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    if _NUMBER.match(text):
        number = float(text)
        return int(number) if number.is_integer() and "." not in text else number
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text
