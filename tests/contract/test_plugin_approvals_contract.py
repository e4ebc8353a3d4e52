"""Contract of the ``PluginApprovals`` port (application/ports/approvals.py): must pass for every implementation.

Harnesses (one per adapter, fresh for each test):

- ``memory``: ``InMemoryPluginApprovals``, answers appended to its script.
- ``gateway``: ``GatewayPluginApprovals`` over a connection of the in-memory Gateway, whose
  ``plugin.approval.request`` / ``plugin.approval.waitDecision`` handlers answer as the real Gateway does for
  each scripted answer (two-phase: accepted with an id, then the decision).

A harness scripts the next answer (a decision, ``None`` = expired, a port error with its message, or
"never answers") and shows the requests the route received in their ``plugin.approval.request`` form. The
assertions are the same for both; only the Gateway adapter translates a library error, so ``__cause__`` is
checked where it does.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.approvals import PENDING, InMemoryPluginApprovals
from openclaw_mcp.adapters.memory.gateway import InMemoryGateway
from openclaw_mcp.adapters.ws.approvals import GatewayPluginApprovals, approval_request_params
from openclaw_mcp.application.ports.approvals import (
    ApprovalError,
    ApprovalNoLongerAvailable,
    ApprovalNoRoute,
    ApprovalRequestFailed,
    ApprovalRequestRejected,
    ApprovalUnavailable,
    PluginApprovalRequest,
    PluginApprovals,
)
from openclaw_mcp.application.ports.gateway import GatewayRequestError, GatewaySettings

pytestmark = pytest.mark.asyncio

NEVER = object()
"""The scripted answer of an operator who never answers."""

Answer = Any  # a decision (str or None), an ApprovalError instance, or NEVER


@dataclass
class Route:
    approvals: PluginApprovals
    script: Callable[[Answer], None]
    received: Callable[[], list[dict[str, Any]]]
    translates_library_errors: bool


@asynccontextmanager
async def memory_route() -> AsyncIterator[Route]:
    approvals = InMemoryPluginApprovals()

    def script(answer: Answer) -> None:
        approvals.answer(PENDING if answer is NEVER else answer)

    yield Route(approvals, script, lambda: [approval_request_params(r) for r in approvals.requests], False)


@asynccontextmanager
async def gateway_route() -> AsyncIterator[Route]:
    answers: deque[Answer] = deque()
    pending: dict[str, Answer] = {}
    counter = iter(range(1, 1_000_000))

    def request(params: Any) -> Any:
        answer = answers.popleft() if answers else None
        approval_id = f"plugin:{next(counter)}"
        if isinstance(answer, ApprovalNoRoute):
            return {"id": approval_id, "decision": None}
        if isinstance(answer, ApprovalRequestRejected):
            raise GatewayRequestError(str(answer), "INVALID_REQUEST")
        if isinstance(answer, ApprovalRequestFailed):
            return {"status": "accepted"}
        if isinstance(answer, ApprovalUnavailable):
            raise GatewayRequestError(str(answer), "UNAVAILABLE")
        pending[approval_id] = answer
        return {"status": "accepted", "id": approval_id, "deliveryRoute": "approval-client"}

    async def wait_decision(params: Any) -> Any:
        answer = pending.pop(params["id"])
        if answer is NEVER:
            await anyio.sleep_forever()
        if isinstance(answer, ApprovalNoLongerAvailable):
            raise GatewayRequestError(str(answer), "INVALID_REQUEST")
        return {"id": params["id"], "decision": answer}

    gateway = InMemoryGateway(
        methods={"plugin.approval.request": request, "plugin.approval.waitDecision": wait_decision}
    )
    settings = GatewaySettings(url="ws://127.0.0.1:1", token="t")
    async with gateway.connect(settings, on_event=lambda _e: None, log=lambda _l: None) as connection:

        def received() -> list[dict[str, Any]]:
            return [dict(r.params) for r in gateway.requests if r.method == "plugin.approval.request"]

        yield Route(GatewayPluginApprovals(connection), answers.append, received, True)


RouteFactory = Callable[[], AbstractAsyncContextManager[Route]]


@pytest.fixture(params=[pytest.param(memory_route, id="memory"), pytest.param(gateway_route, id="gateway")])
def route_factory(request: pytest.FixtureRequest) -> RouteFactory:
    factory: RouteFactory = request.param
    return factory


REQUEST = PluginApprovalRequest(
    title="Search the docs",
    description="Allow the docs search?",
    tool_name="docs__search_docs",
    timeout_ms=5_000,
    plugin_id="approval-guard",
    tool_call_id="call-1",
    agent_id="main",
    session_key="agent:main:main",
    severity="critical",
    scope={"kind": "tool"},
    allowed_decisions=("allow-once", "deny"),
)


@pytest.mark.parametrize("decision", ["allow-once", "allow-always", "deny", "something-else", None])
async def test_the_operators_decision_is_returned(route_factory: RouteFactory, decision: str | None) -> None:
    with anyio.fail_after(5):
        async with route_factory() as route:
            route.script(decision)
            assert await route.approvals.decide(REQUEST) == decision


async def test_every_request_field_reaches_the_route(route_factory: RouteFactory) -> None:
    with anyio.fail_after(5):
        async with route_factory() as route:
            route.script("allow-once")
            await route.approvals.decide(REQUEST)
            received = route.received()
    assert received == [
        {
            "pluginId": "approval-guard",
            "title": "Search the docs",
            "description": "Allow the docs search?",
            "scope": {"kind": "tool"},
            "severity": "critical",
            "allowedDecisions": ["allow-once", "deny"],
            "toolName": "docs__search_docs",
            "toolCallId": "call-1",
            "agentId": "main",
            "sessionKey": "agent:main:main",
            "timeoutMs": 5_000,
            "twoPhase": True,
        }
    ]


async def test_requests_are_answered_in_order(route_factory: RouteFactory) -> None:
    with anyio.fail_after(5):
        async with route_factory() as route:
            route.script("deny")
            route.script("allow-always")
            first = await route.approvals.decide(REQUEST)
            second = await route.approvals.decide(
                PluginApprovalRequest(title="2", description="", tool_name="t", timeout_ms=1)
            )
            assert [r["title"] for r in route.received()] == ["Search the docs", "2"]
    assert (first, second) == ("deny", "allow-always")


@pytest.mark.parametrize(
    ("error", "translated"),
    [
        (ApprovalNoRoute(""), False),
        (ApprovalRequestFailed(""), False),
        (ApprovalRequestRejected("invalid plugin.approval.request params: title"), True),
        (ApprovalNoLongerAvailable("unknown or expired approval id"), True),
        (ApprovalUnavailable("gateway closed (1012): service restart"), True),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, ApprovalError) else str(value),
)
async def test_each_route_failure_raises_its_port_error(
    route_factory: RouteFactory, error: ApprovalError, translated: bool
) -> None:
    with anyio.fail_after(5):
        async with route_factory() as route:
            route.script(error)
            with pytest.raises(ApprovalError) as caught:
                await route.approvals.decide(REQUEST)
    assert type(caught.value) is type(error)
    assert str(caught.value) == str(error)
    if route.translates_library_errors and translated:
        assert isinstance(caught.value.__cause__, GatewayRequestError)


async def test_cancelling_a_pending_decision_leaves_the_route_usable(route_factory: RouteFactory) -> None:
    with anyio.fail_after(5):
        async with route_factory() as route:
            route.script(NEVER)
            with anyio.move_on_after(0.1) as scope:
                await route.approvals.decide(REQUEST)
            route.script("allow-once")
            assert await route.approvals.decide(REQUEST) == "allow-once"
    assert scope.cancelled_caught
