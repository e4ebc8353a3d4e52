"""Projection of MCP results onto the agent's text/image content contract (spec client-runtime §7).

upstream: ``src/agents/mcp-content.ts`` (``mcpContentBlockToAgentContent``, ``projectMcpCallToolResult``,
``projectMcpGetPromptResult``) and ``src/agents/tool-search-json.ts`` (``toToolSearchJsonSafe``).

Every JSON text given to the model is rendered with :func:`jscompat.jsjson.js_dumps` (JavaScript key order
and number formatting, §7.4, D3).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from openclaw_mcp.jscompat.jsjson import JsonValue, js_dumps, js_number
from openclaw_mcp.jscompat.text import utf16_key

__all__ = [
    "COMPLETED_WITHOUT_CONTENT",
    "FAILED_WITHOUT_CONTENT",
    "STRUCTURED_CONTENT_NOT_SERIALIZABLE",
    "AgentToolResult",
    "StructuredContentNotSerializable",
    "content_block_to_agent",
    "js_string_of",
    "project_call_result",
    "project_prompt_result",
    "to_json_safe",
]

COMPLETED_WITHOUT_CONTENT = "MCP tool completed without returning content."
FAILED_WITHOUT_CONTENT = "MCP tool failed without returning content."
STRUCTURED_CONTENT_NOT_SERIALIZABLE = "structuredContent could not be serialized"


class StructuredContentNotSerializable(ValueError):
    """Decision D4: ``structuredContent`` nested too deeply to render; fails the tool execution (not
    counted as a server failure)."""

    def __init__(self) -> None:
        super().__init__(STRUCTURED_CONTENT_NOT_SERIALIZABLE)


@dataclass(frozen=True, slots=True)
class AgentToolResult:
    """A model-facing tool result: ``text`` blocks ``{type, text}`` and ``image`` blocks
    ``{type, data, mimeType}``, plus details. ``guest_value`` is the raw copy kept for code-mode consumers
    (§7.2 step 6); it is not model-facing."""

    content: tuple[dict[str, str], ...]
    details: dict[str, Any]
    guest_value: JsonValue = field(default=None, compare=False)


def js_string_of(value: object) -> str:
    """JavaScript ``String(value)`` for JSON data (objects give ``[object Object]``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ",".join("" if item is None else js_string_of(item) for item in value)
    return "[object Object]"


def _stringify(value: object) -> str:
    """``JSON.stringify(value) ?? String(value)``, falling back to ``String(value)`` on failure."""
    try:
        return js_dumps(value, None)
    except (TypeError, ValueError, RecursionError):
        return js_string_of(value)


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def content_block_to_agent(block: object) -> dict[str, str]:
    """Map one MCP content block (§7.1). Anything not representable becomes its compact JSON as text."""
    if not isinstance(block, dict):
        return _text(_stringify(block))
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return _text(block["text"])
    if kind == "image" and isinstance(block.get("data"), str) and isinstance(block.get("mimeType"), str):
        return {"type": "image", "data": block["data"], "mimeType": block["mimeType"]}
    if kind == "audio" and isinstance(block.get("mimeType"), str):
        return _text(f"[audio {block['mimeType']}]")
    if kind == "resource_link" and isinstance(block.get("uri"), str):
        title, name = block.get("title"), block.get("name")
        label = title if isinstance(title, str) else name if isinstance(name, str) else None
        return _text(f"[{label}] {block['uri']}" if label else block["uri"])
    if kind == "resource":
        resource = block.get("resource")
        if isinstance(resource, dict) and isinstance(resource.get("uri"), str):
            text = resource.get("text")
            return _text(text if isinstance(text, str) else resource["uri"])
    return _text(_stringify(block))


def _key_sorted(value: JsonValue) -> JsonValue:
    """``JSON.parse(stableStringify(value))``: object keys sorted by UTF-16 code units at every depth;
    non-finite numbers become the strings ``NaN``/``Infinity``/``-Infinity``."""
    if isinstance(value, dict):
        return {key: _key_sorted(value[key]) for key in sorted(value, key=utf16_key)}
    if isinstance(value, list | tuple):
        return [_key_sorted(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return js_number(value)
    return value


def _structured_texts(structured: dict[str, Any]) -> tuple[str, str]:
    """(the ``structuredContent:`` block text, the SDK mirror text in the original key order)."""
    try:
        block = "structuredContent:\n" + js_dumps(_key_sorted(structured), 2)
        mirror = js_dumps(structured, 2)
    except (RecursionError, ValueError, TypeError) as exc:
        raise StructuredContentNotSerializable() from exc
    return block, mirror


def _finish(
    blocks: list[dict[str, str]], result: Mapping[str, Any], details: Mapping[str, Any] | None
) -> tuple[tuple[dict[str, str], ...], dict[str, Any]]:
    is_error = result.get("isError") is True
    if not blocks:
        blocks = [_text(FAILED_WITHOUT_CONTENT if is_error else COMPLETED_WITHOUT_CONTENT)]
    out = dict(details or {})
    if "structuredContent" in result:
        out["structuredContent"] = result["structuredContent"]
    if is_error:
        out["status"] = "error"
    return tuple(blocks), out


def project_call_result(result: Mapping[str, Any], details: Mapping[str, Any] | None = None) -> AgentToolResult:
    """Project a ``tools/call`` result once, at the model boundary (§7.2).

    A plain-object ``structuredContent`` yields a first text block ``structuredContent:\\n<pretty JSON with
    keys sorted>`` and removes the text blocks that exactly mirror it (pretty JSON in its original key
    order). ``details`` (``{mcpServer, mcpTool}`` for tool calls) gains ``structuredContent`` when present
    and ``status: "error"`` when ``isError is True``. Raises :class:`StructuredContentNotSerializable`
    (D4).
    """
    raw_content = result.get("content")
    source = raw_content if isinstance(raw_content, list) else []
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        block, mirror = _structured_texts(structured)
        kept = [b for b in source if not (isinstance(b, dict) and b.get("type") == "text" and b.get("text") == mirror)]
        blocks = [_text(block), *map(content_block_to_agent, kept)]
    else:
        blocks = [content_block_to_agent(b) for b in source]
    content, out = _finish(blocks, result, details)
    guest: dict[str, Any] = {"content": source}
    if "structuredContent" in result:
        guest["structuredContent"] = structured
    if isinstance(result.get("isError"), bool):
        guest["isError"] = result["isError"]
    return AgentToolResult(content, out, guest)


def project_prompt_result(result: Mapping[str, Any], details: Mapping[str, Any]) -> AgentToolResult:
    """Project a ``prompts/get`` result (§7.3): ``description`` first when present, then per message a text
    block ``<role>:`` and the message's content block; finished like a call result (no structured
    content). ``details`` is ``{mcpServer, mcpOperation: "prompts_get", untrustedMcpOutput: true}``."""
    raw: list[object] = []
    if "description" in result:
        raw.append({"type": "text", "text": result["description"]})
    messages = result.get("messages")
    for message in messages if isinstance(messages, list) else []:
        entry = message if isinstance(message, dict) else {}
        raw.append({"type": "text", "text": f"{js_string_of(entry.get('role'))}:"})
        raw.append(entry.get("content"))
    content, out = _finish([content_block_to_agent(b) for b in raw], {}, details)
    return AgentToolResult(content, out, to_json_safe(dict(result)))


def to_json_safe(value: object) -> JsonValue:
    """A detached JSON copy of ``value`` (a JSON round trip, upstream ``toToolSearchJsonSafe``).

    Tuples become lists and non-finite numbers ``null``; a value that cannot be serialised becomes its
    ``String(value)``.
    """
    try:
        return json.loads(js_dumps(value, None))
    except (TypeError, ValueError, RecursionError):
        if isinstance(value, BaseException):
            return str(value)
        return js_string_of(value)
