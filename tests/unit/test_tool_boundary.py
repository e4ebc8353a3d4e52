"""The ``before_tool_call`` boundary at the boundary level, no MCP framing (plugin-tools.md §6, §11 items 13–14;
tool-policy-and-lifecycle.md §3, D-SR2): every scenario of spec/check/hooktest.mjs with the reference's
observed text and executed params, matchers, timeouts, fail-closed, the approval modes and the Gateway
approval outcomes over the in-memory approval route."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openclaw_mcp.adapters.memory.approvals import PENDING, InMemoryPluginApprovals, ScriptedAnswer
from openclaw_mcp.application.ports.approvals import (
    ApprovalNoLongerAvailable,
    ApprovalNoRoute,
    ApprovalRequestFailed,
    ApprovalRequestRejected,
    ApprovalUnavailable,
)
from openclaw_mcp.application.tool_boundary import (
    DENIED_BY_USER_REASON,
    HOOK_FAILURE_REASON,
    ApprovalMode,
    CancelSignal,
    HookContext,
    HookRegistrationError,
    HookRegistry,
    ToolBoundary,
    ToolCallBlocked,
)

pytestmark = pytest.mark.asyncio

CALL_ID = "mcp-5f0c4d0e-8f5e-4a7b-9a52-0e6d3c1b2a90"
MADE_OUTSIDE_A_LOOP = CancelSignal()


class Tool:
    """A recording ``execute``: what the reference check's tools return (``ran <JSON.stringify(params)>``)."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    async def __call__(self, params: Any) -> dict[str, Any]:
        self.calls.append(params)
        return {"content": [{"type": "text", "text": "ran " + json.dumps(params, separators=(",", ":"))}]}


def returns(value: Any) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
    return lambda event, ctx: value


def explode(event: dict[str, Any], ctx: dict[str, Any]) -> None:
    raise RuntimeError("x")


async def never(event: dict[str, Any], ctx: dict[str, Any]) -> None:
    await anyio.sleep_forever()


def registry(*hooks: tuple[Callable[..., Any], dict[str, Any]]) -> HookRegistry:
    registered = HookRegistry()
    for index, (handler, options) in enumerate(hooks):
        registered.on("before_tool_call", handler, **{"plugin_id": f"p{index}", **options})
    return registered


async def call(
    hooks: HookRegistry,
    params: Any = None,
    *,
    tool: str = "t1",
    mode: ApprovalMode = "report",
    approvals: InMemoryPluginApprovals | None = None,
    context: HookContext | None = None,
    cancel: CancelSignal | None = None,
    logs: list[str] | None = None,
) -> tuple[Any, Tool]:
    """One boundary run: the blocked result, the tool's result, or the ``ToolCallBlocked`` raised."""
    execute = Tool()
    boundary = ToolBoundary(hooks, approvals=approvals, log=(logs if logs is not None else []).append)
    with anyio.fail_after(10):
        try:
            outcome = await boundary.run(
                tool_name=tool,
                params={"a": 1} if params is None else params,
                tool_call_id=CALL_ID,
                execute=execute,
                context=context,
                approval_mode=mode,
                cancel=cancel,
            )
        except ToolCallBlocked as exc:
            return exc, execute
    return outcome, execute


def mcp_text(outcome: Any) -> str:
    """The text the plugin-tools server answers: a failure is ``Tool error: <reason>``."""
    return f"Tool error: {outcome}" if isinstance(outcome, ToolCallBlocked) else outcome["content"][0]["text"]


# --- spec/check/hooktest.mjs, line by line ---------------------------------------------------------------

