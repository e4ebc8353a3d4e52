"""Pending approvals, pending Claude permissions, TTLs and the sweeper flag (serve-bridge §7, §12.7)."""

from __future__ import annotations

from typing import Any

from openclaw_mcp.domain.bridge.approvals import (
    PENDING_APPROVAL_DEFAULT_TTL_MS,
    PENDING_CLAUDE_PERMISSION_TTL_MS,
    PENDING_SWEEP_INTERVAL_MS,
    PendingApproval,
    PendingPermission,
    PendingRegistry,
    approval_resolve_request,
)

MINUTE = 60_000

# Recorded payloads (gateway/approval_events.json), request trimmed.
EXEC_REQUESTED: dict[str, Any] = {
    "approvalKind": "exec",
    "id": "bd43bcec-90c7-465e-8303-59514469b834",
    "request": {"command": "echo oracle", "cwd": "/tmp", "host": "gateway", "agentId": "main"},
    "createdAtMs": 1795954422255,
    "expiresAtMs": 1795954722255,
}
PLUGIN_REQUESTED: dict[str, Any] = {
    "approvalKind": "plugin",
    "id": "plugin:57d0040e-6ec1-4fd4-8d3c-054fe562648d",
    "request": {"pluginId": "oracle", "title": "Oracle plugin approval", "toolName": "oracle_tool"},
    "createdAtMs": 1795954422313,
    "expiresAtMs": 1795954722313,
}


def test_constants_match_the_reference() -> None:
    assert PENDING_APPROVAL_DEFAULT_TTL_MS == 30 * MINUTE
    assert PENDING_CLAUDE_PERMISSION_TTL_MS == 60 * MINUTE
    assert PENDING_SWEEP_INTERVAL_MS == 5 * MINUTE


def test_tracked_approvals_are_listed_by_created_at_without_the_approval_kind() -> None:
    registry = PendingRegistry()
    registry.track_approval("plugin", PLUGIN_REQUESTED, 1795954422400)
    registry.track_approval("exec", EXEC_REQUESTED, 1795954422400)
    listed = [a.to_json() for a in registry.list_open(1795954422400)]
    assert listed == [
        {
            "kind": "exec",
            "id": "bd43bcec-90c7-465e-8303-59514469b834",
            "request": EXEC_REQUESTED["request"],
            "createdAtMs": 1795954422255,
            "expiresAtMs": 1795954722255,
        },
        {
            "kind": "plugin",
            "id": "plugin:57d0040e-6ec1-4fd4-8d3c-054fe562648d",
            "request": PLUGIN_REQUESTED["request"],
            "createdAtMs": 1795954422313,
            "expiresAtMs": 1795954722313,
        },
    ]


def test_missing_created_at_sorts_as_zero_and_ties_keep_insertion_order() -> None:
    registry = PendingRegistry()
    registry.track_approval("exec", {"id": "late", "createdAtMs": 5}, 0)
    registry.track_approval("exec", {"id": "none-a"}, 0)
    registry.track_approval("plugin", {"id": "none-b", "createdAtMs": 0}, 0)
    assert [a.id for a in registry.list_open(0)] == ["none-a", "none-b", "late"]


def test_approval_fields_are_kept_only_with_the_right_types() -> None:
    approval = PendingApproval.from_payload(
        "plugin", {"id": " p1 ", "request": [1], "createdAtMs": 3, "expiresAtMs": True, "approvalKind": "x"}
    )
    assert approval is not None
    assert approval.to_json() == {"kind": "plugin", "id": "p1", "request": [1], "createdAtMs": 3}
    no_request = PendingApproval.from_payload("exec", {"id": "e", "request": None})
    assert no_request is not None and no_request.to_json() == {"kind": "exec", "id": "e"}
    assert PendingApproval.from_payload("exec", {"id": "  "}) is None
    assert PendingApproval.from_payload("exec", {}) is None
    assert PendingApproval.from_payload("exec", "id") is None


def test_resolved_events_delete_by_id_whatever_the_kind() -> None:
    registry = PendingRegistry()
    registry.track_approval("exec", {"id": "e1"}, 0)
    removed = registry.resolve_approval({"id": " e1 ", "decision": "deny"})
    assert removed is not None and removed.id == "e1"
    assert registry.list_open(0) == ()
    assert registry.resolve_approval({"id": "e1"}) is None
    assert registry.resolve_approval(None) is None


def test_re_tracking_an_approval_keeps_its_position_and_refreshes_its_time() -> None:
    registry = PendingRegistry()
    registry.track_approval("exec", {"id": "a"}, 0)
    registry.track_approval("exec", {"id": "b"}, 0)
    registry.track_approval("plugin", {"id": "a"}, 20 * MINUTE)
    assert list(registry.approvals) == ["a", "b"]
    assert registry.approvals["a"].tracked_at_ms == 20 * MINUTE
    assert [a.id for a in registry.list_open(40 * MINUTE)] == ["a"]


def test_approval_without_expiry_lives_thirty_minutes_from_tracking() -> None:
    registry = PendingRegistry()
    registry.track_approval("plugin", {"id": "p"}, 0)
    assert [a.id for a in registry.list_open(29 * MINUTE)] == ["p"]
    assert registry.list_open(35 * MINUTE) == ()


