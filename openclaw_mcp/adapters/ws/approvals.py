"""The plugin-approval port over an OpenClaw Gateway connection (plugin-tools.md §6.9, gateway-protocol.md
§9.6, tool-policy-and-lifecycle.md D-SR2).

Two phases, as the reference's agent loop asks: ``plugin.approval.request`` with ``twoPhase: true`` is
answered at once (``{status: "accepted", id, …}``, or ``{id, decision: null}`` when no approval client can see
the request), then ``plugin.approval.waitDecision {id}`` waits for the operator (``{id, decision}``; the
Gateway answers ``decision: null`` when the request expires). Gateway failures become the port's errors:
``INVALID_REQUEST`` in the request phase → :class:`ApprovalRequestRejected`, in the wait phase →
:class:`ApprovalNoLongerAvailable`, anything else → :class:`ApprovalUnavailable`.

The connection is any ``GatewayConnection`` (the websockets client in production, the in-memory Gateway in
the contract suite); its request timeout must exceed the longest approval (600 000 ms + grace).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import anyio

from openclaw_mcp.application.ports.approvals import (
    ApprovalNoLongerAvailable,
    ApprovalNoRoute,
    ApprovalRequestFailed,
    ApprovalRequestRejected,
    ApprovalUnavailable,
    PluginApprovalRequest,
)
from openclaw_mcp.application.ports.gateway import GatewayConnection, GatewayError, GatewayRequestError

__all__ = ["APPROVAL_REQUEST_TIMEOUT_MS", "READY_WAIT_S", "GatewayPluginApprovals", "approval_request_params"]

APPROVAL_REQUEST_TIMEOUT_MS: Final = 600_000 + 10_000
"""The request timeout the approvals connection needs: the longest approval (600 s) plus the reference's
10 s grace (``resolvePluginToolApprovalGatewayTimeoutMs``)."""

READY_WAIT_S: Final = 10.0
"""How long :meth:`GatewayPluginApprovals.decide` waits for a connection that is still connecting."""


def approval_request_params(request: PluginApprovalRequest) -> dict[str, Any]:
    """The ``plugin.approval.request`` params of ``request``: fields without a value are left out (as
    ``JSON.stringify`` drops ``undefined``); ``twoPhase`` is always set."""
    params: dict[str, Any] = {}
    if request.plugin_id:
        params["pluginId"] = request.plugin_id
    params["title"] = request.title
    params["description"] = request.description
    if request.scope:
        params["scope"] = request.scope
    optional = {
        "severity": request.severity,
        "allowedDecisions": None if request.allowed_decisions is None else list(request.allowed_decisions),
        "toolName": request.tool_name,
        "toolCallId": request.tool_call_id,
        "agentId": request.agent_id,
        "sessionKey": request.session_key,
    }
    params.update({key: value for key, value in optional.items() if value is not None})
    params.update(request.extra)
    params["timeoutMs"] = request.timeout_ms
    params["twoPhase"] = True
    return params


def _invalid_request(error: GatewayError) -> bool:
    return isinstance(error, GatewayRequestError) and error.code == "INVALID_REQUEST"


def _is_ready(connection: GatewayConnection) -> bool:
    return connection.state == "ready"


class GatewayPluginApprovals:
    """``PluginApprovals`` through a Gateway connection that holds ``operator.approvals``."""

    def __init__(self, connection: GatewayConnection, *, ready_wait_s: float = READY_WAIT_S) -> None:
        self._connection = connection
        self._ready_wait_s = ready_wait_s

    async def decide(self, request: PluginApprovalRequest) -> str | None:
        await self._ready()
        try:
            accepted = await self._connection.request("plugin.approval.request", approval_request_params(request))
        except GatewayError as exc:
            if _invalid_request(exc):
                raise ApprovalRequestRejected(str(exc)) from exc
            raise ApprovalUnavailable(str(exc)) from exc
        approval_id = accepted.get("id") if isinstance(accepted, dict) else None
        if not isinstance(approval_id, str) or not approval_id:
            raise ApprovalRequestFailed("")
        if "decision" in accepted:
            decision = accepted["decision"]
            if decision is None:
                raise ApprovalNoRoute("")
            return decision if isinstance(decision, str) else None
        try:
            waited = await self._connection.request("plugin.approval.waitDecision", {"id": approval_id})
        except GatewayError as exc:
            if _invalid_request(exc):
                raise ApprovalNoLongerAvailable(str(exc)) from exc
            raise ApprovalUnavailable(str(exc)) from exc
        if isinstance(waited, dict) and waited.get("id") == approval_id:
            decision = waited.get("decision")
            return decision if isinstance(decision, str) else None
        return None

    async def _ready(self) -> None:
        connection = self._connection
        if connection.state == "ready":
            return
        if connection.state == "stopped":
            raise ApprovalUnavailable("gateway client stopped")
        with anyio.move_on_after(self._ready_wait_s):
            try:
                await connection.wait_ready()
            except GatewayError as exc:
                raise ApprovalUnavailable(str(exc)) from exc
        if not _is_ready(connection):
            raise ApprovalUnavailable("gateway not connected")


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.approvals import PluginApprovals

    def _conforms(connection: GatewayConnection) -> PluginApprovals:
        return GatewayPluginApprovals(connection)
