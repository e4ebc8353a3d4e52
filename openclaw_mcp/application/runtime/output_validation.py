"""Result validators for tools that list an ``outputSchema`` (spec client-runtime §4.11, §8.3, decision D14).

A validator is built when a listing is normalised (a schema that cannot be compiled fails that listing) and
runs after a guarded ``tools/call`` returns. ``jsonschema`` validates instances (the domain is stdlib-only
and supplies the pure half: :func:`domain.output_schemas.normalize_output_schema`, the error formatting and the
§4.11 decision). Draft 2020-12 when ``$schema`` is exactly its URI, draft-07 (the MCP SDK default) otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import jsonschema  # type: ignore[import-untyped]

from openclaw_mcp.application.runtime.errors import ToolResultInvalid
from openclaw_mcp.domain.output_schemas import (
    check_call_result,
    format_validation_errors,
    invalid_schema_message,
    is_draft_2020_12,
    json_pointer,
    normalize_output_schema,
)

__all__ = [
    "OutputSchemaError",
    "OutputValidator",
    "build_output_validator",
    "validate_call_result",
]

OutputValidator = Callable[[Any], "str | None"]
"""``validator(structured_content)`` → ``None`` when valid, else the formatted error details."""


class OutputSchemaError(ValueError):
    """An ``outputSchema`` that cannot be used; fails the listing that carried it."""


def _patterns_compile(schema: Any) -> str | None:
    """The first ``pattern`` / ``patternProperties`` key Python cannot compile (D14), else ``None``."""
    if isinstance(schema, list):
        for entry in schema:
            problem = _patterns_compile(entry)
            if problem:
                return problem
        return None
    if not isinstance(schema, dict):
        return None
    candidates = []
    if isinstance(schema.get("pattern"), str):
        candidates.append(schema["pattern"])
    if isinstance(schema.get("patternProperties"), dict):
        candidates.extend(schema["patternProperties"])
    for pattern in candidates:
        try:
            re.compile(pattern)
        except re.error as exc:
            return f"pattern {pattern!r} is invalid: {exc}"
    for value in schema.values():
        problem = _patterns_compile(value)
        if problem:
            return problem
    return None


def build_output_validator(schema: Mapping[str, Any]) -> OutputValidator:
    """Compile ``schema``; raise :class:`OutputSchemaError` when it cannot be used (2020-12:
    ``Invalid MCP draft-2020-12 JSON Schema: <message>``)."""
    if is_draft_2020_12(schema):
        prepared = normalize_output_schema(dict(schema))
        try:
            jsonschema.Draft202012Validator.check_schema(prepared)
        except jsonschema.SchemaError as exc:
            raise OutputSchemaError(invalid_schema_message(exc.message)) from None
        problem = _patterns_compile(prepared)
        if problem:
            raise OutputSchemaError(invalid_schema_message(problem))
        validator = jsonschema.Draft202012Validator(prepared)
    else:
        try:
            jsonschema.Draft7Validator.check_schema(dict(schema))
        except jsonschema.SchemaError as exc:
            raise OutputSchemaError(f"invalid output schema: {exc.message}") from None
        problem = _patterns_compile(dict(schema))
        if problem:
            raise OutputSchemaError(f"invalid output schema: {problem}")
        validator = jsonschema.Draft7Validator(dict(schema))

    def validate(value: Any) -> str | None:
        errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
        if not errors:
            return None
        return format_validation_errors((json_pointer(e.absolute_path), e.message or "") for e in errors)

    return validate


def validate_call_result(tool_name: str, result: Mapping[str, Any], validator: OutputValidator) -> None:
    """§4.11: raise :class:`ToolResultInvalid` (−32600 / −32602) for a result that breaks the schema."""
    violation = check_call_result(tool_name, result, validator)
    if violation is not None:
        raise ToolResultInvalid(violation.code, violation.message)
