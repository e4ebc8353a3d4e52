"""The ``before_tool_call`` boundary every wrapped tool call passes through (plugin-tools.md §6,
tool-policy-and-lifecycle.md §3): run the matching handlers in order, merge their results, resolve an approval
request, then veto (the blocked result), fail (:class:`ToolCallBlocked`) or execute with the final params."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import anyio

from openclaw_mcp.application.abandonable import call_abandonable
from openclaw_mcp.application.audit import AuditCall, AuditSubject, AuditTrail
from openclaw_mcp.application.ports.approvals import PluginApprovals
from openclaw_mcp.application.tool_boundary._approval import ApprovalMode, ApprovalResolver, PendingApproval
from openclaw_mcp.application.tool_boundary._cancel import CancelSignal
from openclaw_mcp.application.tool_boundary._context import HookContext, build_ctx, build_event
from openclaw_mcp.application.tool_boundary._errors import ToolCallBlocked
from openclaw_mcp.application.tool_boundary._registry import HookRegistration, HookRegistry
from openclaw_mcp.application.tool_boundary._rules import (
    BLOCKED_BY_HOOK_REASON,
    HOOK_FAILURE_REASON,
    MergedHookResult,
    Outcome,
    allowed,
    blocked_result,
    clone,
    describe_error,
    failure,
    hook_timeout_ms,
    merge_hook_result,
    merge_params,
    normalize_tool_policy_name,
    reason_text,
    veto,
)
from openclaw_mcp.domain.audit import AuditDecision, AuditOutcome, result_is_error
from openclaw_mcp.jscompat.jsjson import js_to_string, js_truthy

__all__ = ["AuditTarget", "ToolBoundary"]

_R = TypeVar("_R")
_HOOK = "before_tool_call"
_HOOK_DENIED = "plugin-before-tool-call"
_ABORTED_DEFAULT = "This operation was aborted"
_APPROVER = "operator"
"""``approved_by`` of a call an approval route allowed (the route's answer names no person)."""


def _ignore(_line: str) -> None:
    return None


@dataclass(frozen=True, slots=True)
class AuditTarget:
    """The server and tool an audit record names (default: the trail's server and the model-facing name)."""

    server: str | None
    tool: str


class _Audited:
    """The audit record of one call, appended once (``finish``)."""

    def __init__(self, trail: AuditTrail, call: AuditCall, context: HookContext | None) -> None:
        self._trail = trail
        self._call = call
        self._subject: AuditSubject | None = None
        if context is not None:
            base = trail.subject
            self._subject = AuditSubject(
                agent=context.agent_id or base.agent,
                session_key=context.session_key or base.session_key,
                run_id=context.run_id or base.run_id,
                server=base.server,
            )
        self.done = False

    async def finish(self, arguments: Any, decision: AuditDecision, outcome: AuditOutcome, result: Any = None) -> None:
        if self.done:
            return
        self.done = True
        approved = decision.approval in ("allow-once", "allow-always")
        with anyio.CancelScope(shield=True):  # a cancelled call is recorded too
            await self._trail.record(
                self._call,
                arguments=arguments,
                decision=decision,
                outcome=outcome,
                result=result,
                approved_by=_APPROVER if approved else None,
                subject=self._subject,
            )


def _abort_text(reason: object) -> str:
    """The failure text of a call cancelled before its tool ran (the abort reason's message)."""
    if reason is None:
        return _ABORTED_DEFAULT
    text = (
        reason
        if isinstance(reason, str)
        else str(reason)
        if isinstance(reason, BaseException)
        else js_to_string(reason)
    )
    return text or "before_tool_call failed"


async def _call_handler(registration: HookRegistration, event: dict[str, Any], ctx: dict[str, Any]) -> object:
    """One handler's result, delivered within the handler's timeout, whose expiry raises ``TimeoutError("timed
    out after <ms>ms")`` at once (plugin-tools.md §6.6: the hook is raced against a timer).

    The handler never runs in the caller's task (:func:`call_abandonable`): an async handler runs in a detached
    task, a sync one in a daemon thread. So expiry is a failure whatever the handler does later — answer
    after catching its cancellation, swallow cancellation forever, block its thread — and nothing waits for
    it; its late result is dropped."""
    timeout_ms = hook_timeout_ms(registration.timeout_ms)
    return await call_abandonable(
        registration.handler, event, ctx, timeout_s=timeout_ms / 1000, timeout_message=f"timed out after {timeout_ms}ms"
    )


class ToolBoundary:
    """Runs tool calls through the ``before_tool_call`` handlers of ``hooks``.

    ``approvals``: where Gateway-mode approval requests go (``None``: they are denied, decision D-SR2);
    ``log``: one line per warning (a handler failure, a failed approval route, a failing ``onResolution``).

    Handlers are plugin code and never run in the calling task: an async handler runs in a detached task, a
    sync one in a worker (daemon) thread, and the call waits only for the delivery of the result, under the
    handler's timeout. Past it the call fails closed at once, whatever the handler does later (issue 32)."""

    def __init__(
        self,
        hooks: HookRegistry,
        *,
        approvals: PluginApprovals | None = None,
        log: Callable[[str], None] = _ignore,
        audit: AuditTrail | None = None,
    ) -> None:
        self._hooks = hooks
        self._log = log
        self._approvals = ApprovalResolver(approvals, log)
        self._audit = audit

    async def run(
        self,
        *,
        tool_name: str,
        params: Any,
        tool_call_id: str,
        execute: Callable[[Any], Awaitable[_R]],
        context: HookContext | None = None,
        approval_mode: ApprovalMode = "gateway",
        cancel: CancelSignal | None = None,
        audit_target: AuditTarget | None = None,
    ) -> _R | dict[str, Any]:
        """Evaluate the call and run ``execute(final params)`` when it is allowed.

        ``tool_name`` is the model-facing name (handlers see its policy name); ``context`` the agent loop's
        hook context (``None``: the plugin-tools server's); ``cancel`` the call's cancellation handle (handlers
        see it as ``ctx["abortSignal"]``; cancelling it while an approval is pending ends the wait).

        Returns ``execute``'s result, or the blocked result ``{"content": [...], "details": {"status":
        "blocked", "deniedReason": …, "reason": …}}`` for a veto (``execute`` is not called). Raises
        :class:`ToolCallBlocked` for a failure (a handler error or timeout, a denied, expired or unavailable
        approval, mode ``report``, or a call cancelled before its tool ran); ``execute``'s own errors
        propagate unchanged. Without handlers ``execute`` gets the original ``params`` object.

        With an audit trail every call appends one record (``audit_target``: the server and tool it names),
        failing open (``application.audit``)."""
        policy_name = normalize_tool_policy_name(tool_name or "tool")
        if self._audit is None:
            outcome, _ = await self._evaluate(policy_name, params, tool_call_id, context, approval_mode, cancel)
            if outcome.kind == "allowed" and not (cancel is not None and cancel.cancelled):
                return await execute(outcome.params)
            return self._refuse(outcome, cancel)
        target = audit_target or AuditTarget(None, tool_name)
        audited = _Audited(self._audit, self._audit.start(target.tool, target.server), context)
        decision = AuditDecision(hook="none")
        try:
            outcome, hook = await self._evaluate(policy_name, params, tool_call_id, context, approval_mode, cancel)
            decision = AuditDecision(hook=hook, approval=outcome.approval)
            if outcome.kind != "allowed" or (cancel is not None and cancel.cancelled):
                denied = outcome.denied_reason if outcome.kind != "allowed" else "aborted"
                decision = AuditDecision(hook=hook, approval=outcome.approval, denied_reason=denied)
                try:
                    blocked = self._refuse(outcome, cancel)
                except ToolCallBlocked:
                    await audited.finish(params, decision, "held")
                    raise
                await audited.finish(params, decision, "vetoed", blocked)
                return blocked
            try:
                result = await execute(outcome.params)
            except BaseException:
                await audited.finish(outcome.params, decision, "error")
                raise
            await audited.finish(outcome.params, decision, "error" if result_is_error(result) else "ok", result)
            return result
        except BaseException:  # cancelled (or failed) before the tool ran
            await audited.finish(params, decision, "held")
            raise

    @staticmethod
    def _refuse(outcome: Outcome, cancel: CancelSignal | None) -> dict[str, Any]:
        """The blocked result of a veto; raises :class:`ToolCallBlocked` for a failure or a cancelled call."""
        if outcome.kind == "veto":
            return blocked_result(outcome.reason, outcome.denied_reason)
        if outcome.kind == "failure":
            raise ToolCallBlocked(outcome.reason, denied_reason=outcome.denied_reason)
        assert cancel is not None
        raise ToolCallBlocked(_abort_text(cancel.reason), denied_reason="aborted")

    async def _evaluate(
        self,
        tool_name: str,
        params: Any,
        tool_call_id: str,
        context: HookContext | None,
        mode: ApprovalMode,
        cancel: CancelSignal | None,
    ) -> tuple[Outcome, str]:
        """The outcome and what the hooks did, for the audit trail (``none``, ``allow``, ``block``,
        ``approval``, ``failed``)."""
        if not self._hooks.has_hooks(_HOOK):
            return allowed(params), "none"
        try:
            merged = await self._run_handlers(tool_name, params, tool_call_id, context, cancel)
            outcome = await self._decide(merged, tool_name, params, tool_call_id, context, mode, cancel)
        except Exception as exc:  # fail closed: whatever a handler raises (or a copy fails) blocks the call
            call_id = f" toolCallId={tool_call_id}" if tool_call_id else ""
            self._log(f"before_tool_call hook failed: tool={tool_name}{call_id} error={describe_error(exc)}")
            return failure(HOOK_FAILURE_REASON, _HOOK_DENIED), "failed"
        if merged is None:
            return outcome, "none"
        if merged.block:
            return outcome, "block"
        return outcome, "approval" if merged.require_approval is not None else "allow"

    async def _run_handlers(
        self,
        tool_name: str,
        params: Any,
        tool_call_id: str,
        context: HookContext | None,
        cancel: CancelSignal | None,
    ) -> MergedHookResult | None:
        ctx = build_ctx(tool_name, tool_call_id, context, cancel)
        event = build_event(tool_name, params, tool_call_id, context)
        merged: MergedHookResult | None = None
        for registration in self._hooks.handlers(_HOOK, tool_name):
            result = await _call_handler(registration, clone(event), ctx)
            if result is None:
                continue
            merged = merge_hook_result(merged, result, registration.plugin_id)
            if merged.block:
                break
        return merged

    async def _decide(
        self,
        merged: MergedHookResult | None,
        tool_name: str,
        params: Any,
        tool_call_id: str,
        context: HookContext | None,
        mode: ApprovalMode,
        cancel: CancelSignal | None,
    ) -> Outcome:
        if merged is None:
            return allowed(params)
        if merged.block:
            return veto(reason_text(merged.block_reason, BLOCKED_BY_HOOK_REASON), _HOOK_DENIED)
        final = params
        resolution: str | None = None
        if merged.require_approval is not None:
            pending = PendingApproval(
                approval=merged.require_approval,
                tool_name=tool_name,
                tool_call_id=tool_call_id,
                context=context,
                cancel=cancel,
                base_params=clone(params),
                override_params=clone(merged.params) if merged.has_params else None,
                has_override=merged.has_params,
            )
            outcome = await self._approvals.resolve(pending, mode)
            if outcome.kind != "allowed":
                return outcome
            final, resolution = outcome.params, outcome.approval
        if js_truthy(merged.params):
            final = merge_params(final, merged.params)
        return replace(allowed(final), approval=resolution)
