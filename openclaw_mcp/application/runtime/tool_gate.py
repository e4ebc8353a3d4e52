"""Tool policy and the ``before_tool_call`` boundary for a session's MCP tools
(tool-policy-and-lifecycle.md §2–§3; plugin-tools.md §6–§7).

A :class:`ToolGate` is made once per session runtime from the OpenClaw config, the agent and the session:

* :meth:`ToolGate.deny_entries` — the explicit deny list that excludes whole servers before connecting (§2.3);
* :meth:`ToolGate.permits_runtime` — the run-level ``toolsAllow`` creation gate (§2.5);
* :meth:`ToolGate.filter` — the conversation pipeline applied to the MCP tools (policy identity: plugin id
  ``bundle-mcp`` and the model-facing name), after the run-level ``toolsAllow`` cap (§2.2);
* :meth:`ToolGate.call` — one execution through the boundary: hooks see the policy name, the model's
  arguments and the session's hook context; the final params are what the MCP request sends; a veto returns
  the blocked result without any MCP request; a failure raises :class:`ToolCallBlocked`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from openclaw_mcp.application.tool_boundary import (
    ApprovalMode,
    AuditTarget,
    CancelSignal,
    HookContext,
    HookRegistry,
    ToolBoundary,
)
from openclaw_mcp.domain.tool_policy import (
    PolicyStep,
    PolicyTool,
    ToolPolicy,
    apply_pipeline,
    explicit_deny_entries,
    session_pipeline_steps,
    tools_allow_permits_mcp_runtime,
)

__all__ = ["MCP_PLUGIN_ID", "ToolGate", "ToolGateSettings"]

MCP_PLUGIN_ID = "bundle-mcp"
"""The plugin id policy gives every MCP tool (``bundle-mcp`` entries, ``group:plugins``)."""

_T = TypeVar("_T")
_R = TypeVar("_R")


@dataclass(frozen=True, slots=True)
class ToolGateSettings:
    """What a session's tool gate is made from.

    ``config``: the OpenClaw config document (its ``tools`` and ``agents`` sections); ``agent_id`` /
    ``session_key``: whose session it is (the agent comes from the key when not given); ``tools_allow``: the
    run-level cap (``None`` = none); ``sandboxed``: the session runs sandboxed (§2.6); ``other_tools``: the
    agent's non-MCP tools, so that groups and unknown-entry warnings see the whole tool list; ``hooks``:
    the ``before_tool_call`` handlers; ``boundary``: the boundary that runs them (made from ``hooks`` when
    absent); ``approval_mode``: ``gateway`` (the agent loop's default), ``deny`` or ``report``.
    """

    config: Mapping[str, Any] = field(default_factory=dict)
    agent_id: str | None = None
    session_key: str | None = None
    session_id: str | None = None
    run_id: str | None = None
    channel_id: str | None = None
    tools_allow: Sequence[str] | None = None
    sandboxed: bool = False
    other_tools: Sequence[PolicyTool] = ()
    boundary: ToolBoundary | None = None
    approval_mode: ApprovalMode = "gateway"


class ToolGate:
    """Policy and boundary of one session's MCP tools (see the module docstring)."""

    def __init__(self, settings: ToolGateSettings, *, warn: Callable[[str], None]) -> None:
        self._settings = settings
        self._warn = warn
        self._steps: tuple[PolicyStep, ...] = tuple(
            session_pipeline_steps(
                settings.config,
                agent_id=settings.agent_id,
                session_key=settings.session_key,
                sandboxed=settings.sandboxed,
            )
        )
        self._boundary = settings.boundary if settings.boundary is not None else ToolBoundary(HookRegistry())
        self._context = HookContext(
            agent_id=settings.agent_id,
            session_key=settings.session_key,
            session_id=settings.session_id,
            run_id=settings.run_id,
            channel_id=settings.channel_id,
        )

    def deny_entries(self) -> tuple[str, ...]:
        """The explicit deny entries of every pipeline layer (they exclude whole servers, §2.3)."""
        return explicit_deny_entries(self._steps)

    def permits_runtime(self, safe_server_names: Sequence[str]) -> bool:
        """Whether the run's ``toolsAllow`` lets an MCP runtime exist at all (§2.5)."""
        allow = self._settings.tools_allow
        return allow is None or tools_allow_permits_mcp_runtime(allow, safe_server_names)

    def filter(self, tools: Sequence[_T], name: Callable[[_T], str]) -> list[_T]:
        """The MCP tools that survive the ``toolsAllow`` cap and the pipeline, in their order."""
        others = [(tool, False) for tool in self._settings.other_tools]
        entries: list[tuple[Any, bool]] = [*others, *((tool, True) for tool in tools)]

        def identity(entry: tuple[Any, bool]) -> PolicyTool:
            value, is_mcp = entry
            return PolicyTool(name(value), MCP_PLUGIN_ID) if is_mcp else value

        cap = self._settings.tools_allow
        if cap is not None:
            capped = [PolicyStep(label="runtime toolsAllow", policy=ToolPolicy(allow=tuple(cap)))]
            entries = apply_pipeline(entries, capped, identity=identity, warn=lambda _text: None)
        kept = apply_pipeline(entries, self._steps, identity=identity, warn=self._warn)
        return [value for value, is_mcp in kept if is_mcp]

    async def call(
        self,
        *,
        tool_name: str,
        params: Any,
        tool_call_id: str,
        execute: Callable[[Any], Awaitable[_R]],
        cancel: CancelSignal | None = None,
        audit_target: AuditTarget | None = None,
    ) -> _R | dict[str, Any]:
        """Run ``execute(final params)`` through the boundary; a veto returns the blocked result (a dict),
        a failure raises ``ToolCallBlocked``. ``audit_target``: the server and tool the audit record names."""
        return await self._boundary.run(
            tool_name=tool_name,
            params=params,
            tool_call_id=tool_call_id,
            execute=execute,
            context=self._context,
            approval_mode=self._settings.approval_mode,
            cancel=cancel,
            audit_target=audit_target,
        )
