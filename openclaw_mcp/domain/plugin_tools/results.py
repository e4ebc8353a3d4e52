"""What plugin tools look like over MCP (spec plugin-tools.md §4, §5; upstream
``src/mcp/plugin-tools-handlers.ts``): the ``tools/list`` entry of a tool and the ``tools/call`` result of
what its ``execute`` returned or raised.

Pure functions of plain values: the tool's ``name`` / ``description`` / ``parameters`` and its result (the
``{"content": [...], "details": {...}}`` shape, or any bare value).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.domain.catalog_text import format_error_message
from openclaw_mcp.jscompat.jsjson import js_dumps, js_to_string, js_truthy
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "SCHEDULER_ALIASES",
    "SCHEDULER_TOOL",
    "call_result",
    "coerce_text",
    "error_call_result",
    "is_tool_result_error",
    "list_entry",
    "lookup_name",
    "to_mcp_content_block",
    "tool_error_result",
    "unknown_tool_result",
]

SCHEDULER_TOOL: Final = "automations"
SCHEDULER_ALIASES: Final = frozenset({"automations", "cron"})
_EMPTY_SCHEMA: Final = {"type": "object", "properties": {}}
_ERROR_STATUSES: Final = frozenset(
    {
        "error",
        "failed",
        "failure",
        "timeout",
        "timed_out",
        "blocked",
        "denied",
        "forbidden",
        "unavailable",
        "approval-unavailable",
        "disabled",
        "aborted",
        "cancelled",
        "canceled",
        "killed",
        "invalid",
    }
)


def list_entry(name: str, description: object, parameters: object) -> dict[str, Any]:
    """The ``tools/list`` entry (§4): the name as is, the description or ``""``, the parameters when they are
    an object with a ``type`` key (unchanged), else the empty object schema."""
    schema = parameters if isinstance(parameters, Mapping) and "type" in parameters else _EMPTY_SCHEMA
    return {
        "name": name,
        "description": description if isinstance(description, str) else ("" if description is None else description),
        "inputSchema": dict(schema),
    }


def lookup_name(requested: str, served: Mapping[str, Any]) -> str | None:
    """The served tool a ``tools/call`` name means (§5 step 1): the exact name, else the scheduler tool for
    ``automations`` / ``cron``."""
    if requested in served:
        return requested
    if requested in SCHEDULER_ALIASES and SCHEDULER_TOOL in served:
        return SCHEDULER_TOOL
    return None


def coerce_text(value: object) -> str:
    """``coerceText`` (§5): a string itself, ``None`` → ``""``, a number/boolean → JavaScript ``String``,
    anything else its compact JSON (``""`` when it has none)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return js_to_string(value)
    try:
        return js_dumps(value, None)
    except (TypeError, ValueError, RecursionError, OverflowError):
        return ""


def to_mcp_content_block(element: object) -> Any:
    """One content element as an MCP block (§5 block table)."""
    if not isinstance(element, Mapping):
        return {"type": "text", "text": coerce_text(element)}
    if element.get("type") != "image":
        return element
    if isinstance(element.get("data"), str) and isinstance(element.get("mimeType"), str):
        return element
    source = element.get("source")
    if (
        isinstance(source, Mapping)
        and source.get("type") == "base64"
        and isinstance(source.get("data"), str)
        and isinstance(source.get("media_type"), str)
    ):
        return {"type": "image", "data": source["data"], "mimeType": source["media_type"]}
    return {"type": "text", "text": coerce_text(element)}


def _finite_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def is_tool_result_error(raw: object) -> bool:
    """``isToolResultError`` (§5): what the result's ``details`` say about failure."""
    details = raw.get("details") if isinstance(raw, Mapping) else None
    if not isinstance(details, Mapping):
        return False
    if details.get("ok") is False or details.get("success") is False:
        return True
    status = details.get("status")
    folded = js_trim(status).lower() if isinstance(status, str) else ""  # normalizeOptionalLowercaseString
    if folded in _ERROR_STATUSES and details.get("ok") is not True and details.get("success") is not True:
        return True
    if details.get("timedOut") is True or js_truthy(details.get("error")):
        return True
    if folded == "completed":
        return False
    exit_code = details.get("exitCode")
    return _finite_number(exit_code) and exit_code != 0


def call_result(raw: object) -> dict[str, Any]:
    """The ``tools/call`` result of a value the tool returned (§5 step 5)."""
    source = raw.get("content") if isinstance(raw, Mapping) and "content" in raw else raw
    if isinstance(source, list | tuple):
        content = [to_mcp_content_block(element) for element in source]
    else:
        content = [{"type": "text", "text": coerce_text(source)}]
    result: dict[str, Any] = {"content": content}
    if is_tool_result_error(raw):
        result["isError"] = True
    return result


def error_call_result(text: str) -> dict[str, Any]:
    """One text block with ``isError``."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def unknown_tool_result(name: str) -> dict[str, Any]:
    """``Unknown tool: <name>`` (§5 step 2)."""
    return error_call_result(f"Unknown tool: {name}")


def tool_error_result(exc: BaseException) -> dict[str, Any]:
    """``Tool error: <formatted message>`` for an exception of the tool or of its boundary (§5 step 6),
    secrets redacted."""
    return error_call_result(f"Tool error: {format_error_message(exc)}")