def test_gateway_expiry_wins_over_the_default_ttl() -> None:
    registry = PendingRegistry()
    registry.track_approval("exec", {"id": "e", "expiresAtMs": 10 * MINUTE, "createdAtMs": 99 * MINUTE}, 0)
    assert registry.sweep(5 * MINUTE).expired_approvals == ()
    assert registry.sweep(10 * MINUTE).expired_approvals == ("e",)
    assert registry.list_open(11 * MINUTE) == ()


def test_listing_an_expired_approval_empties_the_map_and_stops_the_sweeper() -> None:
    registry = PendingRegistry()
    registry.track_approval("exec", {"id": "e", "expiresAtMs": MINUTE}, 0)
    assert registry.sweeper_active
    assert registry.list_open(2 * MINUTE) == ()
    assert registry.approvals == {}
    assert not registry.sweeper_active


def test_claude_permission_survives_five_minutes_and_expires_at_sixty() -> None:
    registry = PendingRegistry()
    registry.add_permission("abcde", 0)
    assert registry.sweep(5 * MINUTE).expired_permissions == ()
    assert registry.sweep(60 * MINUTE - 1).expired_permissions == ()
    report = registry.sweep(60 * MINUTE)
    assert report.expired_permissions == ("abcde",)
    assert report.sweeper_stopped
    assert registry.permissions == {}


def test_sweeper_starts_with_the_first_entry_and_stops_when_both_maps_drain() -> None:
    registry = PendingRegistry()
    assert not registry.sweeper_active
    assert not registry.sweep(20 * MINUTE).sweeper_stopped
    assert not registry.sweeper_active
    registry.add_permission("abcde", 20 * MINUTE)
    registry.track_approval("exec", {"id": "e"}, 20 * MINUTE)
    assert registry.sweeper_active
    assert not registry.sweep(55 * MINUTE).sweeper_stopped  # approval expired, permission remains
    assert registry.sweep(80 * MINUTE).sweeper_stopped
    assert not registry.sweeper_active
    registry.track_approval("plugin", {"id": "p"}, 81 * MINUTE)
    assert registry.sweeper_active


def test_close_clears_everything_and_ignores_later_entries() -> None:
    registry = PendingRegistry()
    registry.add_permission("abcde", 0)
    registry.track_approval("exec", {"id": "e"}, 0)
    registry.close()
    assert registry.closed
    assert not registry.sweeper_active
    assert registry.permissions == {} and registry.approvals == {}
    assert not registry.add_permission("qwert", 1)
    assert registry.track_approval("exec", {"id": "e2"}, 1) is None
    assert not registry.sweeper_active
    assert registry.permissions == {} and registry.approvals == {}


def test_permissions_are_keyed_by_lower_cased_id_and_remember_the_id_as_received() -> None:
    registry = PendingRegistry()
    registry.add_permission("ZXCVB", 0)
    assert list(registry.permissions) == ["zxcvb"]
    claim = registry.claim_permission("zxcvb")
    assert claim == PendingPermission("ZXCVB", 0)
    assert registry.permissions == {}


def test_a_request_differing_only_in_case_replaces_the_earlier_one() -> None:
    registry = PendingRegistry()
    registry.add_permission("abcde", 0)
    registry.add_permission("ABCDE", 7)
    assert registry.permissions == {"abcde": PendingPermission("ABCDE", 7)}


def test_a_repeated_request_refreshes_its_time() -> None:
    registry = PendingRegistry()
    registry.add_permission("abcde", 0)
    registry.add_permission("abcde", 50 * MINUTE)
    assert registry.sweep(60 * MINUTE).expired_permissions == ()


def test_claim_removes_the_entry_so_a_second_claim_finds_nothing() -> None:
    registry = PendingRegistry()
    registry.add_permission("abcde", 0)
    assert registry.claim_permission("ABCDE") is not None
    assert registry.claim_permission("abcde") is None


def test_restore_puts_a_failed_claim_back_with_its_original_time() -> None:
    registry = PendingRegistry()
    registry.add_permission("abcde", 3)
    claim = registry.claim_permission("abcde")
    assert claim is not None
    assert registry.sweep(10).sweeper_stopped  # both maps empty while the claim is held
    assert registry.restore_permission(claim)
    assert registry.permissions == {"abcde": PendingPermission("abcde", 3)}
    assert registry.sweeper_active


def test_restore_yields_to_a_newer_entry_and_to_close() -> None:
    registry = PendingRegistry()
    registry.add_permission("abcde", 0)
    claim = registry.claim_permission("abcde")
    assert claim is not None
    registry.add_permission("ABCDE", 5)
    assert not registry.restore_permission(claim)
    assert registry.permissions == {"abcde": PendingPermission("ABCDE", 5)}
    registry.close()
    assert not registry.restore_permission(claim)
    assert registry.permissions == {}


def test_resolve_requests_go_to_the_kind_specific_method_with_the_id_as_given() -> None:
    assert approval_resolve_request("exec", " nope ", "deny") == (
        "exec.approval.resolve",
        {"id": " nope ", "decision": "deny"},
    )
    assert approval_resolve_request("plugin", "plugin:x", "allow-once") == (
        "plugin.approval.resolve",
        {"id": "plugin:x", "decision": "allow-once"},
    )
