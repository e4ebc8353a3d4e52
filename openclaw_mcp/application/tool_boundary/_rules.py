"""The pure rules of the ``before_tool_call`` boundary (plugin-tools.md §6.3–§6.7, §6.9): tool names and
matchers, handler timeouts, merging handler results, final params, approval timeouts and decisions, and the
blocked result. Standard library and ``jscompat`` only: no I/O, no clock, no async.

JavaScript values map to Python ones as the rest of the port does: ``null`` and a missing key are both "not
defined" here (the reference's ``??`` treats them alike), a plain object is a ``Mapping``, truthiness is
``jscompat.jsjson.js_truthy`` and ``true`` is exactly ``True`` (``1`` does not block).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from openclaw_mcp.domain.tool_policy import normalize_tool_policy_name
from openclaw_mcp.jscompat.jsjson import js_to_string, js_truthy
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "APPROVAL_REQUIRED_REASON",
    "BLOCKED_BY_HOOK_REASON",
    "DEFAULT_APPROVAL_DECISIONS",
    "DEFAULT_APPROVAL_TIMEOUT_MS",
    "DEFAULT_HOOK_TIMEOUT_MS",
    "DENIED_BY_USER_REASON",
    "HOOK_FAILURE_REASON",
    "MAX_APPROVAL_TIMEOUT_MS",
    "MAX_TIMER_TIMEOUT_MS",
    "MatcherError",
    "MergedHookResult",
    "Outcome",
    "allowed",
    "approval_text",
    "blocked_result",
    "canonical_allowed_decisions",
    "clone",
    "describe_error",
    "failure",
    "hook_timeout_ms",
    "matcher_covers",
    "merge_hook_result",
    "merge_params",
    "normalize_matcher",
    "normalize_registration_timeout_ms",
    "normalize_tool_policy_name",
    "permitted_resolution",
    "reason_text",
    "resolve_approval_timeout_ms",
    "veto",
]

HOOK_FAILURE_REASON: Final = "Tool call blocked because before_tool_call hook failed"
BLOCKED_BY_HOOK_REASON: Final = "Tool call blocked by plugin hook"
APPROVAL_REQUIRED_REASON: Final = "approval_required"
DENIED_BY_USER_REASON: Final = "\n".join(
    (
        "Denied by user. The tool call did not run.",
        "This denial is final: the approval request is closed. Do not mention /approve or any other approval"
        " command to the user.",
        "Do not run the tool call again or ask the user to approve it again.",
        "If the user still wants the action, explain that a new tool call will trigger a fresh approval request.",
    )
)

DEFAULT_HOOK_TIMEOUT_MS: Final = 15_000
"""The ``before_tool_call`` handler timeout when the registration gives none (§6.6)."""
MAX_TIMER_TIMEOUT_MS: Final = 2_147_000_000
"""The reference's Node-safe timer bound: longer handler timeouts are clamped to it."""
DEFAULT_APPROVAL_TIMEOUT_MS: Final = 120_000
MAX_APPROVAL_TIMEOUT_MS: Final = 600_000
DEFAULT_APPROVAL_DECISIONS: Final = ("allow-once", "allow-always", "deny")

_NON_CANONICAL_MATCHER_NAMES: Final = frozenset({"bash", "exec_command", "apply-patch", "Write", "Edit", "agent"})


# --- names and matchers ------------------------------------------------------------------------------------


def _lowercase_or_empty(value: object) -> str:
    """OpenClaw's ``normalizeLowercaseStringOrEmpty``: a string trimmed and lowercased, anything else ``""``."""
    return js_trim(value).lower() if isinstance(value, str) else ""


class MatcherError(ValueError):
    """An invalid tool hook matcher; the message is the reference's text (§6.5)."""


