"""The Gateway approval route (adapters/ws/approvals.py) over the in-memory Gateway: the two-phase request,
the request params, and every Gateway failure mapped to the port's errors (plugin-tools.md §6.9)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.gateway import InMemoryGateway
from openclaw_mcp.adapters.ws.approvals import GatewayPluginApprovals, approval_request_params
from openclaw_mcp.application.ports.approvals import (
    ApprovalNoLongerAvailable,
    ApprovalNoRoute,
    ApprovalRequestFailed,
    ApprovalRequestRejected,
    ApprovalUnavailable,
    PluginApprovalRequest,
)
from openclaw_mcp.application.ports.gateway import GatewayRequestError, GatewaySettings

REQUEST = PluginApprovalRequest(
    title="T",
    description="D",
    tool_name="docs__search_docs",
    timeout_ms=120_000,
    plugin_id="guard",
    tool_call_id="call-1",
    session_key="agent:main:main",
)
ACCEPTED = {"status": "accepted", "id": "plugin:1", "deliveryRoute": "approval-client"}


@asynccontextmanager
async def route(
    request: Callable[[Any], Any], wait: Callable[[Any], Any] | None = None
) -> AsyncIterator[tuple[GatewayPluginApprovals, InMemoryGateway]]:
    methods = {"plugin.approval.request": request}
    if wait is not None:
        methods["plugin.approval.waitDecision"] = wait
    gateway = InMemoryGateway(methods=methods)
    settings = GatewaySettings(url="ws://127.0.0.1:1", token="t")
    async with gateway.connect(settings, on_event=lambda _e: None, log=lambda _l: None) as connection:
        yield GatewayPluginApprovals(connection), gateway


def invalid(message: str) -> Callable[[Any], Any]:
    def fail(params: Any) -> Any:
        raise GatewayRequestError(message, "INVALID_REQUEST")

    return fail


def unavailable(params: Any) -> Any:
    raise GatewayRequestError("gateway down", "UNAVAILABLE")


@pytest.mark.asyncio
async def test_the_request_is_two_phase_and_the_decision_comes_from_wait_decision() -> None:
    with anyio.fail_after(5):
        async with route(lambda p: ACCEPTED, lambda p: {"id": p["id"], "decision": "allow-once"}) as (approvals, gw):
            decision = await approvals.decide(REQUEST)
    assert decision == "allow-once"
    assert [r.method for r in gw.requests if r.method != "sessions.subscribe"] == [
        "plugin.approval.request",
        "plugin.approval.waitDecision",
    ]
    assert gw.requests[-1].params == {"id": "plugin:1"}


def test_the_request_params_leave_out_what_is_unknown() -> None:
    assert approval_request_params(REQUEST) == {
        "pluginId": "guard",
        "title": "T",
        "description": "D",
        "toolName": "docs__search_docs",
        "toolCallId": "call-1",
        "sessionKey": "agent:main:main",
        "timeoutMs": 120_000,
        "twoPhase": True,
    }


@pytest.mark.asyncio
async def test_an_immediate_null_decision_means_no_route() -> None:
    with anyio.fail_after(5), pytest.raises(ApprovalNoRoute):
        async with route(lambda p: {"id": "plugin:1", "decision": None}) as (approvals, _):
            await approvals.decide(REQUEST)


@pytest.mark.asyncio
async def test_an_immediate_decision_is_returned_without_waiting() -> None:
    with anyio.fail_after(5):
        async with route(lambda p: {"id": "plugin:1", "decision": "deny"}) as (approvals, gw):
            assert await approvals.decide(REQUEST) == "deny"
    assert "plugin.approval.waitDecision" not in [r.method for r in gw.requests]


@pytest.mark.asyncio
async def test_a_wait_answer_for_another_id_or_without_decision_is_no_decision() -> None:
    with anyio.fail_after(5):
        async with route(lambda p: ACCEPTED, lambda p: {"id": "plugin:other", "decision": "allow-once"}) as (a, _):
            assert await a.decide(REQUEST) is None
        async with route(lambda p: ACCEPTED, lambda p: {"id": "plugin:1", "decision": None}) as (a, _):
            assert await a.decide(REQUEST) is None


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("request_handler", "wait_handler", "error", "message"),
    [
        (invalid("bad title"), None, ApprovalRequestRejected, "bad title"),
        (lambda p: ACCEPTED, invalid("expired approval id"), ApprovalNoLongerAvailable, "expired approval id"),
        (unavailable, None, ApprovalUnavailable, "gateway down"),
        (lambda p: ACCEPTED, unavailable, ApprovalUnavailable, "gateway down"),
        (lambda p: {"status": "accepted"}, None, ApprovalRequestFailed, ""),
    ],
    ids=["rejected", "no-longer-available", "request-unavailable", "wait-unavailable", "no-id"],
)
@pytest.mark.asyncio
async def test_gateway_failures_become_the_ports_errors(
    request_handler: Callable[[Any], Any],
    wait_handler: Callable[[Any], Any] | None,
    error: type[Exception],
    message: str,
) -> None:
    with anyio.fail_after(5), pytest.raises(error) as caught:
        async with route(request_handler, wait_handler) as (approvals, _):
            await approvals.decide(REQUEST)
    assert str(caught.value) == message


@pytest.mark.asyncio
async def test_a_gateway_that_is_down_is_unavailable_after_the_ready_wait() -> None:
    gateway = InMemoryGateway(up=False)
    settings = GatewaySettings(url="ws://127.0.0.1:1", token="t")
    with anyio.fail_after(5), pytest.raises(ApprovalUnavailable):
        async with gateway.connect(settings, on_event=lambda _e: None, log=lambda _l: None) as connection:
            await GatewayPluginApprovals(connection, ready_wait_s=0.2).decide(REQUEST)


@pytest.mark.asyncio
async def test_cancelling_the_caller_while_waiting_leaves_nothing_running() -> None:
    async def hang(params: Any) -> Any:
        await anyio.sleep_forever()

    with anyio.fail_after(5):
        async with route(lambda p: ACCEPTED, hang) as (approvals, _):
            with anyio.move_on_after(0.1) as scope:
                await approvals.decide(REQUEST)
    assert scope.cancelled_caught
