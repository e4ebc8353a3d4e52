"""Declared tool arguments of the bridge's nine tools: the zod shapes, their draft-07 JSON Schema and zod 4
validation with its issue texts (spec serve-bridge §4.3, §4.4, §5.0).

upstream: ``channel-tools.ts`` (zod shapes registered with ``McpServer.tool``); the SDK's ``McpServer``
(``tools/list`` conversion to draft-07 JSON Schema, ``validateToolInput``) and zod 4's issue messages. The
texts were checked against the reference's zod and SDK (node 24). The tools themselves (names, descriptions,
handlers) are the one table of ``application.bridge.service``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from openclaw_mcp.jscompat.numbers import MAX_SAFE_INTEGER, js_to_number
from openclaw_mcp.jscompat.text import utf16_len
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "DeclaredArguments",
    "PropertySpec",
    "ValidationFailed",
    "boolean",
    "input_schema",
    "integer",
    "js_type_name",
    "one_of",
    "text",
    "validate_arguments",
]

Kind = Literal["integer", "string", "boolean", "enum"]


@dataclass(frozen=True, slots=True)
class PropertySpec:
    """One declared argument (a zod field)."""

    name: str
    kind: Kind
    required: bool = False
    minimum: int | None = None
    maximum: int | None = None
    min_length: int | None = None
    options: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        """The draft-07 JSON Schema the SDK lists for this field."""
        if self.kind == "integer":
            out: dict[str, Any] = {"type": "integer"}
            if self.minimum is not None:
                out["minimum"] = self.minimum
            out["maximum"] = MAX_SAFE_INTEGER if self.maximum is None else self.maximum
            return out
        if self.kind == "enum":
            return {"type": "string", "enum": list(self.options)}
        out = {"type": self.kind}
        if self.min_length is not None:
            out["minLength"] = self.min_length
        return out


class DeclaredArguments(Protocol):
    """What declares a tool's arguments: its properties in schema order."""

    @property
    def properties(self) -> tuple[PropertySpec, ...]: ...


def input_schema(properties: tuple[PropertySpec, ...]) -> dict[str, Any]:
    """The draft-07 ``inputSchema`` the SDK lists for a tool with these declared arguments."""
    schema: dict[str, Any] = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {prop.name: prop.schema() for prop in properties},
    }
    required = [prop.name for prop in properties if prop.required]
    if required:
        schema["required"] = required
    return schema


def integer(name: str, minimum: int, maximum: int | None = None) -> PropertySpec:
    """An optional ``z.number().int().min(minimum).max(maximum)`` field."""
    return PropertySpec(name, "integer", minimum=minimum, maximum=maximum)


def text(name: str, *, required: bool = False, min_length: int | None = None) -> PropertySpec:
    """A ``z.string()`` field, optionally ``.min(min_length)``."""
    return PropertySpec(name, "string", required=required, min_length=min_length)


def boolean(name: str) -> PropertySpec:
    """An optional ``z.boolean()`` field."""
    return PropertySpec(name, "boolean")


def one_of(name: str, options: tuple[str, ...]) -> PropertySpec:
    """A required ``z.enum(options)`` field."""
    return PropertySpec(name, "enum", required=True, options=options)


# --- zod 4 validation (§4.4) -----------------------------------------------------------------------------


def js_type_name(value: object) -> str:
    """The ``received <type>`` word of zod 4's type issues."""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class ValidationFailed(ValueError):
    """The arguments do not satisfy the tool's schema; ``str(error)`` is the issue text (§4.4)."""


def _length_issue(prop: PropertySpec, value: object) -> list[str]:
    """zod 4 runs ``min(n)`` on any non-string value that has a ``length`` (arrays, objects with a
    ``length`` key) even after the type issue: ``Too small`` unless ``length >= n`` in JavaScript."""
    if prop.min_length is None:
        return []
    if isinstance(value, list):
        if len(value) >= prop.min_length:
            return []
        return [f"Too small: expected array to have >={prop.min_length} items"]
    if isinstance(value, dict) and "length" in value:
        if js_to_number(value["length"]) >= prop.min_length:
            return []
        return [f"Too small: expected unknown to be >={prop.min_length}"]
    return []


def _integer_issues(prop: PropertySpec, value: object) -> list[str]:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return [f"Invalid input: expected number, received {js_type_name(value)}"]
    if isinstance(value, float) and not math.isfinite(value):
        return [f"Invalid input: expected number, received {js_type_name(value)}"]
    if isinstance(value, float) and not value.is_integer():
        return ["Invalid input: expected int, received number"]
    issues: list[str] = []
    if value < -MAX_SAFE_INTEGER:
        issues.append(f"Too small: expected int to be >={-MAX_SAFE_INTEGER}")
    if value > MAX_SAFE_INTEGER:
        issues.append(f"Too big: expected int to be <={MAX_SAFE_INTEGER}")
    if prop.minimum is not None and value < prop.minimum:
        issues.append(f"Too small: expected number to be >={prop.minimum}")
    if prop.maximum is not None and value > prop.maximum:
        issues.append(f"Too big: expected number to be <={prop.maximum}")
    return issues


def _property_issues(prop: PropertySpec, value: object) -> list[str]:
    if prop.kind == "enum":
        if value in prop.options and isinstance(value, str):
            return []
        return ["Invalid option: expected one of " + "|".join(f'"{option}"' for option in prop.options)]
    if prop.kind == "integer":
        return _integer_issues(prop, value)
    if prop.kind == "boolean":
        return [] if isinstance(value, bool) else [f"Invalid input: expected boolean, received {js_type_name(value)}"]
    if not isinstance(value, str):
        return [f"Invalid input: expected string, received {js_type_name(value)}", *_length_issue(prop, value)]
    if prop.min_length is not None and utf16_len(value) < prop.min_length:
        return [f"Too small: expected string to have >={prop.min_length} characters"]
    return []


def _normalized(prop: PropertySpec, value: Any) -> Any:
    if prop.kind == "integer" and isinstance(value, float):
        return int(value)
    return value


def validate_arguments(tool: DeclaredArguments, arguments: object = UNDEFINED) -> dict[str, Any]:
    """The declared arguments (unknown keys dropped, integral floats as ``int``), or
    :class:`ValidationFailed` with every issue in schema order, each ``<message> at <property>``.

    Call without ``arguments`` when the request had none (``Invalid input: expected object, received
    undefined``). ``arguments`` must otherwise be a JSON object (the envelope checks that first, §4.3).
    """
    if not isinstance(arguments, dict):
        raise ValidationFailed(f"Invalid input: expected object, received {js_type_name(arguments)}")
    issues: list[str] = []
    out: dict[str, Any] = {}
    for prop in tool.properties:
        if prop.name not in arguments:
            if prop.required:
                missing = _property_issues(prop, UNDEFINED)
                issues.extend(f"{issue} at {prop.name}" for issue in missing)
            continue
        value = arguments[prop.name]
        found = _property_issues(prop, value)
        if found:
            issues.extend(f"{issue} at {prop.name}" for issue in found)
        else:
            out[prop.name] = _normalized(prop, value)
    if issues:
        raise ValidationFailed("\n".join(issues))
    return out