APPROVAL = {"requireApproval": {"title": "T", "description": "Need D"}}
HOOKTEST: list[tuple[str, list[tuple[Any, dict[str, Any]]], Any, str, list[Any]]] = [
    ("block", [(returns({"block": True, "blockReason": "nope"}), {})], None, "nope", []),
    ("block-noreason", [(returns({"block": True}), {})], None, "Tool call blocked by plugin hook", []),
    ("block-false", [(returns({"block": False}), {})], None, 'ran {"a":1}', [{"a": 1}]),
    ("params", [(returns({"params": {"b": 2}}), {})], None, 'ran {"a":1,"b":2}', [{"a": 1, "b": 2}]),
    (
        "params-two-last-wins",
        [(returns({"params": {"x": "hi"}}), {"priority": 10}), (returns({"params": {"x": "lo"}}), {"priority": 1})],
        None,
        'ran {"a":1,"x":"lo"}',
        [{"a": 1, "x": "lo"}],
    ),
    ("approval-report", [(returns(APPROVAL), {})], None, "Tool error: Need D", []),
    (
        "approval-report-title",
        [(returns({"requireApproval": {"title": "Only T"}}), {})],
        None,
        "Tool error: Only T",
        [],
    ),
    (
        "approval-report-none",
        [(returns({"requireApproval": {}}), {})],
        None,
        "Tool error: Plugin approval required",
        [],
    ),
    ("throw", [(explode, {})], None, f"Tool error: {HOOK_FAILURE_REASON}", []),
    (
        "priority-block-first",
        [
            (returns({"block": True, "blockReason": "low"}), {"priority": 1}),
            (returns({"block": True, "blockReason": "high"}), {"priority": 5}),
        ],
        None,
        "high",
        [],
    ),
    (
        "approval-then-block",
        [
            (returns(APPROVAL), {"priority": 5}),
            (returns({"block": True, "blockReason": "late block"}), {"priority": 1}),
        ],
        None,
        "late block",
        [],
    ),
    (
        "matcher-other",
        [(returns({"block": True, "blockReason": "m"}), {"matcher": ["t2"]})],
        None,
        'ran {"a":1}',
        [{"a": 1}],
    ),
    ("matcher-self", [(returns({"block": True, "blockReason": "m"}), {"matcher": ["T1"]})], None, "m", []),
    ("hook-timeout", [(never, {"timeout_ms": 300})], None, f"Tool error: {HOOK_FAILURE_REASON}", []),
    ("non-object-params", [(returns(None), {})], [1, 2], "ran [1,2]", [[1, 2]]),
]


@pytest.mark.parametrize(("label", "hooks", "params", "text", "executed"), HOOKTEST, ids=[row[0] for row in HOOKTEST])
async def test_each_reference_scenario_gives_the_observed_text_and_executed_params(
    label: str, hooks: list[tuple[Any, dict[str, Any]]], params: Any, text: str, executed: list[Any]
) -> None:
    outcome, tool = await call(registry(*hooks), params)
    assert mcp_text(outcome) == text, label
    assert tool.calls == executed, label


async def test_a_veto_is_the_blocked_result_and_a_failure_raises_with_its_code() -> None:
    vetoed, _ = await call(registry((returns({"block": True, "blockReason": "nope"}), {})))
    assert vetoed == {
        "content": [{"type": "text", "text": "nope"}],
        "details": {"status": "blocked", "deniedReason": "plugin-before-tool-call", "reason": "nope"},
    }
    failed, _ = await call(registry((explode, {})))
    assert isinstance(failed, ToolCallBlocked) and failed.denied_reason == "plugin-before-tool-call"
    reported, _ = await call(registry((returns(APPROVAL), {})))
    assert isinstance(reported, ToolCallBlocked) and reported.denied_reason == "plugin-approval"


async def test_the_event_and_ctx_are_the_plugin_tools_servers_without_a_hook_context() -> None:
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []
    hooks = registry((lambda event, ctx: seen.append((event, ctx)), {}))
    cancel = CancelSignal()
    await call(hooks, tool="Echo_Tool")
    await call(hooks, [1, 2], tool="echo_tool", cancel=cancel)
    assert seen[0][0] == {"toolName": "echo_tool", "params": {"a": 1}, "toolCallId": CALL_ID}
    assert list(seen[0][1]) == ["toolName", "toolCallId"]
    assert seen[1][0]["params"] == {}
    assert list(seen[1][1]) == ["toolName", "abortSignal", "toolCallId"] and seen[1][1]["abortSignal"] is cancel


