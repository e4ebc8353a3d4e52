"""The audit trail's pure rules (domain/audit.py): canonical JSON, the chain and its verification, the digest,
the bounded redacted preview — and the sweep that no secret planted in a call's arguments survives into a
record. The planted values come from the redactor's own pattern table the way the export sweep builds them
(tests/unit/test_hardening_interchange_secrets.py), so a class added to the redactor later is swept too."""

from __future__ import annotations

import hashlib
import json
import random
import urllib.parse
from typing import Any

import pytest

from openclaw_mcp.domain.audit import (
    GENESIS_HASH,
    PREVIEW_MAX_CHARS,
    AuditAnchor,
    AuditDecision,
    AuditRecord,
    AuditRow,
    args_digest,
    args_preview,
    canonical_json,
    chain_hash,
    format_ts,
    parse_since,
    record_from_json,
    record_json,
    result_is_error,
    result_size,
    verify_chain,
)
from openclaw_mcp.domain.content import AgentToolResult
from openclaw_mcp.domain.redaction._query import _SENSITIVE_QUERY_NAMES
from openclaw_mcp.domain.redaction._text import _SECRET_FLAGS
from tests.unit.test_hardening_interchange_secrets import SAMPLES, _fresh

NOW = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def make_record(arguments: Any, **overrides: Any) -> AuditRecord:
    fields: dict[str, Any] = {
        "ts": NOW,
        "server": "docs",
        "tool": "search",
        "args_digest": args_digest(arguments),
        "args_preview": args_preview(arguments),
        "outcome": "ok",
        "agent": "main",
        "session_key": "agent:main:s",
        "run_id": "r1",
        "decision": AuditDecision(hook="approval", approval="allow-once"),
        "approved_by": "operator",
        "duration_ms": 12,
        "result_bytes": 34,
    }
    fields.update(overrides)
    return AuditRecord(**fields)


# --- canonical JSON, digest, chain --------------------------------------------------------------------------


def test_canonical_json_sorts_keys_is_compact_and_keeps_unicode() -> None:
    assert canonical_json({"b": 1, "a": ["é", None, True, 1.5]}) == '{"a":["é",null,true,1.5],"b":1}'
    assert (
        canonical_json({"x": float("nan"), "y": b"abc", "z": object()}) == '{"x":"nan","y":"<3 bytes>","z":"<object>"}'
    )


def test_the_digest_is_sha256_of_the_canonical_arguments_whatever_their_key_order() -> None:
    digest = args_digest({"q": "x", "n": 1})
    assert digest == args_digest({"n": 1, "q": "x"})
    assert digest == hashlib.sha256(b'{"n":1,"q":"x"}').hexdigest()
    assert digest != args_digest({"n": 2, "q": "x"})


def test_chain_hash_covers_the_previous_hash_and_the_record() -> None:
    assert chain_hash("p", '{"a":1}') == hashlib.sha256(b'p\n{"a":1}').hexdigest()
    assert chain_hash("p", "x") != chain_hash("q", "x")


def test_a_record_round_trips_through_its_canonical_json() -> None:
    original = make_record({"q": "x"})
    text = record_json(original)
    assert json.loads(text)["decision"] == {"policy": "allow", "hook": "approval", "approval": "allow-once"}
    assert record_from_json(text) == original
    assert list(json.loads(text)) == sorted(json.loads(text))
    for broken in ("[]", '{"decision":{},"outcome":"maybe"}', '{"ts":"x","decision":{},"outcome":"ok"}'):
        with pytest.raises(ValueError):
            record_from_json(broken)


def _chain(count: int, anchor: AuditAnchor | None = None) -> list[AuditRow]:
    anchor = anchor or AuditAnchor()
    rows: list[AuditRow] = []
    prev = anchor.hash
    for n in range(count):
        text = record_json(make_record({"n": n}))
        rows.append(AuditRow(anchor.seq + n + 1, text, prev, chain_hash(prev, text)))
        prev = rows[-1].hash
    return rows


def test_verify_accepts_an_intact_chain_from_genesis_or_from_an_anchor() -> None:
    assert verify_chain([]) is None
    assert verify_chain(_chain(5)) is None
    assert _chain(1)[0].prev_hash == GENESIS_HASH
    anchor = AuditAnchor(41, "f" * 64)
    assert verify_chain(_chain(3, anchor), anchor) is None
    assert verify_chain(_chain(3, anchor)) == 42  # without its anchor the first kept record is broken


def test_verify_names_the_edited_the_rehashed_and_the_record_after_a_gap() -> None:
    rows = _chain(5)
    edited = [*rows[:2], AuditRow(3, rows[2].record_json.replace('"ok"', '"error"'), rows[2].prev_hash, rows[2].hash)]
    assert verify_chain([*edited, *rows[3:]]) == 3
    text = rows[2].record_json.replace('"ok"', '"error"')
    rehashed = AuditRow(3, text, rows[2].prev_hash, chain_hash(rows[2].prev_hash, text))
    assert verify_chain([*rows[:2], rehashed, *rows[3:]]) == 4  # the edit re-hashed: its successor breaks
    assert verify_chain([*rows[:2], *rows[3:]]) == 4  # record 3 removed
    assert verify_chain([rows[1], rows[0], *rows[2:]]) == 2  # out of order


