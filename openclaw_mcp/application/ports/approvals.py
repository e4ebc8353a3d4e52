"""The plugin-approval port: where a ``before_tool_call`` hook's ``requireApproval`` goes when the boundary
runs in Gateway-approval mode (spec plugin-tools.md §6.9, tool-policy-and-lifecycle.md §3, D-SR2).

An adapter asks someone (an operator through the OpenClaw Gateway, a test double) and returns the decision.
The boundary, not the adapter, turns decisions and errors into the reference's outcome texts.

Error contract of :meth:`PluginApprovals.decide` (all :class:`ApprovalError`):

- :class:`ApprovalNoRoute` — nobody can see the request (the Gateway answered at once with ``decision: null``);
- :class:`ApprovalRequestRejected` — the request itself was refused as invalid (message: the route's reason);
- :class:`ApprovalNoLongerAvailable` — waiting for the decision was refused as invalid (expired/unknown id);
- :class:`ApprovalRequestFailed` — the route accepted the request but returned no approval id;
- :class:`ApprovalUnavailable` — the route is unreachable (Gateway down, not connected, transport failure).

Cancellation of the calling task (the run is aborted) propagates as the async library's cancellation; the
adapter withdraws nothing it cannot and leaves no task behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from openclaw_mcp.application.errors import ApplicationError

__all__ = [
    "ApprovalDecision",
    "ApprovalError",
    "ApprovalNoLongerAvailable",
    "ApprovalNoRoute",
    "ApprovalRequestFailed",
    "ApprovalRequestRejected",
    "ApprovalUnavailable",
    "PluginApprovalRequest",
    "PluginApprovals",
]

ApprovalDecision = Literal["allow-once", "allow-always", "deny"]


class ApprovalError(ApplicationError):
    """Every failure of an approval route; ``str(exc)`` is the route's reason (may be empty)."""


class ApprovalNoRoute(ApprovalError):
    """No approval client can see the request."""


class ApprovalRequestRejected(ApprovalError):
    """The approval request was rejected as invalid."""


class ApprovalNoLongerAvailable(ApprovalError):
    """The approval request was accepted, but waiting for its decision was rejected as invalid."""


class ApprovalRequestFailed(ApprovalError):
    """The route accepted the request without returning an approval id."""


class ApprovalUnavailable(ApprovalError):
    """The route could not be reached."""


@dataclass(frozen=True, slots=True)
class PluginApprovalRequest:
    """One ``plugin.approval.request`` (gateway-protocol.md §9.6, two-phase): what the hook asked for and the
    call it is about. ``timeout_ms`` is already resolved (default 120 000, capped at 600 000)."""

    title: str
    description: str
    tool_name: str
    timeout_ms: int
    plugin_id: str | None = None
    tool_call_id: str | None = None
    agent_id: str | None = None
    session_key: str | None = None
    severity: str | None = None
    scope: Any = None
    allowed_decisions: tuple[ApprovalDecision, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class PluginApprovals(Protocol):
    """Asks for one plugin approval and waits for the operator's decision."""

    async def decide(self, request: PluginApprovalRequest) -> str | None:
        """The decision (``allow-once``, ``allow-always``, ``deny``, or whatever string the route returned),
        or ``None`` when the request expired without one. Raises the errors of the module docstring."""
        ...
