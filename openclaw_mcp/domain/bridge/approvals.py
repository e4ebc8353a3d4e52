"""Pending exec/plugin approvals and Claude permissions, with TTLs and the sweeper (spec §7, §8.5–§8.6).

upstream: ``channel-bridge.ts`` (``trackApproval``, ``resolveTrackedApproval``, ``listPendingApprovals``,
``sweepPendingExpired``, ``ensurePendingSweeper``, ``handleClaudePermissionRequest``).

The sweeper is modelled as the flag :attr:`PendingRegistry.sweeper_active`: the application runs one periodic
task (every :data:`PENDING_SWEEP_INTERVAL_MS`, calling :meth:`PendingRegistry.sweep`) exactly while the flag
is set, and reconciles after every call into the registry. The flag is raised by the first pending entry
(never after close) and lowered by a sweep that leaves both maps empty, or by close.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from openclaw_mcp.domain.bridge.conversations import opt_str
from openclaw_mcp.jscompat.jsjson import JsonValue

__all__ = [
    "APPROVAL_DECISIONS",
    "APPROVAL_KINDS",
    "PENDING_APPROVAL_DEFAULT_TTL_MS",
    "PENDING_CLAUDE_PERMISSION_TTL_MS",
    "PENDING_SWEEP_INTERVAL_MS",
    "ApprovalDecision",
    "ApprovalKind",
    "PendingApproval",
    "PendingPermission",
    "PendingRegistry",
    "PermissionsRespondArgs",
    "SweepReport",
    "TrackedApproval",
    "approval_resolve_request",
]

PENDING_APPROVAL_DEFAULT_TTL_MS: Final = 1_800_000
PENDING_CLAUDE_PERMISSION_TTL_MS: Final = 3_600_000
PENDING_SWEEP_INTERVAL_MS: Final = 300_000

ApprovalKind = Literal["exec", "plugin"]
ApprovalDecision = Literal["allow-once", "allow-always", "deny"]
APPROVAL_KINDS: Final[tuple[ApprovalKind, ...]] = ("exec", "plugin")
APPROVAL_DECISIONS: Final[tuple[ApprovalDecision, ...]] = ("allow-once", "allow-always", "deny")


def _number(value: object) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class PendingApproval:
    """An entry of ``permissions_list_open``: ``{kind, id, request?, createdAtMs?, expiresAtMs?}``.

    ``request`` is ``None`` when UNDEFINED (the payload's ``request`` was not an object or array).
    """

    kind: ApprovalKind
    id: str
    request: JsonValue = None
    created_at_ms: int | float | None = None
    expires_at_ms: int | float | None = None

    @classmethod
    def from_payload(cls, kind: ApprovalKind, payload: object) -> PendingApproval | None:
        """From an ``*.approval.requested`` payload; ``None`` without a usable ``id``.

        The Gateway's ``approvalKind`` is not copied; ``request`` is kept when it is an object or array.
        """
        if not isinstance(payload, dict):
            return None
        approval_id = opt_str(payload.get("id"))
        if approval_id is None:
            return None
        request = payload.get("request")
        return cls(
            kind=kind,
            id=approval_id,
            request=request if isinstance(request, dict | list) else None,
            created_at_ms=_number(payload.get("createdAtMs")),
            expires_at_ms=_number(payload.get("expiresAtMs")),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "id": self.id}
        if self.request is not None:
            out["request"] = self.request
        if self.created_at_ms is not None:
            out["createdAtMs"] = self.created_at_ms
        if self.expires_at_ms is not None:
            out["expiresAtMs"] = self.expires_at_ms
        return out


@dataclass(frozen=True, slots=True)
class TrackedApproval:
    """A pending approval and the local time it was (last) tracked."""

    approval: PendingApproval
    tracked_at_ms: int

    @property
    def expires_at_ms(self) -> int | float:
        """The Gateway's ``expiresAtMs`` (absolute epoch ms), else ``tracked_at_ms`` + 30 min."""
        expires = self.approval.expires_at_ms
        return self.tracked_at_ms + PENDING_APPROVAL_DEFAULT_TTL_MS if expires is None else expires

    def expired(self, now_ms: int) -> bool:
        return now_ms >= self.expires_at_ms


@dataclass(frozen=True, slots=True)
class PendingPermission:
    """A pending Claude permission request: the id as received and when it was (last) received."""

    request_id: str
    received_at_ms: int

    @property
    def key(self) -> str:
        """The lookup key: the lower-cased id (decision S3, §8.5)."""
        return self.request_id.lower()

    def expired(self, now_ms: int) -> bool:
        return now_ms - self.received_at_ms >= PENDING_CLAUDE_PERMISSION_TTL_MS


@dataclass(frozen=True, slots=True)
class SweepReport:
    """What a sweep removed, and whether it stopped the sweeper."""

    expired_permissions: tuple[str, ...] = ()
    expired_approvals: tuple[str, ...] = ()
    sweeper_stopped: bool = False


class PendingRegistry:
    """Pending approvals (``id → TrackedApproval``) and Claude permissions (``key → PendingPermission``)."""

    __slots__ = ("_approvals", "_closed", "_permissions", "_sweeper_active")

    def __init__(self) -> None:
        self._approvals: dict[str, TrackedApproval] = {}
        self._permissions: dict[str, PendingPermission] = {}
        self._sweeper_active = False
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def sweeper_active(self) -> bool:
        """Whether the periodic sweep task should be running now."""
        return self._sweeper_active

    @property
    def approvals(self) -> Mapping[str, TrackedApproval]:
        """The tracked approvals by id, in first-tracked order (unswept)."""
        return dict(self._approvals)

    @property
    def permissions(self) -> Mapping[str, PendingPermission]:
        """The pending Claude permissions by lower-cased id (unswept)."""
        return dict(self._permissions)

    def _ensure_sweeper(self) -> None:
        if not self._closed:
            self._sweeper_active = True

    # --- approvals (§7.2) ---

    def track_approval(self, kind: ApprovalKind, payload: object, now_ms: int) -> PendingApproval | None:
        """``*.approval.requested``: upsert by ``opt_str(payload.id)`` (keeping its list position) with
        ``tracked_at_ms = now_ms`` and start the sweeper. No-op after close or without an id."""
        if self._closed:
            return None
        approval = PendingApproval.from_payload(kind, payload)
        if approval is None:
            return None
        self._approvals[approval.id] = TrackedApproval(approval=approval, tracked_at_ms=now_ms)
        self._ensure_sweeper()
        return approval

    def resolve_approval(self, payload: object) -> PendingApproval | None:
        """``*.approval.resolved``: delete by ``opt_str(payload.id)`` whatever the kind; the removed entry."""
        approval_id = opt_str(payload.get("id")) if isinstance(payload, dict) else None
        if approval_id is None:
            return None
        tracked = self._approvals.pop(approval_id, None)
        return None if tracked is None else tracked.approval

    def list_open(self, now_ms: int) -> tuple[PendingApproval, ...]:
        """``permissions_list_open`` (§7.3): sweep, then approvals by ``createdAtMs`` (UNDEFINED = 0), stable."""
        self.sweep(now_ms)
        approvals = [tracked.approval for tracked in self._approvals.values()]
        return tuple(sorted(approvals, key=lambda a: 0 if a.created_at_ms is None else a.created_at_ms))

    # --- Claude permissions (§8.3, §8.5, §8.6) ---

    def add_permission(self, request_id: str, now_ms: int) -> bool:
        """Store (or refresh) a pending permission under its lower-cased id and start the sweeper.

        A request whose id differs only in case replaces the earlier one. ``False`` (not stored) after close.
        """
        if self._closed:
            return False
        entry = PendingPermission(request_id=request_id, received_at_ms=now_ms)
        self._permissions[entry.key] = entry
        self._ensure_sweeper()
        return True

    def claim_permission(self, code: str) -> PendingPermission | None:
        """Look up **and remove** the entry for a reply code (compared lower-cased) in one step (decision S2).

        Only the claimant answers the request; a reply that finds nothing is an ordinary message.
        """
        return self._permissions.pop(code.lower(), None)

    def restore_permission(self, claim: PendingPermission) -> bool:
        """Put a claimed entry back (with its original time) after its notification failed.

        Only while open and when no entry with that key was added meanwhile; restarts the sweeper if needed.
        """
        if self._closed or claim.key in self._permissions:
            return False
        self._permissions[claim.key] = claim
        self._ensure_sweeper()
        return True

    # --- sweeping and close (§7.4) ---

    def sweep(self, now_ms: int) -> SweepReport:
        """Drop permissions aged 60 min and expired approvals; stop the sweeper when both maps are empty."""
        stale = [key for key, entry in self._permissions.items() if entry.expired(now_ms)]
        expired_permissions = tuple(self._permissions.pop(key).request_id for key in stale)
        expired_approvals = tuple(k for k, v in self._approvals.items() if v.expired(now_ms))
        for approval_id in expired_approvals:
            del self._approvals[approval_id]
        stopped = False
        if self._sweeper_active and not self._permissions and not self._approvals:
            self._sweeper_active = False
            stopped = True
        return SweepReport(
            expired_permissions=expired_permissions,
            expired_approvals=expired_approvals,
            sweeper_stopped=stopped,
        )

    def close(self) -> None:
        """Clear both maps and stop the sweeper; later inserts are ignored."""
        self._closed = True
        self._sweeper_active = False
        self._permissions.clear()
        self._approvals.clear()


def approval_resolve_request(
    kind: ApprovalKind, approval_id: str, decision: ApprovalDecision
) -> tuple[str, dict[str, Any]]:
    """The Gateway request of ``permissions_respond`` (§5.9): method, ``{"id", "decision"}`` (id as given)."""
    method = "exec.approval.resolve" if kind == "exec" else "plugin.approval.resolve"
    return method, {"id": approval_id, "decision": decision}


@dataclass(frozen=True, slots=True)
class PermissionsRespondArgs:
    """``permissions_respond`` arguments (§5.9): the approval's kind, id (as given) and decision."""

    kind: ApprovalKind
    approval_id: str
    decision: ApprovalDecision

    @classmethod
    def from_arguments(cls, args: Mapping[str, Any]) -> PermissionsRespondArgs:
        return cls("exec" if args["kind"] == "exec" else "plugin", str(args["id"]), args["decision"])

    def gateway_request(self) -> tuple[str, dict[str, Any]]:
        return approval_resolve_request(self.kind, self.approval_id, self.decision)