async def test_the_agent_loop_context_reaches_event_and_ctx_without_empty_fields() -> None:
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []
    hooks = registry((lambda event, ctx: seen.append((event, ctx)), {}))
    full = HookContext("main", "agent:main:main", "s1", "run-9", "telegram", {"id": "u"}, {"traceId": "t"})
    await call(hooks, tool="Memory__status", context=full, cancel=CancelSignal())
    await call(hooks, context=HookContext(agent_id="", session_key="k", requester={}))
    event, ctx = seen[0]
    assert event == {"toolName": "memory__status", "params": {"a": 1}, "runId": "run-9", "toolCallId": CALL_ID}
    assert list(ctx) == [
        *("toolName", "agentId", "sessionKey", "sessionId", "runId", "abortSignal"),
        *("trace", "toolCallId", "channelId", "requester"),
    ]
    assert (ctx["agentId"], ctx["sessionKey"], ctx["sessionId"], ctx["channelId"]) == (
        "main",
        "agent:main:main",
        "s1",
        "telegram",
    )
    assert ctx["requester"] == {"id": "u"} and ctx["trace"] == {"traceId": "t"}
    assert list(seen[1][1]) == ["toolName", "sessionKey", "toolCallId", "requester"]  # {} is truthy in JS


@pytest.mark.parametrize(
    ("tool", "policy_name"),
    [
        ("Echo_Tool", "echo_tool"),
        (" BASH ", "exec"),
        ("apply-patch", "apply_patch"),
        ("Cron", "automations"),
        ("", "tool"),
    ],
)
async def test_handlers_see_the_policy_name_and_matchers_compare_it(tool: str, policy_name: str) -> None:
    seen: list[str] = []
    hooks = registry((lambda event, ctx: seen.append(event["toolName"]), {"matcher": [policy_name.upper()]}))
    await call(hooks, tool=tool)
    assert seen == [policy_name]


async def test_without_handlers_or_decisions_the_tool_gets_the_original_params_object() -> None:
    params = {"a": {"deep": 1}}
    for hooks in (HookRegistry(), registry((returns(None), {})), registry((returns({}), {"matcher": ["other"]}))):
        _, tool = await call(hooks, params)
        assert tool.calls[0] is params


async def test_hook_params_merge_shallowly_and_cannot_remove_keys() -> None:
    _, tool = await call(registry((returns({"params": {"b": 2, "a": None}}), {})), {"a": 1, "c": 3})
    assert tool.calls == [{"a": None, "c": 3, "b": 2}]
    _, tool = await call(registry((returns({"params": {"b": 2}}), {})), [1, 2])
    assert tool.calls == [{"b": 2}]  # hook params alone when the call's params are not an object
    _, tool = await call(registry((returns({"params": [9]}), {})), {"a": 1})
    assert tool.calls == [{"a": 1}]  # params that are not an object are ignored


async def test_each_handler_gets_its_own_copy_of_the_event() -> None:
    seen: list[Any] = []

    def mutate(event: dict[str, Any], ctx: dict[str, Any]) -> None:
        event["params"]["a"]["n"] = 99
        event["toolName"] = "changed"

    hooks = registry((mutate, {"priority": 2}), (lambda event, ctx: seen.append(event), {"priority": 1}))
    params = {"a": {"n": 1}}
    _, tool = await call(hooks, params)
    assert seen == [{"toolName": "t1", "params": {"a": {"n": 1}}, "toolCallId": CALL_ID}]
    assert tool.calls[0] is params and params == {"a": {"n": 1}}