# --- preview -----------------------------------------------------------------------------------------------


def test_the_preview_is_bounded_and_cut_after_redaction() -> None:
    long = {"text": "a" * 1000}
    preview = args_preview(long)
    assert len(preview) == PREVIEW_MAX_CHARS and preview.endswith("…")
    secret = "ghp_" + "Z9" * 20
    straddling = {"text": "b" * (PREVIEW_MAX_CHARS - 20) + " " + secret}
    assert "Z9Z9Z9Z9" not in args_preview(straddling)
    assert args_preview({"q": "short"}) == '{"q":"short"}'


@pytest.mark.parametrize(
    "key",
    ["password", "apiKey", "api_key", "db_password", "Authorization", "accessToken", "client_secret", "privateKey",
     "x-api-key", "cookie", "token", "GITHUB_TOKEN", "signingKey"],
)  # fmt: skip
def test_values_under_credential_keys_are_masked_whole(key: str) -> None:
    preview = args_preview({key: "plainlookingvalue12345", "query": "weather"})
    assert "plainlookingvalue12345" not in preview
    assert '"query":"weather"' in preview


def test_ordinary_keys_are_kept() -> None:
    arguments = {"keyword": "cats", "monkey": "business", "path": "/tmp/x", "count": 3}
    assert args_preview(arguments) == canonical_json(arguments)


def planted_arguments() -> list[tuple[Any, str]]:
    """``(arguments, needle)``: one planted secret each, in the shapes a model's tool arguments take."""
    rng = random.Random(35)
    planted: list[tuple[Any, str]] = []
    for _, sample, needle in SAMPLES:
        planted.append(({"text": sample}, needle))
        planted.append(({"query": "find", "nested": {"items": [1, {"note": sample}]}}, needle))
        planted.append(({"argv": ["run", sample]}, needle))
        planted.append(({"lines": [f"x = 1\n{sample}\ny = 2"]}, needle))
    for flag in sorted(_SECRET_FLAGS):
        value = _fresh(rng)
        planted.append(({"args": ["tool", flag, value, "--verbose"]}, value))
        value = _fresh(rng)
        planted.append(({"args": ["tool", f"{flag}={value}"]}, value))
    for name in sorted(_SENSITIVE_QUERY_NAMES):
        value = _fresh(rng)
        planted.append(({name: value}, value))
        value = _fresh(rng)
        planted.append(({"url": f"https://h.example/api?page=1&{name}={value}"}, value))
        value = _fresh(rng)
        nested = urllib.parse.quote(f"https://o.example/cb?{name}={value}", safe="")
        planted.append(({"next": f"https://h.example/login?next={nested}"}, value))
    for key in ("password", "apiKey", "secret", "Authorization", "x-auth-token", "refreshToken", "dbPassword"):
        value = _fresh(rng)
        planted.append(({"config": {key: value}}, value))
    value = _fresh(rng)
    planted.append(({"url": f"https://bob:{value}@h.example/mcp"}, value))
    value = _fresh(rng)
    planted.append(({"headers": {"X-Anything": f"Bearer {value}"}}, value))
    value = _fresh(rng)
    planted.append(({"endpoint": f"https://api.telegram.org/bot123456789:{value}/getMe"}, value))
    return planted


PLANTED = planted_arguments()


def test_every_redactor_pattern_class_is_planted() -> None:
    assert all(sample for _, sample, _ in SAMPLES)
    assert len(PLANTED) > 4 * len(SAMPLES)


def test_no_planted_secret_survives_into_a_record() -> None:
    leaks = []
    for arguments, needle in PLANTED:
        text = record_json(make_record(arguments))
        uncut = args_preview(arguments, limit=1_000_000)  # the cut must not be what hides a secret
        if needle in text or needle in uncut:
            leaks.append((arguments, needle))
    assert not leaks, f"{len(leaks)} planted secrets reached a record, e.g. {leaks[:3]}"


# --- results, times -----------------------------------------------------------------------------------------


def test_result_size_and_error() -> None:
    assert result_size(None) == 0
    assert result_size({"a": 1}) == len(b'{"a":1}')
    projected = AgentToolResult(content=({"type": "text", "text": "hé"},), details={"status": "error"})
    assert result_size(projected) == len(
        canonical_json({"content": projected.content, "details": projected.details}).encode()
    )
    assert result_is_error(projected)
    assert result_is_error({"isError": True, "content": []})
    assert not result_is_error({"content": [], "details": {"status": "blocked"}})
    assert not result_is_error(AgentToolResult(content=(), details={"mcpServer": "x"}))


def test_since_takes_ages_and_iso_times() -> None:
    assert parse_since("30m", NOW) == NOW - 30 * 60_000
    assert parse_since(" 7d ", NOW) == NOW - 7 * 86_400_000
    assert parse_since("2026-01-01", NOW) == NOW
    assert parse_since("2026-01-01T01:00:00+01:00", NOW) == NOW
    assert parse_since("2026-01-01T00:00:01Z", NOW) == NOW + 1000
    for bad in ("yesterday", "-5m", "", "5 parsecs"):
        with pytest.raises(ValueError):
            parse_since(bad, NOW)
    assert format_ts(NOW + 5) == "2026-01-01T00:00:00.005Z"
