"""The audit trail on the ``before_tool_call`` boundary (application/audit.py, tool_boundary): one record per
call with its decision, approver, outcome and sizes, over the in-memory audit log; and the fail-open rule (an
audit failure is one line per process, the call proceeds unchanged)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.approvals import InMemoryPluginApprovals
from openclaw_mcp.adapters.memory.audit import InMemoryAuditLog
from openclaw_mcp.application import audit as audit_module
from openclaw_mcp.application.audit import AuditSubject, AuditTrail
from openclaw_mcp.application.ports.audit import AuditLogUnavailable
from openclaw_mcp.application.tool_boundary import (
    AuditTarget,
    CancelSignal,
    HookContext,
    HookRegistry,
    ToolBoundary,
    ToolCallBlocked,
)
from openclaw_mcp.domain.audit import AuditQuery, AuditRecord, args_digest

pytestmark = pytest.mark.asyncio

NOW = 1_767_225_600_000


class Clock:
    def now_ms(self) -> int:
        return NOW


@pytest.fixture(autouse=True)
def fresh_warning() -> Iterator[None]:
    audit_module._WARNED.clear()
    yield
    audit_module._WARNED.clear()


def hooks_returning(value: Any) -> HookRegistry:
    registry = HookRegistry()
    registry.on("before_tool_call", lambda event, ctx: value, plugin_id="p")
    return registry


async def run(
    boundary: ToolBoundary,
    *,
    params: Any = None,
    result: Any = None,
    raises: BaseException | None = None,
    context: HookContext | None = None,
    mode: Any = "gateway",
    cancel: CancelSignal | None = None,
    target: AuditTarget | None = None,
) -> Any:
    async def execute(final: Any) -> Any:
        if raises is not None:
            raise raises
        return {"content": [{"type": "text", "text": "done"}]} if result is None else result

    with anyio.fail_after(10):
        return await boundary.run(
            tool_name="docs__search",
            params={"q": "x"} if params is None else params,
            tool_call_id="c1",
            execute=execute,
            context=context,
            approval_mode=mode,
            cancel=cancel,
            audit_target=target,
        )


async def only_record(log: InMemoryAuditLog) -> AuditRecord:
    entries = await log.query(AuditQuery())
    assert len(entries) == 1
    return entries[0].record


def trail(log: Any, lines: list[str] | None = None, subject: AuditSubject | None = None) -> AuditTrail:
    sink = (lines if lines is not None else []).append
    return AuditTrail(log, clock=Clock(), warn=sink, subject=subject or AuditSubject())


async def test_an_allowed_call_records_who_what_and_how_it_ended() -> None:
    log = InMemoryAuditLog()
    boundary = ToolBoundary(HookRegistry(), audit=trail(log))
    context = HookContext(agent_id="main", session_key="agent:main:s", run_id="r1")
    result = await run(boundary, context=context, target=AuditTarget("docs", "search"))
    record = await only_record(log)
    assert (record.agent, record.session_key, record.run_id) == ("main", "agent:main:s", "r1")
    assert (record.server, record.tool, record.outcome, record.ts) == ("docs", "search", "ok", NOW)
    assert record.args_digest == args_digest({"q": "x"}) and record.args_preview == '{"q":"x"}'
    assert (record.decision.policy, record.decision.hook, record.approved_by) == ("allow", "none", None)
    assert record.result_bytes == len(b'{"content":[{"text":"done","type":"text"}]}')
    assert record.duration_ms >= 0
    assert result == {"content": [{"type": "text", "text": "done"}]}


async def test_without_a_target_the_subject_server_and_model_facing_name_are_recorded() -> None:
    log = InMemoryAuditLog()
    subject = AuditSubject(agent="ops", session_key="agent:ops:x", server="openclaw-plugin-tools")
    await run(ToolBoundary(HookRegistry(), audit=trail(log, subject=subject)))
    record = await only_record(log)
    assert (record.server, record.tool, record.agent, record.session_key) == (
        "openclaw-plugin-tools",
        "docs__search",
        "ops",
        "agent:ops:x",
    )


async def test_rewritten_params_are_what_is_recorded() -> None:
    log = InMemoryAuditLog()
    boundary = ToolBoundary(hooks_returning({"params": {"q": "rewritten"}}), audit=trail(log))
    await run(boundary)
    record = await only_record(log)
    assert record.args_preview == '{"q":"rewritten"}' and record.decision.hook == "allow"


async def test_an_error_result_and_a_raising_tool_are_errors() -> None:
    log = InMemoryAuditLog()
    boundary = ToolBoundary(HookRegistry(), audit=trail(log))
    await run(boundary, result={"isError": True, "content": []})
    with pytest.raises(RuntimeError, match="boom"):
        await run(boundary, raises=RuntimeError("boom"))
    assert [entry.record.outcome for entry in await log.query(AuditQuery())] == ["error", "error"]


async def test_a_hook_veto_is_vetoed_with_its_code_and_no_reason_text() -> None:
    log = InMemoryAuditLog()
    boundary = ToolBoundary(
        hooks_returning({"block": True, "blockReason": "secret sk-abcdefghijklmnopqrstu"}), audit=trail(log)
    )
    blocked = await run(boundary)
    assert blocked["details"]["status"] == "blocked"
    record = await only_record(log)
    assert record.outcome == "vetoed" and record.result_bytes > 0
    assert (record.decision.hook, record.decision.denied_reason) == ("block", "plugin-before-tool-call")
    assert "sk-abc" not in str(record)


async def test_a_failing_hook_holds_the_call() -> None:
    def explode(event: Any, ctx: Any) -> None:
        raise RuntimeError("x")

    registry = HookRegistry()
    registry.on("before_tool_call", explode, plugin_id="p")
    log = InMemoryAuditLog()
    with pytest.raises(ToolCallBlocked):
        await run(ToolBoundary(registry, audit=trail(log)))
    record = await only_record(log)
    assert (record.outcome, record.decision.hook, record.result_bytes) == ("held", "failed", 0)


async def test_an_approved_call_names_the_approver_and_a_denied_one_is_held() -> None:
    ask = hooks_returning({"requireApproval": {"title": "t", "description": "d"}})
    log = InMemoryAuditLog()
    approvals = InMemoryPluginApprovals(["allow-once", "deny"])
    boundary = ToolBoundary(ask, approvals=approvals, audit=trail(log))
    await run(boundary)
    with pytest.raises(ToolCallBlocked):
        await run(boundary)
    approved, denied = [entry.record for entry in await log.query(AuditQuery())]
    assert (approved.outcome, approved.approved_by, approved.decision.approval) == ("ok", "operator", "allow-once")
    assert (denied.outcome, denied.approved_by, denied.decision.approval) == ("held", None, "deny")
    assert denied.decision.hook == "approval"


async def test_approval_modes_are_recorded() -> None:
    ask = hooks_returning({"requireApproval": {"title": "t"}})
    log = InMemoryAuditLog()
    boundary = ToolBoundary(ask, audit=trail(log))
    await run(boundary, mode="deny")
    with pytest.raises(ToolCallBlocked):
        await run(boundary, mode="report")
    records = [entry.record for entry in await log.query(AuditQuery())]
    assert [(r.outcome, r.decision.approval) for r in records] == [("vetoed", "mode-deny"), ("held", "mode-report")]


async def test_a_call_cancelled_before_it_ran_is_held_and_one_cancelled_while_running_is_an_error() -> None:
    log = InMemoryAuditLog()
    boundary = ToolBoundary(HookRegistry(), audit=trail(log))
    cancel = CancelSignal()
    cancel.cancel("stop")
    with pytest.raises(ToolCallBlocked):
        await run(boundary, cancel=cancel)

    async def slow(final: Any) -> Any:
        await anyio.sleep_forever()

    with anyio.move_on_after(0.2):
        await boundary.run(tool_name="t", params={}, tool_call_id="c", execute=slow)
    records = [entry.record for entry in await log.query(AuditQuery())]
    assert [(r.outcome, r.decision.denied_reason) for r in records] == [("held", "aborted"), ("error", None)]


class BrokenLog:
    def __init__(self) -> None:
        self.calls = 0

    async def append(self, record: AuditRecord) -> int:
        self.calls += 1
        raise AuditLogUnavailable("cannot append to the audit log: database is locked", busy=True)

    async def query(self, query: AuditQuery) -> list[Any]:
        return []

    async def verify(self) -> Any:
        raise AssertionError


async def test_an_audit_failure_is_one_line_per_process_and_the_call_proceeds() -> None:
    log = BrokenLog()
    lines: list[str] = []
    first = ToolBoundary(HookRegistry(), audit=trail(log, lines))
    second = ToolBoundary(HookRegistry(), audit=trail(log, lines))
    for boundary in (first, second, first):
        assert await run(boundary) == {"content": [{"type": "text", "text": "done"}]}
    with pytest.raises(RuntimeError, match="boom"):
        await run(first, raises=RuntimeError("boom"))
    assert log.calls == 4  # every call still tries
    assert lines == [
        "audit trail unavailable: cannot append to the audit log: database is locked; tool calls proceed unrecorded"
    ]


async def test_without_a_trail_nothing_changes() -> None:
    assert await run(ToolBoundary(HookRegistry())) == {"content": [{"type": "text", "text": "done"}]}
