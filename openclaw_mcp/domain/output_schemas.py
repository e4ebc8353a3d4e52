"""Output schemas of MCP tools: the pure half of output-schema validation (spec client-runtime §8.3, §4.11).

:func:`normalize_output_schema` is the draft-2020-12 normalisation (upstream
``normalizeJsonSchemaForTypeBox`` with ``format`` removed); :func:`check_call_result` is the decision of
§4.11 around a validator that the application builds (decision D14, see :mod:`domain.schemas`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.jscompat.jsjson import JsonValue, js_ordered_keys

__all__ = [
    "DRAFT_2020_12_SCHEMA",
    "CallResultViolation",
    "check_call_result",
    "ecmascript_unicode_pattern_compiles",
    "format_validation_errors",
    "invalid_schema_message",
    "is_draft_2020_12",
    "json_pointer",
    "normalize_output_schema",
]

DRAFT_2020_12_SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def _ordered(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {key: obj[key] for key in js_ordered_keys(obj)}


def is_draft_2020_12(schema: object) -> bool:
    """True when ``schema["$schema"]`` is exactly the draft-2020-12 URI (else: draft-07 validation)."""
    return isinstance(schema, dict) and schema.get("$schema") == DRAFT_2020_12_SCHEMA


def invalid_schema_message(message: str) -> str:
    """The listing failure for an unusable draft-2020-12 output schema."""
    return f"Invalid MCP draft-2020-12 JSON Schema: {message}"


def json_pointer(path: Iterable[str | int]) -> str:
    """An instance path as a JSON pointer (``["a", 0]`` → ``/a/0``; ``[]`` → ``""``)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def format_validation_errors(errors: Iterable[tuple[str, str]]) -> str:
    """``(instance pointer, message)`` pairs as ``"<pointer> <message>"`` joined with ``, `` (just the
    message for the root; a blank message reads ``schema validation failed``); no errors →
    ``schema validation failed``."""
    parts = []
    for pointer, message in errors:
        text = message.strip() or "schema validation failed"
        parts.append(f"{pointer} {text}" if pointer else text)
    return ", ".join(parts) or "schema validation failed"


@dataclass(frozen=True, slots=True)
class CallResultViolation:
    """A ``tools/call`` result rejected by §4.11 (raise it as an MCP error with this code)."""

    code: int
    message: str

    def rendered(self) -> str:
        return f"MCP error {self.code}: {self.message}"


def check_call_result(
    tool_name: str, result: Mapping[str, Any], validate: Callable[[JsonValue], str | None]
) -> CallResultViolation | None:
    """§4.11 for a tool listed with an ``outputSchema``; ``validate`` returns ``None`` when the structured
    content is valid, else the details text (:func:`format_validation_errors`)."""
    if "structuredContent" not in result:
        if result.get("isError") is True:
            return None
        return CallResultViolation(
            -32600, f"Tool {tool_name} has an output schema but did not return structured content"
        )
    details = validate(result["structuredContent"])
    if details is None:
        return None
    return CallResultViolation(-32602, f"Structured content does not match the tool's output schema: {details}")


_RESOURCE_KEYS = frozenset(
    {"$anchor", "$defs", "$dynamicAnchor", "$id", "$recursiveAnchor", "$schema", "$vocabulary", "definitions"}
)
_VALUE_KEYS = frozenset(
    {
        "additionalItems", "additionalProperties", "contains", "else", "if", "items", "not", "propertyNames",
        "then", "unevaluatedItems", "unevaluatedProperties",
    }
)  # fmt: skip
_ARRAY_KEYS_2020 = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP_KEYS_2020 = frozenset({"$defs", "definitions", "dependentSchemas", "patternProperties", "properties"})