def normalize_matcher(matcher: object) -> tuple[str, ...] | None:
    """The matcher of a registration, lowercased, de-duplicated and sorted; ``None`` = every tool.

    Raises :class:`MatcherError` with the reference's texts: not a list; empty; an entry that is not a
    non-empty string; ``*``; a non-canonical tool id (``bash``, ``exec_command``, ``apply-patch``, ``Write``,
    ``Edit``, ``agent``)."""
    if matcher is None:
        return None
    if not isinstance(matcher, list | tuple):
        raise MatcherError("tool hook matcher must be an array of tool names")
    if not matcher:
        raise MatcherError("tool hook matcher must contain at least one tool name")
    names: set[str] = set()
    for entry in matcher:
        if not isinstance(entry, str):
            raise MatcherError("tool hook matcher entries must be non-empty strings")
        canonical = _lowercase_or_empty(entry)
        if not canonical:
            raise MatcherError("tool hook matcher entries must be non-empty strings")
        if canonical == "*":
            raise MatcherError("tool hook matcher wildcard entries are not supported")
        if canonical in _NON_CANONICAL_MATCHER_NAMES or js_trim(entry) in _NON_CANONICAL_MATCHER_NAMES:
            raise MatcherError("tool hook matcher entries must use canonical OpenClaw tool ids")
        names.add(canonical)
    return tuple(sorted(names))


def matcher_covers(matcher: tuple[str, ...] | None, tool_name: str) -> bool:
    """Whether a normalized matcher covers the tool (compared after lowercasing)."""
    return matcher is None or _lowercase_or_empty(tool_name) in matcher


# --- timeouts ------------------------------------------------------------------------------------------------


def _finite_number(value: object) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def normalize_registration_timeout_ms(value: object) -> int | None:
    """A registration's ``timeoutMs``: a positive finite number floored, anything else ``None``."""
    number = _finite_number(value)
    return None if number is None or number <= 0 else math.floor(number)


def hook_timeout_ms(registered: int | None) -> int:
    """The timeout a handler runs under: its positive registered value clamped to 1 … 2 147 000 000 ms,
    else :data:`DEFAULT_HOOK_TIMEOUT_MS`."""
    if registered is None or registered <= 0:
        return DEFAULT_HOOK_TIMEOUT_MS
    return min(max(registered, 1), MAX_TIMER_TIMEOUT_MS)


def resolve_approval_timeout_ms(value: object) -> int:
    """``requireApproval.timeoutMs`` floored when finite and > 0, capped at 600 000; default 120 000."""
    number = _finite_number(value)
    if number is None or number <= 0:
        return DEFAULT_APPROVAL_TIMEOUT_MS
    return min(math.floor(number), MAX_APPROVAL_TIMEOUT_MS)


# --- merging handler results (§6.5) ------------------------------------------------------------------------


def clone(value: Any) -> Any:
    """The isolation copy of a hook value (the reference's ``structuredClone``); may raise for values that
    cannot be copied, which fails the evaluation closed."""
    return copy.deepcopy(value)


@dataclass(frozen=True, slots=True)
class MergedHookResult:
    """The merge of the handler results so far. ``has_params`` tells a defined ``params`` (any value) from
    none; ``require_approval`` is the first approval request, stamped with its handler's plugin id."""

    params: Any = None
    has_params: bool = False
    block: bool = False
    block_reason: Any = None
    require_approval: dict[str, Any] | None = field(default=None)


def _stamped(approval: object, plugin_id: str | None) -> dict[str, Any]:
    fields = (
        {key: value for key, value in approval.items() if isinstance(key, str)} if isinstance(approval, Mapping) else {}
    )
    return {**fields, "pluginId": plugin_id}


