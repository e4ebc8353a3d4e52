"""What a ``before_tool_call`` handler receives: the event and the ctx (plugin-tools.md §6.3,
tool-policy-and-lifecycle.md §3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.application.tool_boundary._cancel import CancelSignal
from openclaw_mcp.jscompat.jsjson import js_truthy

__all__ = ["HookContext", "build_ctx", "build_event"]


@dataclass(frozen=True, slots=True)
class HookContext:
    """The hook context of the agent loop (the attempt's agent, session, run, channel, requester and trace).
    A boundary run without one (``context=None``) is the plugin-tools server's: handlers then see only
    ``toolName``, ``toolCallId`` and ``abortSignal``. Empty values are left out of the ctx."""

    agent_id: str | None = None
    session_key: str | None = None
    session_id: str | None = None
    run_id: str | None = None
    channel_id: str | None = None
    requester: object = None
    trace: object = None


def build_ctx(
    tool_name: str, tool_call_id: str, context: HookContext | None, cancel: CancelSignal | None
) -> dict[str, Any]:
    """The ctx every handler of one call shares, in the reference's key order."""
    ctx: dict[str, Any] = {"toolName": tool_name}
    if context is not None:
        for key, value in (
            ("agentId", context.agent_id),
            ("sessionKey", context.session_key),
            ("sessionId", context.session_id),
            ("runId", context.run_id),
        ):
            if value:
                ctx[key] = value
    if cancel is not None:
        ctx["abortSignal"] = cancel
    if context is not None and js_truthy(context.trace):
        ctx["trace"] = context.trace
    if tool_call_id:
        ctx["toolCallId"] = tool_call_id
    if context is not None and context.channel_id:
        ctx["channelId"] = context.channel_id
    if context is not None and js_truthy(context.requester):
        ctx["requester"] = context.requester
    return ctx


def build_event(tool_name: str, params: Any, tool_call_id: str, context: HookContext | None) -> dict[str, Any]:
    """The event before its per-handler copy: ``params`` is the call's params when a plain object, else
    ``{}``."""
    event: dict[str, Any] = {"toolName": tool_name, "params": params if isinstance(params, Mapping) else {}}
    if context is not None and context.run_id:
        event["runId"] = context.run_id
    if tool_call_id:
        event["toolCallId"] = tool_call_id
    return event