def _expand_types(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    types = list(kind) if isinstance(kind, list) else [kind] if isinstance(kind, str) else None
    if types is None:
        return schema
    if schema.get("nullable") is True and "null" not in types:
        types.append("null")
    if len(types) == 1 and not isinstance(kind, list):
        return schema
    rest = [(k, v) for k, v in schema.items() if k not in ("nullable", "type")]
    out = {k: v for k, v in rest if k in _RESOURCE_KEYS}
    branch = {k: v for k, v in rest if k not in _RESOURCE_KEYS}
    out["anyOf"] = [{**branch, "type": t} for t in types]
    return out


def _additional_as_pattern(schema: dict[str, Any]) -> dict[str, Any]:
    extra = schema.get("additionalProperties")
    if not isinstance(extra, dict) or isinstance(schema.get("properties"), dict):
        return schema
    if isinstance(schema.get("patternProperties"), dict):
        return schema
    out = {k: v for k, v in schema.items() if k != "additionalProperties"}
    out["patternProperties"] = {".*": extra}
    out["additionalProperties"] = False
    return out


_ESCAPED_SEPARATOR = re.compile(r"\\([^\\])")


def _repair_pattern(pattern: str, compiles: Callable[[str], bool]) -> str:
    if compiles(pattern):
        return pattern
    repaired = _ESCAPED_SEPARATOR.sub(lambda m: m.group(1) if m.group(1) in ":/" else m.group(0), pattern)
    return repaired if compiles(repaired) else pattern


def _node(schema: Any, compiles: Callable[[str], bool]) -> Any:
    if isinstance(schema, list):
        return [_node(entry, compiles) for entry in schema]
    if not isinstance(schema, dict):
        return schema
    current = _ordered(schema)
    enum = current.get("enum")
    if (
        current.get("nullable") is True
        and current.get("enumIncludesNull") is True
        and isinstance(enum, list)
        and not any(entry is None for entry in enum)
    ):
        current = {**current, "enum": [*enum, None]}
    current = _additional_as_pattern(_expand_types(current))
    out: dict[str, Any] = {}
    for key, value in current.items():
        if key == "format":
            continue
        if key == "$dynamicRef" and "$ref" not in current:
            out["$ref"] = value
        elif key == "pattern" and isinstance(value, str):
            out[key] = _repair_pattern(value, compiles)
        elif key == "patternProperties" and isinstance(value, dict):
            merged: dict[str, Any] = {}
            for pattern, sub in _ordered(value).items():
                repaired, node = _repair_pattern(pattern, compiles), _node(sub, compiles)
                merged[repaired] = node if repaired not in merged else {"allOf": [merged[repaired], node]}
            out[key] = merged
        elif key in _MAP_KEYS_2020:
            out[key] = {k: _node(v, compiles) for k, v in _ordered(value).items()} if isinstance(value, dict) else value
        elif key == "dependencies" and isinstance(value, dict):
            out[key] = {
                k: v if isinstance(v, list) and all(isinstance(e, str) for e in v) else _node(v, compiles)
                for k, v in _ordered(value).items()
            }
        elif key in _VALUE_KEYS or key in _ARRAY_KEYS_2020:
            out[key] = _node(value, compiles)
        else:
            out[key] = value
    return out


def normalize_output_schema(schema: JsonValue, pattern_compiles: Callable[[str], bool] | None = None) -> JsonValue:
    """The draft-2020-12 output schema as the validator compiles it (§8.3 steps 1–6, ``format`` removed).

    ``pattern_compiles`` decides whether a pattern is a valid Unicode-mode ECMAScript regex (rule 6);
    default :func:`ecmascript_unicode_pattern_compiles`.
    """
    return _node(schema, pattern_compiles or ecmascript_unicode_pattern_compiles)


_IDENTITY_ESCAPES = frozenset("^$\\.*+?()[]{}|/fnrtvdDsSwW0123456789")
_QUANTIFIER = re.compile(r"\*|\+|\?|\{[0-9]+(?:,[0-9]*)?\}")
_HEX = frozenset("0123456789abcdefABCDEF")


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int] | None:
    """The Python translation of the escape at ``pattern[i]`` and the index after it; ``None`` when
    Unicode-mode ECMAScript rejects it."""
    nxt = pattern[i + 1] if i + 1 < len(pattern) else ""
    placeholder = "a" if in_class else "."
    if nxt in ("p", "P") or (nxt == "u" and pattern.startswith("{", i + 2)):
        close = pattern.find("}", i + 2)
        return (placeholder, close + 1) if pattern.startswith("{", i + 2) and close >= 0 else None
    if nxt in ("u", "x"):
        width = 4 if nxt == "u" else 2
        digits = pattern[i + 2 : i + 2 + width]
        return (pattern[i : i + 2 + width], i + 2 + width) if len(digits) == width and set(digits) <= _HEX else None
    if nxt == "c":
        letter = pattern[i + 2 : i + 3]
        return (placeholder, i + 3) if letter.isascii() and letter.isalpha() else None
    if nxt == "k":
        close = pattern.find(">", i + 3)
        return (f"(?P={pattern[i + 3 : close]})", close + 1) if pattern.startswith("<", i + 2) and close >= 0 else None
    if nxt in ("b", "B"):
        if in_class:
            return ("\\x08", i + 2) if nxt == "b" else None
        return pattern[i : i + 2], i + 2
    if (nxt == "-" and in_class) or (nxt and nxt in _IDENTITY_ESCAPES):
        return pattern[i : i + 2], i + 2
    return None


def ecmascript_unicode_pattern_compiles(pattern: str) -> bool:
    """Approximately ``new RegExp(pattern, "u")`` succeeding (decision D14 accepts dialect differences).

    Unicode mode rejects identity escapes of other characters (``\\:``), lone ``{``/``}``/``]``, a
    quantifier after a quantifier, and malformed ``\\x``/``\\u``/``\\c``/``\\p``/``\\k`` escapes; the rest
    is checked by compiling a Python translation (``\\p{…}`` as ``.``, named groups as ``(?P<…>``).
    """
    out: list[str] = []
    in_class = False
    quantified = ""  # "q" right after a quantifier, "lazy" after its lazy ``?``
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        after = ""
        if char == "\\":
            escaped = _escape(pattern, i, in_class)
            if escaped is None:
                return False
            token, i = escaped
        elif in_class:
            in_class = char != "]"
            token, i = char, i + 1
        elif pattern.startswith(("[]", "[^]"), i):
            token, i = ("(?!)", i + 2) if pattern[i + 1] == "]" else ("[\\s\\S]", i + 3)
        elif (quantifier := _QUANTIFIER.match(pattern, i)) is not None:
            if quantified == "q" and char == "?":
                after = "lazy"
            elif quantified:
                return False
            else:
                after = "q"
            token, i = quantifier.group(0), quantifier.end()
        elif char in "{}]":
            return False
        elif pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            token, i = "(?P<", i + 3
        else:
            in_class = char == "["
            token, i = char, i + 1
        quantified = after
        out.append(token)
    try:
        re.compile("".join(out))
    except (re.error, RecursionError, OverflowError):
        return False
    return True
