"""JSON-schema normalisation (spec client-runtime §8).

* §8.2 :func:`normalize_tool_parameters` — the model-facing parameter schema of every MCP tool and utility
  tool (upstream ``packages/ai/src/providers/agent-tools-parameter-schema.ts``
  ``normalizeToolParameterSchema`` without provider options). Pure; never raises on odd input.
* §8.3 the pure half of output-schema validation is in :mod:`domain.output_schemas`:
  ``normalize_output_schema`` (the draft-2020-12 normalisation, upstream ``normalizeJsonSchemaForTypeBox``
  with ``format`` removed), the error-text formatting, and the decision of §4.11 (``check_call_result``).

**Split (§8.3, decision D14).** The domain is stdlib-only, so it does not validate instances. The
application/adapters build one validator per included tool with an ``outputSchema`` (at listing time):
``jsonschema.Draft202012Validator`` over ``normalize_output_schema`` when ``is_draft_2020_12``
(``check_schema`` or compile failures → ``invalid_schema_message``, which fails the listing), else
``jsonschema.Draft7Validator`` over the schema as listed. Validation errors are reported with
``format_validation_errors``; ``check_call_result`` applies §4.11 around that validator.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.jscompat.jsjson import JsonValue, js_ordered_keys, js_truthy
from openclaw_mcp.jscompat.text import JS_LINE_TERMINATORS
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "normalize_tool_parameters",
]

_MAP_KEYS = frozenset({"$defs", "definitions", "dependentSchemas", "patternProperties", "properties"})
_OBJECT_KEYS = frozenset({"additionalProperties", "contains", "else", "if", "items", "not", "propertyNames", "then"})
_ARRAY_KEYS = frozenset({"allOf", "anyOf", "items", "oneOf", "prefixItems"})
_LITERAL_KEYS = frozenset({"const", "default", "enum", "examples"})
_OPENAPI_KEYS = frozenset({"discriminator", "externalDocs", "readOnly", "writeOnly", "xml", "example"})
_META_KEYS = ("title", "description", "default")


def _ordered(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {key: obj[key] for key in js_ordered_keys(obj)}


def _copy_meta(source: Mapping[str, Any], target: dict[str, Any]) -> None:
    for key in _META_KEYS:
        if key in source:
            target[key] = source[key]


# ---------------------------------------------------------------------------------------------------
# §8.2 step 1: local $ref inlining
# ---------------------------------------------------------------------------------------------------

_Defs = tuple[dict[str, Any], dict[str, Any]]  # ($defs, definitions) visible at one level
_DEFS_REF = re.compile(rf"#/(\$defs|definitions)/([^/]+)(?:/([^{JS_LINE_TERMINATORS}]*))?\Z")
_INDEX = re.compile(r"(?:0|[1-9][0-9]*)\Z")


def _extend_defs(defs: _Defs | None, schema: Mapping[str, Any]) -> _Defs | None:
    own = schema.get("$defs")
    legacy = schema.get("definitions")
    own = own if isinstance(own, dict) else None
    legacy = legacy if isinstance(legacy, dict) else None
    if own is None and legacy is None:
        return defs
    nxt = (dict(defs[0]), dict(defs[1])) if defs else ({}, {})
    nxt[0].update(_ordered(own or {}))
    nxt[1].update(_ordered(legacy or {}))
    return nxt


def _decode(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def _resolve_path(value: Any, segments: list[str]) -> Any:
    current = value
    for segment in segments:
        if not isinstance(current, dict | list):
            return UNDEFINED
        key = _decode(segment)
        if isinstance(current, list):
            index = int(key) if _INDEX.match(key) else -1
            if index < 0 or index >= len(current):
                return UNDEFINED
            current = current[index]
        elif key in current:
            current = current[key]
        else:
            return UNDEFINED
    return current


def _resolve_ref(ref: str, defs: _Defs | None, root: Any) -> Any:
    match = _DEFS_REF.match(ref)
    if match and defs:
        namespace = defs[0] if match.group(1) == "$defs" else defs[1]
        name = _decode(match.group(2))
        resolved = namespace.get(name, UNDEFINED) if name else UNDEFINED
        if resolved is not UNDEFINED:
            rest = match.group(3)
            return _resolve_path(resolved, rest.split("/") if rest else [])
    if not ref.startswith("#/"):
        return UNDEFINED
    return _resolve_path(root, ref[2:].split("/"))


@dataclass(slots=True)
class _InlineState:
    unresolved_local_refs: bool = False


def _inline(schema: Any, defs: _Defs | None, stack: frozenset[str], state: _InlineState, root: Any) -> Any:
    if isinstance(schema, list):
        return [_inline(entry, defs, stack, state, root) for entry in schema]
    if not isinstance(schema, dict):
        return schema
    next_defs = _extend_defs(defs, schema)
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref:
        if ref in stack:
            return {}
        resolved = _resolve_ref(ref, next_defs, root)
        if resolved is UNDEFINED:
            if ref.startswith("#/"):
                state.unresolved_local_refs = True
            return _ordered(schema)
        inlined = _inline(resolved, next_defs, stack | {ref}, state, root)
        if not isinstance(inlined, dict):
            return inlined
        result = dict(inlined)
        _copy_meta(schema, result)
        if schema.get("nullable") is True:
            result["nullable"] = True
        return result
    out: dict[str, Any] = {}
    for key, value in _ordered(schema).items():
        if key in ("$defs", "definitions", "components"):
            continue
        if key in _LITERAL_KEYS:
            out[key] = value
        elif key in _MAP_KEYS and isinstance(value, dict):
            out[key] = {k: _inline(v, next_defs, stack, state, root) for k, v in _ordered(value).items()}
        elif key in _OBJECT_KEYS and isinstance(value, dict):
            out[key] = _inline(value, next_defs, stack, state, root)
        elif key in _ARRAY_KEYS and isinstance(value, list):
            out[key] = [_inline(entry, next_defs, stack, state, root) for entry in value]
        else:
            out[key] = value
    if state.unresolved_local_refs:
        for key in ("$defs", "definitions", "components"):
            if key in schema:
                out[key] = schema[key]
    return out


# ---------------------------------------------------------------------------------------------------
# §8.2 step 2: OpenAPI keywords
# ---------------------------------------------------------------------------------------------------


def _null_like(schema: object) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    enum = schema.get("enum")
    return isinstance(enum, list) and any(entry is None for entry in enum)


def _with_null_type(kind: Any) -> Any:
    if kind == "null":
        return kind
    if isinstance(kind, str):
        return [kind, "null"]
    if isinstance(kind, list):
        return kind if "null" in kind else [*kind, "null"]
    return kind


def _openapi(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_openapi(entry) for entry in schema]
    if not isinstance(schema, dict):
        return schema
    nullable = schema.get("nullable") is True
    out = _ordered(schema)
    for key, value in list(out.items()):
        if key == "nullable" or key in _OPENAPI_KEYS:
            del out[key]
        elif key in _LITERAL_KEYS or key == "components":
            continue
        elif key in _MAP_KEYS and isinstance(value, dict):
            out[key] = {k: _openapi(v) for k, v in _ordered(value).items()}
        elif key in _OBJECT_KEYS and isinstance(value, dict):
            out[key] = _openapi(value)
        elif key in _ARRAY_KEYS and isinstance(value, list):
            out[key] = [_openapi(entry) for entry in value]
    if nullable:
        if any(isinstance(out.get(key), list) for key in ("allOf", "anyOf", "oneOf")):
            branches = [b for k in ("anyOf", "oneOf") if isinstance(out.get(k), list) for b in out[k]]
            if any(_null_like(branch) for branch in branches):
                return out
            wrapped: dict[str, Any] = {"anyOf": [out, {"type": "null"}]}
            _copy_meta(out, wrapped)
            return wrapped
        if "type" in out:
            out["type"] = _with_null_type(out["type"])
        enum = out.get("enum")
        if isinstance(enum, list) and not any(entry is None for entry in enum):
            out["enum"] = [*enum, None]
    return out


# ---------------------------------------------------------------------------------------------------
# §8.2 steps 3–4: top-level shape and array items
# ---------------------------------------------------------------------------------------------------


def _add_array_items(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    out = _ordered(schema)
    if schema.get("type") == "array" and "items" not in schema:
        out["items"] = {}
    for key, value in list(out.items()):
        if key in _MAP_KEYS and isinstance(value, dict):
            out[key] = {k: _add_array_items(v) for k, v in _ordered(value).items()}
        elif key in _OBJECT_KEYS or key in _ARRAY_KEYS:
            out[key] = [_add_array_items(v) for v in value] if isinstance(value, list) else _add_array_items(value)
    return out


def _js_typeof(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "object"


def _same_value_zero(left: object, right: object) -> bool:
    """JavaScript SameValueZero (``Set`` membership): objects by identity, ``NaN`` equals ``NaN``."""
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return left is right
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right or (left != left and right != right)
    return type(left) is type(right) and left == right


def _enum_values(schema: object) -> list[Any] | None:
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    if "const" in schema:
        return [schema["const"]]
    variants = schema.get("anyOf") if isinstance(schema.get("anyOf"), list) else schema.get("oneOf")
    if isinstance(variants, list):
        values = [value for variant in variants for value in _enum_values(variant) or []]
        return values or None
    return None


def _merge_property(existing: Any, incoming: Any) -> Any:
    if not js_truthy(existing):
        return incoming
    if not js_truthy(incoming):
        return existing
    left, right = _enum_values(existing), _enum_values(incoming)
    if left is None and right is None:
        return existing
    values: list[Any] = []
    for value in [*(left or []), *(right or [])]:
        if not any(_same_value_zero(value, seen) for seen in values):
            values.append(value)
    merged: dict[str, Any] = {}
    for source in (existing, incoming):
        if isinstance(source, dict):
            for key in _META_KEYS:
                if key not in merged and key in source:
                    merged[key] = source[key]
    types = {_js_typeof(value) for value in values}
    if len(types) == 1:
        merged["type"] = types.pop()
    merged["enum"] = values
    return merged


def _flatten(schema: dict[str, Any], variants: list[Any]) -> dict[str, Any]:
    own_props = schema.get("properties")
    merged: dict[str, Any] = _ordered(own_props) if isinstance(own_props, dict) else {}
    required_counts: dict[str, int] = {}
    object_variants = 0
    for entry in variants:
        if not isinstance(entry, dict):
            continue
        props = entry.get("properties")
        if not isinstance(props, dict | list):
            continue
        object_variants += 1
        items = _ordered(props).items() if isinstance(props, dict) else ((str(i), v) for i, v in enumerate(props))
        for key, value in items:
            merged[key] = _merge_property(merged.get(key, UNDEFINED), value)
        entry_required = entry.get("required")
        for key in entry_required if isinstance(entry_required, list) else []:
            if isinstance(key, str):
                required_counts[key] = required_counts.get(key, 0) + 1
    own_required = schema.get("required")
    base = [key for key in own_required if isinstance(key, str)] if isinstance(own_required, list) else None
    required: list[str] | None = base
    if not base:
        required = [k for k, c in required_counts.items() if c == object_variants] if object_variants else None
    out: dict[str, Any] = {"type": "object"}
    if isinstance(schema.get("title"), str):
        out["title"] = schema["title"]
    if isinstance(schema.get("description"), str):
        out["description"] = schema["description"]
    fallback = schema.get("properties")
    out["properties"] = merged if merged else ({} if fallback is None else fallback)
    if required:
        out["required"] = required
    out["additionalProperties"] = schema.get("additionalProperties", True)
    return out


def normalize_tool_parameters(schema: JsonValue) -> JsonValue:
    """The model-facing parameter schema of a tool (§8.2): local ``$ref``s inlined, OpenAPI keywords
    (``nullable``, ``example``, …) turned into JSON Schema, the top level made an object schema (top-level
    ``anyOf``/``oneOf`` flattened), and ``items: {}`` added to arrays without ``items``. The input is not
    modified; the result is a fresh structure (JavaScript key order)."""
    inlined = _openapi(_inline(schema, None, frozenset(), _InlineState(), schema))
    if isinstance(inlined, list):
        return inlined or {"type": "object", "properties": {}}
    if not isinstance(inlined, dict):
        return inlined
    variant_key = next((k for k in ("anyOf", "oneOf") if isinstance(inlined.get(k), list)), None)
    conditional = variant_key or ("allOf" if isinstance(inlined.get("allOf"), list) else None)
    props_ok = isinstance(inlined.get("properties"), dict)
    if conditional is None:
        if inlined.get("type") == "object":
            return _add_array_items(inlined if props_ok else {**inlined, "properties": {}})
        if "type" not in inlined and (props_ok or isinstance(inlined.get("required"), list)):
            properties = inlined["properties"] if props_ok else {}
            return _add_array_items({**inlined, "type": "object", "properties": properties})
        if not inlined:
            return {"type": "object", "properties": {}}
    if variant_key is None:
        return _add_array_items(inlined)
    return _add_array_items(_flatten(inlined, inlined[variant_key]))