def merge_hook_result(acc: MergedHookResult | None, result: object, plugin_id: str | None) -> MergedHookResult:
    """Merge one handler's result (not ``None``) into ``acc``.

    A blocked ``acc`` is terminal. ``params``: the last defined wins, except that once an approval was
    requested they stay frozen at the value current then (copied when the approval is first requested).
    ``block``: sticky, only ``True`` counts. ``blockReason``: the last defined wins. ``requireApproval``: the
    first truthy one wins. A result that is not a mapping decides nothing."""
    if acc is not None and acc.block:
        return acc
    nxt: Mapping[Any, Any] = result if isinstance(result, Mapping) else {}
    next_params = nxt.get("params")
    next_approval = nxt.get("requireApproval")
    params, has_params = (acc.params, acc.has_params) if acc is not None else (None, False)
    approval_requested = acc is not None and acc.require_approval is not None
    if not approval_requested and next_params is not None:
        params, has_params = next_params, True
    if not approval_requested and js_truthy(next_approval) and has_params:
        params = clone(params)
    block_reason = nxt.get("blockReason")
    if block_reason is None and acc is not None:
        block_reason = acc.block_reason
    if approval_requested and acc is not None:
        approval = acc.require_approval
    else:
        approval = _stamped(next_approval, plugin_id) if js_truthy(next_approval) else None
    return MergedHookResult(
        params=params,
        has_params=has_params,
        block=(acc is not None and acc.block) or nxt.get("block") is True,
        block_reason=block_reason,
        require_approval=approval,
    )


def merge_params(original: Any, override: Any) -> Any:
    """``{...original, ...override}`` when both are plain objects; ``override`` alone when only it is one;
    else ``original``. A hook cannot remove keys."""
    if isinstance(override, Mapping):
        if isinstance(original, Mapping):
            return {**original, **override}
        return override
    return original


# --- texts ---------------------------------------------------------------------------------------------------


def reason_text(value: object, default: str) -> str:
    """``value || default`` as text (a non-string truthy value becomes its JavaScript ``String()``)."""
    if not js_truthy(value):
        return default
    return value if isinstance(value, str) else js_to_string(value)


def approval_text(approval: Mapping[str, Any], *keys: str, default: str) -> str:
    """The first truthy ``approval[key]`` as text, else ``default`` (``description || title || …``)."""
    for key in keys:
        value = approval.get(key)
        if js_truthy(value):
            return reason_text(value, default)
    return default


def describe_error(error: BaseException) -> str:
    """An error as the log lines show it (the reference's ``String(err)``: ``<name>: <message>``)."""
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


# --- approvals (§6.9) ---------------------------------------------------------------------------------------


def canonical_allowed_decisions(value: object) -> tuple[str, ...]:
    """The decisions a request allows: the valid, de-duplicated entries of ``allowedDecisions`` (default: all
    three), plus ``deny`` when missing — a request can always be denied."""
    explicit: list[str] = []
    if isinstance(value, list | tuple):
        for decision in value:
            if decision in DEFAULT_APPROVAL_DECISIONS and decision not in explicit:
                explicit.append(decision)
    decisions = explicit or list(DEFAULT_APPROVAL_DECISIONS)
    return tuple(decisions) if "deny" in decisions else (*decisions, "deny")


def permitted_resolution(decision: object, allowed: Sequence[str]) -> str:
    """The resolution of a decision: itself when it is one of the three and allowed, else ``timeout``."""
    if isinstance(decision, str) and decision in DEFAULT_APPROVAL_DECISIONS and decision in allowed:
        return decision
    return "timeout"


# --- outcomes (§6.7) -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    """The evaluation's result: ``allowed`` with the final ``params``; ``veto`` (the blocked result is
    returned) or ``failure`` (the call raises) with the ``reason`` text and its ``denied_reason`` code."""

    kind: Literal["allowed", "veto", "failure"]
    params: Any = None
    reason: str = ""
    denied_reason: str = "plugin-before-tool-call"
    approval: str | None = None
    """How an approval resolved, for the audit trail (``None``: no approval ran; see ``domain.audit``)."""


def allowed(params: Any) -> Outcome:
    return Outcome("allowed", params=params)


def veto(reason: str, denied_reason: str) -> Outcome:
    return Outcome("veto", reason=reason, denied_reason=denied_reason)


def failure(reason: str, denied_reason: str) -> Outcome:
    return Outcome("failure", reason=reason, denied_reason=denied_reason)


# --- the blocked result (§6.7) ------------------------------------------------------------------------------


def blocked_result(reason: str, denied_reason: str) -> dict[str, Any]:
    """What a vetoed call returns instead of running the tool."""
    return {
        "content": [{"type": "text", "text": reason}],
        "details": {"status": "blocked", "deniedReason": denied_reason, "reason": reason},
    }
