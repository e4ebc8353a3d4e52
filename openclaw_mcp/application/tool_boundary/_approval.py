"""Resolving a ``requireApproval`` by approval mode (plugin-tools.md §6.7, §6.9; tool-policy-and-lifecycle.md
D-SR2): ``report`` fails the call, ``deny`` vetoes it, ``gateway`` asks the :class:`PluginApprovals` port (and
vetoes like ``deny`` when no port is configured)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

import anyio

from openclaw_mcp.application.abandonable import call_abandonable
from openclaw_mcp.application.ports.approvals import (
    ApprovalDecision,
    ApprovalNoLongerAvailable,
    ApprovalNoRoute,
    ApprovalRequestFailed,
    ApprovalRequestRejected,
    PluginApprovalRequest,
    PluginApprovals,
)
from openclaw_mcp.application.tool_boundary._cancel import CancelSignal
from openclaw_mcp.application.tool_boundary._context import HookContext
from openclaw_mcp.application.tool_boundary._rules import (
    APPROVAL_REQUIRED_REASON,
    DEFAULT_HOOK_TIMEOUT_MS,
    DENIED_BY_USER_REASON,
    Outcome,
    allowed,
    approval_text,
    canonical_allowed_decisions,
    describe_error,
    failure,
    merge_params,
    permitted_resolution,
    resolve_approval_timeout_ms,
    veto,
)
from openclaw_mcp.jscompat.jsjson import js_truthy

__all__ = ["ApprovalMode", "ApprovalResolver", "PendingApproval"]

ApprovalMode = Literal["gateway", "deny", "report"]
"""How a ``requireApproval`` resolves: ``gateway`` (the reference's unset mode: ask the approval port; with
no port configured it behaves as ``deny``, decision D-SR2), ``deny`` (veto ``approval_required``) or
``report`` (failure with the approval's description)."""

_APPROVAL = "plugin-approval"
_CALLBACK_BOUND_S = DEFAULT_HOOK_TIMEOUT_MS / 1000


@dataclass(frozen=True, slots=True)
class PendingApproval:
    """One approval to resolve: the merged ``requireApproval`` (stamped with its plugin id), the call, and
    the params snapshots (``base`` = the call's params, ``override`` = the hooks' params when defined)."""

    approval: Mapping[str, Any]
    tool_name: str
    tool_call_id: str
    context: HookContext | None
    cancel: CancelSignal | None
    base_params: Any
    override_params: Any
    has_override: bool


class ApprovalResolver:
    """Turns a :class:`PendingApproval` into an :class:`Outcome` for a mode."""

    def __init__(self, approvals: PluginApprovals | None, log: Callable[[str], None]) -> None:
        self._approvals = approvals
        self._log = log
        self._warned_timeout_behavior: set[str] = set()

    async def resolve(self, pending: PendingApproval, mode: ApprovalMode) -> Outcome:
        self._warn_deprecated_timeout_behavior(pending.approval)
        if mode == "report":
            await self._notify(pending.approval, "cancelled")
            reason = approval_text(pending.approval, "description", "title", default="Plugin approval required")
            return replace(failure(reason, _APPROVAL), approval="mode-report")
        if mode == "deny" or self._approvals is None:
            await self._notify(pending.approval, "deny")
            return replace(veto(APPROVAL_REQUIRED_REASON, _APPROVAL), approval="mode-deny")
        return await self._ask(self._approvals, pending)

    async def _ask(self, approvals: PluginApprovals, pending: PendingApproval) -> Outcome:
        approval = pending.approval
        allowed_decisions = canonical_allowed_decisions(approval.get("allowedDecisions"))
        decision, error, aborted = await _decide(approvals, _request(pending, allowed_decisions), pending.cancel)
        if aborted:
            await self._notify(approval, "cancelled")
            self._log("plugin approval wait cancelled by run abort")
            return replace(failure("Approval cancelled (run aborted)", _APPROVAL), approval="cancelled")
        if error is not None:
            await self._notify(approval, "cancelled")
            return replace(self._error_outcome(approval, error), approval="unavailable")
        resolution = permitted_resolution(decision, allowed_decisions)
        await self._notify(approval, resolution)
        if resolution in ("allow-once", "allow-always"):
            override = pending.override_params if pending.has_override else None
            return replace(allowed(merge_params(pending.base_params, override)), approval=resolution)
        if resolution == "deny":
            return replace(failure(DENIED_BY_USER_REASON, _APPROVAL), approval="deny")
        timeout_reason = approval.get("timeoutReason")
        if js_truthy(timeout_reason):
            outcome = veto(approval_text(approval, "timeoutReason", default="Approval timed out"), _APPROVAL)
            return replace(outcome, approval="timeout")
        return replace(failure("Approval timed out", _APPROVAL), approval="timeout")

    def _error_outcome(self, approval: Mapping[str, Any], error: Exception) -> Outcome:
        if isinstance(error, ApprovalNoRoute):
            return failure("Plugin approval unavailable (no approval route)", _APPROVAL)
        if isinstance(error, ApprovalRequestFailed):
            return failure(approval_text(approval, "description", default="Plugin approval request failed"), _APPROVAL)
        self._log(f"plugin approval gateway request failed; blocking tool call: {describe_error(error)}")
        if isinstance(error, ApprovalRequestRejected):
            return failure(f"Plugin approval request rejected: {error}", _APPROVAL)
        if isinstance(error, ApprovalNoLongerAvailable):
            return failure(f"Plugin approval no longer available: {error}", _APPROVAL)
        return failure("Plugin approval required (gateway unavailable)", _APPROVAL)

    async def _notify(self, approval: Mapping[str, Any], resolution: str) -> None:
        """Call the approval's ``onResolution`` with the resolution; a failing (or, past 15 s, hanging)
        callback is logged and changes nothing. Nothing waits for a callback past its bound, whether or not it
        stops (:func:`call_abandonable`)."""
        callback = approval.get("onResolution")
        if not callable(callback):
            return
        try:
            await call_abandonable(callback, resolution, timeout_s=_CALLBACK_BOUND_S)
        except Exception as exc:  # a plugin callback: whatever it raises must not change the outcome
            self._log(f"plugin onResolution callback failed: {describe_error(exc)}")

    def _warn_deprecated_timeout_behavior(self, approval: Mapping[str, Any]) -> None:
        if approval.get("timeoutBehavior") != "allow":
            return
        plugin_id = approval.get("pluginId")
        name = plugin_id if isinstance(plugin_id, str) and plugin_id else "unknown-plugin"
        if name in self._warned_timeout_behavior:
            return
        self._warned_timeout_behavior.add(name)
        self._log(
            f"plugin '{name}' sets deprecated requireApproval.timeoutBehavior:\"allow\"; the field is ignored and "
            "approvals fail closed on timeout (see docs/plugins/plugin-permission-requests.md)"
        )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _request(pending: PendingApproval, allowed_decisions: tuple[str, ...]) -> PluginApprovalRequest:
    approval = pending.approval
    context = pending.context
    plugin_id = approval.get("pluginId")
    severity = approval.get("severity")
    scope = approval.get("scope")
    decisions = cast("tuple[ApprovalDecision, ...]", allowed_decisions)  # only the three decisions remain
    return PluginApprovalRequest(
        title=_text(approval.get("title")),
        description=_text(approval.get("description")),
        tool_name=pending.tool_name,
        timeout_ms=resolve_approval_timeout_ms(approval.get("timeoutMs")),
        plugin_id=plugin_id if isinstance(plugin_id, str) and plugin_id else None,
        tool_call_id=pending.tool_call_id or None,
        agent_id=(context.agent_id or None) if context is not None else None,
        session_key=(context.session_key or None) if context is not None else None,
        severity=severity if isinstance(severity, str) else None,
        scope=scope if js_truthy(scope) else None,
        allowed_decisions=decisions,
    )


async def _decide(
    approvals: PluginApprovals, request: PluginApprovalRequest, cancel: CancelSignal | None
) -> tuple[str | None, Exception | None, bool]:
    """``(decision, error, aborted)``: the port's answer or error, or ``aborted`` when ``cancel`` fired first
    (the port call is then cancelled; nothing is asked when it had fired already)."""
    if cancel is None:
        try:
            return await approvals.decide(request), None, False
        except Exception as exc:  # every port error, and anything else an adapter leaks: fail closed
            return None, exc, False
    if cancel.cancelled:
        return None, None, True
    answers: list[tuple[str | None, Exception | None]] = []
    async with anyio.create_task_group() as tg:

        async def ask() -> None:
            try:
                answers.append((await approvals.decide(request), None))
            except Exception as exc:  # as above
                answers.append((None, exc))
            tg.cancel_scope.cancel()

        async def watch() -> None:
            await cancel.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(ask)
        tg.start_soon(watch)
    if not answers:
        return None, None, True
    decision, error = answers[0]
    return decision, error, False