async def test_equal_priorities_keep_registration_order_and_a_block_stops_the_rest() -> None:
    order: list[str] = []

    def handler(name: str, result: Any = None) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
        def record(event: dict[str, Any], ctx: dict[str, Any]) -> Any:
            order.append(name)
            return result

        return record

    hooks = registry(
        (handler("a"), {}),
        (handler("b", {"block": True}), {}),
        (handler("first"), {"priority": 3}),
        (handler("c"), {}),
    )
    outcome, _ = await call(hooks)
    assert order == ["first", "a", "b"] and mcp_text(outcome) == "Tool call blocked by plugin hook"
    assert HookRegistry().handlers("before_tool_call") == []


@pytest.mark.parametrize(
    ("results", "text"),
    [
        ([{"blockReason": "first"}, {"block": True}], "first"),
        ([{"blockReason": "first"}, {"block": True, "blockReason": None}], "first"),
        ([{"block": True, "blockReason": ""}], "Tool call blocked by plugin hook"),
        ([{"block": True, "blockReason": 5}], "5"),
    ],
)
async def test_the_block_reason_is_the_last_defined_one(results: list[Any], text: str) -> None:
    hooks = registry(*((returns(result), {"priority": -i}) for i, result in enumerate(results)))
    assert mcp_text((await call(hooks))[0]) == text


@pytest.mark.parametrize("block", [1, "true", "yes", [True], None, False])
async def test_only_block_true_blocks(block: Any) -> None:
    _, tool = await call(registry((returns({"block": block}), {})))
    assert tool.calls == [{"a": 1}]


async def test_sync_and_async_handlers_both_decide() -> None:
    async def rewrite(event: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        await anyio.sleep(0)
        return {"params": {"async": True}}

    _, tool = await call(registry((rewrite, {}), (returns({"params": {"sync": True}}), {"priority": -1})))
    assert tool.calls == [{"a": 1, "sync": True}]


# --- matchers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("matcher", "message"),
    [
        ("t1", "tool hook matcher must be an array of tool names"),
        ({"t1": True}, "tool hook matcher must be an array of tool names"),
        ([], "tool hook matcher must contain at least one tool name"),
        ([1], "tool hook matcher entries must be non-empty strings"),
        (["t1", None], "tool hook matcher entries must be non-empty strings"),
        (["  "], "tool hook matcher entries must be non-empty strings"),
        ([" * "], "tool hook matcher wildcard entries are not supported"),
        *(
            (list([name]), "tool hook matcher entries must use canonical OpenClaw tool ids")
            for name in ("bash", "BASH", "exec_command", "apply-patch", "Write", " Edit ", "agent", "Agent")
        ),
    ],
)
async def test_an_invalid_matcher_is_refused_at_registration(matcher: object, message: str) -> None:
    hooks = HookRegistry()
    with pytest.raises(HookRegistrationError) as caught:
        hooks.on("before_tool_call", returns(None), plugin_id="p", matcher=matcher)
    assert str(caught.value) == message and isinstance(caught.value, ValueError)
    assert not hooks.has_hooks("before_tool_call")


async def test_valid_matchers_are_lowercased_and_other_hooks_ignore_them() -> None:
    hooks = HookRegistry()
    hooks.on("before_tool_call", returns(None), matcher=["write", " EDIT_file ", "write"])
    hooks.on("after_tool_call", returns(None), matcher=("exec",))
    hooks.on("message_sending", returns(None), matcher="not checked")
    assert hooks.handlers("before_tool_call")[0].matcher == ("edit_file", "write")
    assert [r.hook_name for r in hooks.handlers("before_tool_call", "exec")] == []
    assert hooks.has_hooks("message_sending") and hooks.handlers("message_sending")[0].matcher is None


# --- timeouts and fail-closed -------------------------------------------------------------------------------


