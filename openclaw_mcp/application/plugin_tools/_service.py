"""The served plugin tools over MCP (spec plugin-tools.md §4, §5, §6, D-PT3): ``tools/list`` entries and
``tools/call`` through the one ``before_tool_call`` boundary, approval mode ``report``, no hook context."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from openclaw_mcp.application.audit import AuditTrail
from openclaw_mcp.application.plugin_tools._collect import ServedTool
from openclaw_mcp.application.tool_boundary import CancelSignal, HookRegistry, ToolBoundary
from openclaw_mcp.domain.plugin_tools.results import (
    call_result,
    list_entry,
    lookup_name,
    tool_error_result,
    unknown_tool_result,
)
from openclaw_mcp.jscompat.jsjson import js_dumps

__all__ = ["PluginToolsService", "new_tool_call_id"]


def new_tool_call_id() -> str:
    """``mcp-<random UUID v4>``, fresh per call."""
    return f"mcp-{uuid.uuid4()}"


class _NotSerializable(TypeError):
    def __init__(self) -> None:
        super().__init__("tool result is not JSON-serializable")


class PluginToolsService:
    """``tools`` (in served order) behind ``hooks``; ``log`` gets the boundary's lines (a failing hook);
    ``audit``: where every call is recorded (``None``: nowhere)."""

    def __init__(
        self,
        tools: Sequence[ServedTool],
        hooks: HookRegistry,
        *,
        log: Callable[[str], None],
        new_call_id: Callable[[], str] = new_tool_call_id,
        audit: AuditTrail | None = None,
    ) -> None:
        self._tools = {tool.name: tool for tool in tools}
        self._boundary = ToolBoundary(hooks, approvals=None, log=log, audit=audit)
        self._new_call_id = new_call_id
        self._list = [list_entry(tool.name, tool.description, tool.parameters) for tool in tools]

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def list_tools(self) -> list[dict[str, Any]]:
        """The ``tools/list`` entries (§4), in served order."""
        return [dict(entry) for entry in self._list]

    async def call(self, name: str, arguments: Mapping[str, Any] | None, cancel: CancelSignal) -> dict[str, Any]:
        """The ``tools/call`` result (§5): ``Unknown tool: …``, the mapped result of the tool, the blocked text
        of a veto, or ``Tool error: …`` for anything the tool or its boundary raised. Never raises but for
        cancellation of the calling task."""
        key = lookup_name(name, self._tools)
        if key is None:
            return unknown_tool_result(name)
        tool = self._tools[key]
        call_id = self._new_call_id()
        params: Any = {} if arguments is None else arguments

        async def execute(final: Any) -> object:
            result = tool.execute(call_id, final, cancel)
            return await result if inspect.isawaitable(result) else result

        try:
            raw = await self._boundary.run(
                tool_name=tool.name,
                params=params,
                tool_call_id=call_id,
                execute=execute,
                context=None,
                approval_mode="report",
                cancel=cancel,
            )
        except Exception as exc:  # the plugin's code and the boundary's failures: an isError result, never a crash
            return tool_error_result(exc)
        result = call_result(raw)
        try:
            js_dumps(result, None)  # what the transport will write: refuse what it cannot
        except (TypeError, ValueError, RecursionError, OverflowError):
            return tool_error_result(_NotSerializable())
        return result
