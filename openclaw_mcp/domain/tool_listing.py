"""The shape check of a ``tools/list`` result page (spec client-runtime §4.4 last paragraph, decision D10):
the SDK's ``ListToolsResultSchema`` with its error texts. A page that fails it fails the whole listing."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["InvalidToolListing", "validate_list_tools_result"]


class InvalidToolListing(ValueError):
    """A ``tools/list`` page that does not match the MCP schema; the whole listing fails."""


def _kind(value: object) -> str:
    """The JSON kind of a value, as the SDK's schema errors name it."""
    kinds: tuple[tuple[type | tuple[type, ...], str], ...] = (
        (bool, "boolean"),
        ((int, float), "number"),
        (str, "string"),
        (list, "array"),
        (dict, "object"),
    )
    if value is None:
        return "null"
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def _field(obj: Mapping[str, Any], key: str, kind: str, path: str, required: bool = False) -> str | None:
    """A problem of ``obj[key]`` (``kind`` ``record`` is a plain object reported as a record)."""
    if key not in obj:
        return f"{path}.{key}: expected {kind}, received undefined" if required else None
    actual = _kind(obj[key])
    return (
        None
        if actual == kind or (kind == "record" and actual == "object")
        else f"{path}.{key}: expected {kind}, received {actual}"
    )


def _one_of(obj: Mapping[str, Any], key: str, options: tuple[str, ...], path: str) -> str | None:
    if key not in obj or obj[key] in options:
        return None
    return f"{path}.{key}: expected one of " + "|".join(f'"{option}"' for option in options)


def _schema_problems(tool: Mapping[str, Any], key: str, path: str, required: bool) -> Iterator[str | None]:
    yield _field(tool, key, "object", path, required)
    schema, where = tool.get(key), f"{path}.{key}"
    if not isinstance(schema, dict):
        return
    yield None if schema.get("type") == "object" else f'{where}.type: expected "object"'
    yield _field(schema, "properties", "record", where)
    properties = schema.get("properties")
    for name, value in properties.items() if isinstance(properties, dict) else ():
        if not isinstance(value, dict | list):
            yield f"{where}.properties.{name}: expected object, received {_kind(value)}"
    yield _field(schema, "required", "array", where)
    yield from _strings(schema.get("required"), f"{where}.required")


def _strings(values: object, path: str) -> Iterator[str | None]:
    for index, value in enumerate(values if isinstance(values, list) else []):
        if not isinstance(value, str):
            yield f"{path}.{index}: expected string, received {_kind(value)}"


def _tool_problems(tool: object, path: str) -> Iterator[str | None]:
    if not isinstance(tool, dict):
        yield f"{path}: expected object, received {_kind(tool)}"
        return
    yield _field(tool, "name", "string", path, required=True)
    yield _field(tool, "title", "string", path)
    yield _field(tool, "description", "string", path)
    yield _field(tool, "icons", "array", path)
    for index, icon in enumerate(tool["icons"] if isinstance(tool.get("icons"), list) else []):
        where = f"{path}.icons.{index}"
        if not isinstance(icon, dict):
            yield f"{where}: expected object, received {_kind(icon)}"
            continue
        yield _field(icon, "src", "string", where, required=True)
        yield _field(icon, "mimeType", "string", where)
        yield _field(icon, "sizes", "array", where)
        yield from _strings(icon.get("sizes"), f"{where}.sizes")
        yield _one_of(icon, "theme", ("light", "dark"), where)
    yield from _schema_problems(tool, "inputSchema", path, required=True)
    yield from _schema_problems(tool, "outputSchema", path, required=False)
    yield _field(tool, "annotations", "object", path)
    if isinstance(tool.get("annotations"), dict):
        yield _field(tool["annotations"], "title", "string", f"{path}.annotations")
        for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
            yield _field(tool["annotations"], hint, "boolean", f"{path}.annotations")
    yield _field(tool, "execution", "object", path)
    if isinstance(tool.get("execution"), dict):
        yield _one_of(tool["execution"], "taskSupport", ("required", "optional", "forbidden"), f"{path}.execution")
    yield _field(tool, "_meta", "record", path)


def _page_problems(page: object) -> Iterator[str | None]:
    if not isinstance(page, dict):
        yield f"(root): expected object, received {_kind(page)}"
        return
    yield _field(page, "_meta", "object", "(root)")
    if page.get("nextCursor") is not None:
        yield _field(page, "nextCursor", "string", "(root)")
    yield _field(page, "tools", "array", "(root)", required=True)
    for index, tool in enumerate(page["tools"] if isinstance(page.get("tools"), list) else []):
        yield from _tool_problems(tool, f"tools.{index}")


def validate_list_tools_result(page: object) -> None:
    """Raise :class:`InvalidToolListing` unless ``page`` is a valid ``tools/list`` result.

    The checks are the MCP SDK's ``ListToolsResultSchema`` (every tool: string ``name``; ``inputSchema``
    an object with ``type: "object"``, ``properties`` a map of objects and ``required`` a list of strings
    when present; the same for ``outputSchema``; the types of ``title``, ``description``, ``icons``,
    ``annotations``, ``execution.taskSupport`` and ``_meta``). ``nextCursor`` must be a string, or
    ``null`` (decision D11). Message (D10), for the first problem:
    ``MCP tool listing returned an invalid result: tools.0.inputSchema.type: expected "object"``.
    """
    problem = next((p for p in _page_problems(page) if p), None)
    if problem:
        raise InvalidToolListing(f"MCP tool listing returned an invalid result: {problem.removeprefix('(root).')}")
