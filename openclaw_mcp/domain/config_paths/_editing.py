"""Reading and editing the config document by path (``getAtPath``, ``setAtPath``, ``unsetAtPath``) and the
value parser of ``config set`` (``parseConfigSetValue``)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from openclaw_mcp.domain.config_paths._schema import node_kind
from openclaw_mcp.domain.config_paths._syntax import ConfigPath, PathError, array_index
from openclaw_mcp.jscompat.jsjson import js_string
from openclaw_mcp.jscompat.json5 import Json5Error, parse_json5
from openclaw_mcp.jscompat.jsonstrict import JsonSyntaxError, parse_json_strict
from openclaw_mcp.jscompat.text import js_trim, utf16_len, utf16_truncate

__all__ = ["SetValueError", "get_at", "parse_set_value", "set_at", "unset_at"]


class SetValueError(ValueError):
    """A ``config set`` value that is refused; ``str()`` is the reference's message."""


def get_at(root: object, keys: Sequence[str]) -> tuple[bool, Any]:
    """``getAtPath``: (found, value); arrays take index segments only."""
    current: Any = root
    for key in keys:
        if isinstance(current, list):
            index = array_index(key)
            if index is None or index >= len(current):
                return False, None
            current = current[index]
        elif isinstance(current, dict):
            if key not in current:
                return False, None
            current = current[key]
        else:
            return False, None
    return True, current


def _new_container(path: ConfigPath, position: int) -> list[Any] | dict[str, Any]:
    """What to create for a missing segment: an array when the next token is an index the schema wants
    as one (an unquoted bracket index always is), else an object."""
    tokens = path.tokens
    following = tokens[position + 1]
    if isinstance(following, int):
        return []
    if array_index(following) is None or (position + 1) in path.quoted_numeric:
        return {}
    kind = node_kind(path.keys[: position + 1])
    return {} if kind in ("map", "server", "servers", "mcp", "apps", "oauth", "toolFilter", "codex") else []


def _assign(container: list[Any] | dict[str, Any], key: str, value: Any) -> None:
    if isinstance(container, list):
        index = array_index(key)
        if index is None:
            raise PathError(f'Expected numeric index for array segment "{key}"')
        while len(container) <= index:
            container.append(None)
        container[index] = value
    else:
        container[key] = value


def set_at(root: dict[str, Any], path: ConfigPath, value: Any) -> None:
    """``setAtPath`` on ``root`` (changed in place); raises ``PathError`` for a path through a scalar."""
    keys = path.keys
    current: Any = root
    for position, key in enumerate(keys[:-1]):
        if isinstance(current, list):
            index = array_index(key)
            if index is None:
                raise PathError(f'Expected numeric index for array segment "{key}"')
            existing = current[index] if index < len(current) else None
        elif isinstance(current, dict):
            existing = current.get(key)
        else:
            raise PathError(f'Cannot traverse into "{key}" (not an object)')
        if not isinstance(existing, dict | list):
            existing = _new_container(path, position)
            _assign(current, key, existing)
        current = existing
    if not isinstance(current, dict | list):
        raise PathError(f'Cannot set "{keys[-1]}" (parent is not an object)')
    _assign(current, keys[-1], value)


def unset_at(root: dict[str, Any], keys: Sequence[str]) -> bool:
    """``unsetAtPath`` on ``root`` (changed in place); whether something was removed."""
    found, parent = get_at(root, keys[:-1])
    last = keys[-1]
    if not found:
        return False
    if isinstance(parent, list):
        index = array_index(last)
        if index is None or index >= len(parent):
            return False
        del parent[index]
        return True
    if isinstance(parent, dict) and last in parent:
        del parent[last]
        return True
    return False


# -- the set value ------------------------------------------------------------------------------------


def _check_finite(value: Any) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        raise SetValueError(f"Value must be a finite number, got {shown}")
    if isinstance(value, list):
        for item in value:
            _check_finite(item)
    elif isinstance(value, dict):
        for item in value.values():
            _check_finite(item)


def _strict_failure(raw: str, cause: str) -> str:
    preview = raw if utf16_len(raw) <= 48 else utf16_truncate(raw, 45).rstrip() + "..."
    reason = re.sub(r"[.。]+$", "", cause.strip())
    return (
        f"Could not parse {js_string(preview)} as JSON for --strict-json. {reason}. Use valid JSON. For structured "
        "changes, use a JSON5 config patch object file with `openclaw config patch --file <path> --dry-run`. "
        "For plain strings, omit --strict-json."
    )


def parse_set_value(raw: str, *, strict: bool) -> Any:
    """``parseConfigSetValue``: strict JSON (``--strict-json``), else JSON5 with the raw text as fallback."""
    trimmed = js_trim(raw)
    if strict:
        try:
            value = parse_json_strict(trimmed)
        except JsonSyntaxError as exc:
            raise SetValueError(_strict_failure(raw, exc.message)) from exc
    else:
        try:
            value = parse_json5(trimmed)
        except Json5Error:
            return raw
    _check_finite(value)
    return value