async def test_a_handler_past_its_timeout_fails_the_call_within_the_bound() -> None:
    logs: list[str] = []
    started = time.monotonic()
    outcome, tool = await call(registry((never, {"timeout_ms": 300})), logs=logs)
    elapsed = time.monotonic() - started
    assert str(outcome) == HOOK_FAILURE_REASON and tool.calls == []
    assert 0.3 <= elapsed < 0.7
    assert logs == [
        f"before_tool_call hook failed: tool=t1 toolCallId={CALL_ID} error=TimeoutError: timed out after 300ms"
    ]


@pytest.mark.parametrize("timeout_ms", [0.5, 0, -5, "300", True, float("nan"), None])
async def test_a_timeout_that_is_not_a_positive_number_of_ms_means_the_default(timeout_ms: object) -> None:
    async def slow(event: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        await anyio.sleep(0.05)
        return {"params": {"b": 2}}

    _, tool = await call(registry((slow, {"timeout_ms": timeout_ms})))
    assert tool.calls == [{"a": 1, "b": 2}]


async def test_a_fractional_timeout_is_floored() -> None:
    logs: list[str] = []
    await call(registry((never, {"timeout_ms": 1.9})), logs=logs)
    assert logs[0].endswith("error=TimeoutError: timed out after 1ms")


async def test_any_handler_failure_fails_closed_and_stops_the_evaluation() -> None:
    later: list[bool] = []

    async def async_boom(event: dict[str, Any], ctx: dict[str, Any]) -> None:
        raise ValueError("async boom")

    failing: Any
    for failing in (explode, async_boom, "not callable"):
        logs: list[str] = []
        hooks = registry((failing, {"priority": 1}), (lambda e, c: later.append(True), {}))
        outcome, tool = await call(hooks, logs=logs)
        assert isinstance(outcome, ToolCallBlocked) and str(outcome) == HOOK_FAILURE_REASON and tool.calls == []
        assert len(logs) == 1 and logs[0].startswith(
            f"before_tool_call hook failed: tool=t1 toolCallId={CALL_ID} error="
        )
    assert later == []


async def test_params_that_cannot_be_copied_fail_closed() -> None:
    outcome, tool = await call(registry((returns(None), {})), {"lock": threading.Lock()})
    assert str(outcome) == HOOK_FAILURE_REASON and tool.calls == []


async def test_the_log_line_names_the_cause() -> None:
    logs: list[str] = []
    await call(registry((explode, {})), logs=logs)
    assert logs == [f"before_tool_call hook failed: tool=t1 toolCallId={CALL_ID} error=RuntimeError: x"]


# --- approval modes --------------------------------------------------------------------------------------------


def approval_hook(resolutions: list[Any], **fields: Any) -> HookRegistry:
    approval = {"title": "T", "description": "D", "onResolution": resolutions.append, **fields}
    return registry((returns({"requireApproval": approval, "params": {"hook": True}}), {}))


@pytest.mark.parametrize(
    ("mode", "approvals", "text", "resolution"),
    [
        ("report", None, "Tool error: D", "cancelled"),
        ("deny", None, "approval_required", "deny"),
        ("deny", InMemoryPluginApprovals(default="allow-once"), "approval_required", "deny"),
        ("gateway", None, "approval_required", "deny"),  # D-SR2: no approval route configured
    ],
)
async def test_report_deny_and_unrouted_gateway_modes(
    mode: ApprovalMode, approvals: InMemoryPluginApprovals | None, text: str, resolution: str
) -> None:
    resolutions: list[Any] = []
    outcome, tool = await call(approval_hook(resolutions), mode=mode, approvals=approvals)
    assert mcp_text(outcome) == text and tool.calls == [] and resolutions == [resolution]
    if text == "approval_required":
        assert outcome["details"] == {"status": "blocked", "deniedReason": "plugin-approval", "reason": text}
    assert approvals is None or approvals.requests == []


CONTEXT = HookContext(agent_id="main", session_key="agent:main:main", run_id="r1")


async def gateway_call(answer: ScriptedAnswer, hooks: HookRegistry, **kwargs: Any) -> tuple[Any, Tool, Any]:
    approvals = InMemoryPluginApprovals([answer])
    outcome, tool = await call(
        hooks, tool="Docs__Search", mode="gateway", approvals=approvals, context=CONTEXT, **kwargs
    )
    return outcome, tool, approvals.requests


@pytest.mark.parametrize("decision", ["allow-once", "allow-always"])
async def test_an_approved_call_runs_with_the_snapshot_and_the_hook_params(decision: str) -> None:
    resolutions: list[Any] = []
    _, tool, requests = await gateway_call(decision, approval_hook(resolutions, severity="critical"))
    assert tool.calls == [{"a": 1, "hook": True}] and resolutions == [decision]
    request = requests[0]
    assert (request.title, request.description, request.severity, request.plugin_id) == ("T", "D", "critical", "p0")
    assert (request.tool_name, request.tool_call_id, request.agent_id, request.session_key) == (
        "docs__search",
        CALL_ID,
        "main",
        "agent:main:main",
    )
    assert request.timeout_ms == 120_000 and request.allowed_decisions == ("allow-once", "allow-always", "deny")


async def test_the_first_approval_wins_and_freezes_the_params() -> None:
    hooks = registry(
        (returns({"params": {"x": 1}, "requireApproval": {"title": "first"}}), {"priority": 2}),
        (returns({"params": {"x": 2}, "requireApproval": {"title": "second"}}), {"priority": 1}),
    )
    _, tool, requests = await gateway_call("allow-once", hooks)
    assert [r.title for r in requests] == ["first"] and requests[0].plugin_id == "p0"
    assert tool.calls == [{"a": 1, "x": 1}]


@pytest.mark.parametrize(
    ("timeout_ms", "expected"),
    [(5000.7, 5000), (10_000_000, 600_000), (0, 120_000), (-1, 120_000), ("5", 120_000), (float("inf"), 120_000)],
)
async def test_the_approval_timeout_is_floored_capped_and_defaulted(timeout_ms: object, expected: int) -> None:
    _, _, requests = await gateway_call("allow-once", approval_hook([], timeoutMs=timeout_ms))
    assert requests[0].timeout_ms == expected


@pytest.mark.parametrize(
    ("allowed", "decision", "expected", "ran"),
    [
        (["allow-once"], "allow-once", ("allow-once", "deny"), True),
        (["allow-once", "allow-once", "bogus"], "allow-always", ("allow-once", "deny"), False),
        (["bogus"], "allow-always", ("allow-once", "allow-always", "deny"), True),
        (["deny", "allow-always"], "allow-always", ("deny", "allow-always"), True),
    ],
)
async def test_allowed_decisions_always_include_deny_and_others_count_as_timeout(
    allowed: list[str], decision: str, expected: tuple[str, ...], ran: bool
) -> None:
    resolutions: list[Any] = []
    outcome, tool, requests = await gateway_call(decision, approval_hook(resolutions, allowedDecisions=allowed))
    assert requests[0].allowed_decisions == expected
    assert bool(tool.calls) is ran
    assert ran or (str(outcome) == "Approval timed out" and resolutions == ["timeout"])


async def test_a_denied_approval_fails_with_the_four_line_reason() -> None:
    resolutions: list[Any] = []
    outcome, tool, _ = await gateway_call("deny", approval_hook(resolutions))
    assert isinstance(outcome, ToolCallBlocked) and str(outcome) == DENIED_BY_USER_REASON
    lines = str(outcome).splitlines()
    assert len(lines) == 4 and lines[0] == "Denied by user. The tool call did not run."
    assert outcome.denied_reason == "plugin-approval" and tool.calls == [] and resolutions == ["deny"]


@pytest.mark.parametrize(
    ("answer", "fields", "text", "resolution"),
    [
        (None, {}, "Tool error: Approval timed out", "timeout"),
        ("maybe", {}, "Tool error: Approval timed out", "timeout"),
        (None, {"timeoutReason": "nobody answered"}, "nobody answered", "timeout"),  # a veto
        (ApprovalNoRoute(""), {}, "Tool error: Plugin approval unavailable (no approval route)", "cancelled"),
        (
            ApprovalUnavailable("gateway down"),
            {},
            "Tool error: Plugin approval required (gateway unavailable)",
            "cancelled",
        ),
        (
            ApprovalRequestRejected("bad title"),
            {},
            "Tool error: Plugin approval request rejected: bad title",
            "cancelled",
        ),
        (
            ApprovalNoLongerAvailable("unknown id"),
            {},
            "Tool error: Plugin approval no longer available: unknown id",
            "cancelled",
        ),
        (ApprovalRequestFailed(""), {}, "Tool error: D", "cancelled"),
        (ApprovalRequestFailed(""), {"description": ""}, "Tool error: Plugin approval request failed", "cancelled"),
    ],
)
async def test_each_approval_route_answer_gives_the_reference_outcome(
    answer: ScriptedAnswer, fields: dict[str, Any], text: str, resolution: str
) -> None:
    resolutions: list[Any] = []
    outcome, tool, _ = await gateway_call(answer, approval_hook(resolutions, **fields))
    assert mcp_text(outcome) == text and tool.calls == [] and resolutions == [resolution]
    if not isinstance(outcome, ToolCallBlocked):
        assert outcome["details"]["deniedReason"] == "plugin-approval"


async def test_an_approval_route_leaking_another_error_is_gateway_unavailable() -> None:
    class Broken:
        async def decide(self, request: Any) -> str | None:
            raise KeyError("leak")

    logs: list[str] = []
    boundary = ToolBoundary(approval_hook([]), approvals=Broken(), log=logs.append)
    with (
        anyio.fail_after(5),
        pytest.raises(ToolCallBlocked, match=r"^Plugin approval required \(gateway unavailable\)$"),
    ):
        await boundary.run(tool_name="t1", params={}, tool_call_id="c", execute=Tool())
    assert logs == ["plugin approval gateway request failed; blocking tool call: KeyError: 'leak'"]


async def test_cancelling_the_run_while_the_approval_waits_cancels_the_approval() -> None:
    resolutions: list[Any] = []
    cancel = CancelSignal()
    approvals = InMemoryPluginApprovals([PENDING])
    outcomes: list[Any] = []

    async def run() -> None:
        outcomes.append(await call(approval_hook(resolutions), mode="gateway", approvals=approvals, cancel=cancel))

    started = time.monotonic()
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await anyio.sleep(0.1)
            cancel.cancel("stop")
    outcome, tool = outcomes[0]
    assert str(outcome) == "Approval cancelled (run aborted)" and outcome.denied_reason == "plugin-approval"
    assert tool.calls == [] and resolutions == ["cancelled"] and len(approvals.requests) == 1
    assert time.monotonic() - started < 2


async def test_a_run_cancelled_before_the_approval_asks_nobody() -> None:
    cancel = CancelSignal()
    cancel.cancel()
    approvals = InMemoryPluginApprovals(default="allow-once")
    outcome, tool = await call(approval_hook([]), mode="gateway", approvals=approvals, cancel=cancel)
    assert str(outcome) == "Approval cancelled (run aborted)" and approvals.requests == [] and tool.calls == []


@pytest.mark.parametrize(
    ("reason", "text"), [(None, "This operation was aborted"), ("stop", "stop"), (RuntimeError("gone"), "gone")]
)
async def test_a_call_cancelled_before_its_tool_runs_fails_without_running_it(reason: object, text: str) -> None:
    cancel = MADE_OUTSIDE_A_LOOP if reason is None else CancelSignal()
    cancel.cancel(reason)
    cancel.cancel("second reason is ignored")
    with anyio.fail_after(5):
        await cancel.wait()
    assert cancel.cancelled and cancel.reason is reason
    outcome, tool = await call(HookRegistry(), cancel=cancel)
    assert str(outcome) == text and tool.calls == []


async def test_an_outer_cancellation_propagates_and_nothing_runs() -> None:
    tool = Tool()
    boundary = ToolBoundary(approval_hook([]), approvals=InMemoryPluginApprovals([PENDING]))
    with anyio.fail_after(5), anyio.move_on_after(0.1) as scope:
        await boundary.run(tool_name="t1", params={}, tool_call_id="c", execute=tool, cancel=CancelSignal())
    assert scope.cancelled_caught and tool.calls == []


async def test_a_failing_or_async_on_resolution_callback_does_not_change_the_outcome() -> None:
    seen: list[str] = []

    async def later(resolution: str) -> None:
        await anyio.sleep(0)
        seen.append(resolution)

    def broken(resolution: str) -> None:
        raise RuntimeError("cb")

    logs: list[str] = []
    hooks = registry((returns({"requireApproval": {"title": "T", "onResolution": later}}), {}))
    _, tool = await call(hooks, mode="gateway", approvals=InMemoryPluginApprovals(["allow-once"]))
    assert seen == ["allow-once"] and tool.calls == [{"a": 1}]
    hooks = registry((returns({"requireApproval": {"title": "T", "onResolution": broken}}), {}))
    outcome, _ = await call(hooks, mode="deny", logs=logs)
    assert mcp_text(outcome) == "approval_required"
    assert logs == ["plugin onResolution callback failed: RuntimeError: cb"]


async def test_the_deprecated_timeout_behavior_is_warned_once_per_plugin() -> None:
    logs: list[str] = []
    boundary = ToolBoundary(registry((returns({"requireApproval": {"timeoutBehavior": "allow"}}), {})), log=logs.append)
    with anyio.fail_after(5):
        for _ in range(2):
            await boundary.run(tool_name="t1", params={}, tool_call_id="c", execute=Tool(), approval_mode="deny")
    assert logs == [
        "plugin 'p0' sets deprecated requireApproval.timeoutBehavior:\"allow\"; the field is ignored and approvals "
        "fail closed on timeout (see docs/plugins/plugin-permission-requests.md)"
    ]


async def test_the_tools_own_errors_propagate_unchanged() -> None:
    async def failing(params: Any) -> None:
        raise LookupError("tool failed")

    with anyio.fail_after(5), pytest.raises(LookupError, match="tool failed"):
        await ToolBoundary(registry((returns(None), {}))).run(
            tool_name="t", params={}, tool_call_id="c", execute=failing
        )


# --- properties -----------------------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["params", "block", "blockReason", "title", "description", "timeoutMs", "allowedDecisions", "x"]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(["params", "block", "blockReason", "requireApproval", "other"])
RESULT = st.one_of(JSON, st.dictionaries(FIELDS, JSON | st.just(True), max_size=4))
MODES = st.sampled_from(["report", "deny", "gateway", "gateway-routed"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    results=st.lists(RESULT, min_size=1, max_size=4),
    params=JSON,
    mode=MODES,
    decision=st.sampled_from(["allow-once", "deny", None]),
)
async def test_any_handler_results_give_an_outcome_or_tool_call_blocked_and_a_block_never_runs(
    results: list[Any], params: Any, mode: str, decision: str | None
) -> None:
    hooks = registry(*((returns(result), {"priority": -i}) for i, result in enumerate(results)))
    approvals = InMemoryPluginApprovals(default=decision) if mode == "gateway-routed" else None
    boundary_mode: ApprovalMode = "gateway" if mode == "gateway-routed" else mode  # type: ignore[assignment]
    outcome, tool = await call(hooks, params, mode=boundary_mode, approvals=approvals)
    blocked = any(isinstance(result, dict) and result.get("block") is True for result in results)
    if blocked:
        assert tool.calls == []
    if isinstance(outcome, ToolCallBlocked) or tool.calls == []:
        assert tool.calls == []
    else:
        assert len(tool.calls) == 1 and outcome["content"][0]["text"].startswith("ran ")
