"""The TOML inline table of Codex's ``-c mcp_servers=…`` override (spec runtime-projection §4)."""

from __future__ import annotations

from collections.abc import Callable

from openclaw_mcp.jscompat.jsjson import js_number, js_to_string

__all__ = ["TomlInlineError", "toml_inline"]


class TomlInlineError(ValueError):
    """A value TOML inline syntax (as the reference writes it) cannot hold."""


def _string(text: str) -> str:
    # Only backslash and double quote are escaped, as the reference does: a newline is written raw.
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(key: str) -> str:
    bare = key.isascii() and key.replace("-", "a").replace("_", "a").isalnum()
    return key if bare else _string(key)


def toml_inline(value: object) -> str:
    """``value`` as a TOML inline value: strings quoted, JS number text, ``[a, b]`` lists and ``{ k = v }``
    tables with bare keys where allowed."""
    parts: list[str] = []
    _write(value, parts.append)
    return "".join(parts)


def _write(value: object, append: Callable[[str], None]) -> None:
    kind = type(value)
    if kind is str:
        append(_string(value))  # type: ignore[arg-type]
    elif kind is bool:
        append("true" if value else "false")
    elif kind is int or kind is float:
        append(js_number(value))  # type: ignore[arg-type]
    elif isinstance(value, dict):
        append("{ ")
        for index, (key, item) in enumerate(value.items()):
            append(f", {_key(key)} = " if index else f"{_key(key)} = ")
            if type(item) is str:  # most values: no recursion
                append(_string(item))
            else:
                _write(item, append)
        append(" }")
    elif isinstance(value, list | tuple):
        append("[")
        for index, item in enumerate(value):
            if index:
                append(", ")
            _write(item, append)
        append("]")
    elif isinstance(value, str):  # subclasses of the scalar types
        append(_string(str(value)))
    elif isinstance(value, int | float):
        append(js_number(value))
    else:
        raise TomlInlineError(f"Unsupported TOML inline value: {js_to_string(value)}")
