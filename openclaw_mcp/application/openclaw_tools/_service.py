"""The served built-in tools over MCP (spec openclaw-tools.md §4, §5): the ``tools/list`` entries in selection
order and ``tools/call`` by name (``cron`` aliases a served ``automations``). No ``before_tool_call`` hook runs:
this server loads no plugins; with an audit trail, calls still pass the boundary (with no handlers) so that each
one is recorded."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.application.audit import AuditTrail
from openclaw_mcp.application.tool_boundary import CancelSignal, HookRegistry, ToolBoundary
from openclaw_mcp.domain.plugin_tools.results import lookup_name, tool_error_result, unknown_tool_result

__all__ = ["BuiltinTool", "OpenclawToolsService"]


@dataclass(frozen=True, slots=True)
class BuiltinTool:
    """A served tool: its ``tools/list`` entry and the call that answers with the whole ``tools/call`` result."""

    entry: Mapping[str, Any]
    call: Callable[[Mapping[str, Any] | None], Awaitable[dict[str, Any]]]

    @property
    def name(self) -> str:
        return str(self.entry["name"])


class OpenclawToolsService:
    """``tools`` in selection order (a duplicated selection lists a tool twice; a call reaches the first)."""

    def __init__(self, tools: Sequence[BuiltinTool], *, audit: AuditTrail | None = None) -> None:
        self._boundary = None if audit is None else ToolBoundary(HookRegistry(), audit=audit)
        self._entries = [dict(tool.entry) for tool in tools]
        self._tools: dict[str, BuiltinTool] = {}
        for tool in tools:
            self._tools.setdefault(tool.name, tool)

    @property
    def names(self) -> list[str]:
        return [str(entry["name"]) for entry in self._entries]

    def list_tools(self) -> list[dict[str, Any]]:
        """The ``tools/list`` entries (§4), fresh copies."""
        return [dict(entry) for entry in self._entries]

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, cancel: CancelSignal | None = None
    ) -> dict[str, Any]:
        """The ``tools/call`` result (§5): ``Unknown tool: <name>``, the tool's result, or ``Tool error: …`` for
        anything it raised. Never raises but for cancellation. ``cancel`` is not passed on: a cancelled call runs
        to its end (its answer is dropped), as the reference does not abort its Gateway call (§8)."""
        key = lookup_name(name, self._tools)
        if key is None:
            return unknown_tool_result(name)
        tool = self._tools[key]
        params: Mapping[str, Any] = {} if arguments is None else arguments
        try:
            if self._boundary is None:
                return await tool.call(params)
            return await self._boundary.run(
                tool_name=tool.name, params=params, tool_call_id="", execute=tool.call, approval_mode="report"
            )
        except Exception as exc:  # a tool's unexpected failure is an isError result, never a crash
            return tool_error_result(exc)
