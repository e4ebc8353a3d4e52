"""The ``before_tool_call`` boundary (plugin-tools.md §6, §10 D-PT3/D-PT7; tool-policy-and-lifecycle.md §3,
D-SR2).

    hooks = HookRegistry()
    hooks.on("before_tool_call", lambda event, ctx: {"params": {"q": "x"}}, plugin_id="rewrite")
    boundary = ToolBoundary(hooks, approvals=route)      # route: a PluginApprovals port, or None
    result = await boundary.run(tool_name="docs__search_docs", params={"q": "a"}, tool_call_id="call-1",
                                execute=run_the_tool, context=HookContext(agent_id="main"))

An allowed call returns ``execute``'s result, a veto the blocked result dict, a failure raises
:class:`ToolCallBlocked` (see :meth:`ToolBoundary.run`).
"""

from openclaw_mcp.application.tool_boundary._approval import ApprovalMode
from openclaw_mcp.application.tool_boundary._boundary import AuditTarget, ToolBoundary
from openclaw_mcp.application.tool_boundary._cancel import CancelSignal
from openclaw_mcp.application.tool_boundary._context import HookContext
from openclaw_mcp.application.tool_boundary._errors import HookRegistrationError, ToolCallBlocked
from openclaw_mcp.application.tool_boundary._registry import HookHandler, HookRegistration, HookRegistry
from openclaw_mcp.application.tool_boundary._rules import (
    DENIED_BY_USER_REASON,
    HOOK_FAILURE_REASON,
    MAX_TIMER_TIMEOUT_MS,
    blocked_result,
    normalize_registration_timeout_ms,
)

__all__ = [
    "DENIED_BY_USER_REASON",
    "HOOK_FAILURE_REASON",
    "MAX_TIMER_TIMEOUT_MS",
    "ApprovalMode",
    "AuditTarget",
    "CancelSignal",
    "HookContext",
    "HookHandler",
    "HookRegistration",
    "HookRegistrationError",
    "HookRegistry",
    "ToolBoundary",
    "ToolCallBlocked",
    "blocked_result",
    "normalize_registration_timeout_ms",
]
