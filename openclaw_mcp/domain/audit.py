"""The audit trail's values and rules (issue 35, docs/audit.md): one record per tool call through the
``before_tool_call`` boundary, its canonical JSON, the hash chain and its verification, the argument digest and
the redacted, bounded argument preview. Pure: no clock, no I/O.

    record = AuditRecord(ts=now, server="docs", tool="search", args_digest=args_digest(args),
                         args_preview=args_preview(args), outcome="ok", ...)
    text = record_json(record)
    digest = chain_hash(previous_hash, text)

A record never holds a secret: the preview is built from the arguments with every value under a credential-like
key masked and every string run through the project's redactors (domain/redaction), then cut to
:data:`PREVIEW_MAX_CHARS`; the decision carries codes, never a hook's free-text reason; the digest is a
SHA-256 of the whole arguments object.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from openclaw_mcp.domain.redaction import (
    MASK,
    is_sensitive_url_query_param_name,
    redact_argv,
    redact_sensitive_text,
    redact_sensitive_url,
)

__all__ = [
    "GENESIS_HASH",
    "PREVIEW_MAX_CHARS",
    "AuditAnchor",
    "AuditDecision",
    "AuditEntry",
    "AuditOutcome",
    "AuditQuery",
    "AuditRecord",
    "AuditRow",
    "args_digest",
    "args_preview",
    "canonical_json",
    "chain_hash",
    "format_ts",
    "parse_since",
    "record_from_json",
    "record_json",
    "result_is_error",
    "result_size",
    "verify_chain",
]

GENESIS_HASH: Final = "0" * 64
"""What the first record of a never-pruned chain chains from."""
PREVIEW_MAX_CHARS: Final = 200
"""The longest argument preview (characters, ``…`` included)."""
_ELLIPSIS: Final = "…"
_MAX_DEPTH: Final = 16

AuditOutcome = Literal["ok", "error", "vetoed", "held"]
"""``ok``: the tool ran and returned a result that is not an error; ``error``: the tool ran and raised, returned
an error result, or the call was cancelled while it ran; ``vetoed``: a ``before_tool_call`` hook (or an
approval's timeout reason, or approval mode ``deny``) blocked it — the caller got the blocked result;
``held``: the boundary held the call back without running it (a failing or timed-out hook, an approval denied,
expired or unavailable, approval mode ``report``, a call cancelled before its tool ran)."""


# --- canonical JSON, digests ---------------------------------------------------------------------------------


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data: mappings with string keys, lists, strings, finite numbers, booleans, null;
    dataclasses as their fields; anything else as its ``repr``-free type tag (never its contents)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if depth > _MAX_DEPTH:
        return "<nested>"
    if isinstance(value, Mapping):
        return {str(key): _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item, depth + 1) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {item.name: _plain(getattr(value, item.name), depth + 1) for item in dataclasses.fields(value)}
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    return f"<{type(value).__name__}>"


def canonical_json(value: Any) -> str:
    """Sorted keys, separators ``(",", ":")``, ``ensure_ascii=False`` (hash it as UTF-8). Values that are not
    JSON data are first made plain (see :func:`_plain`)."""
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def args_digest(arguments: Any) -> str:
    """SHA-256 hex of the canonical JSON of the call's arguments (equal arguments, equal digests)."""
    return _sha256(canonical_json(arguments))


def chain_hash(prev_hash: str, record_text: str) -> str:
    """SHA-256 hex over ``prev_hash + "\\n" + record_text`` (the canonical record JSON)."""
    return _sha256(f"{prev_hash}\n{record_text}")


def result_size(result: Any) -> int:
    """The size in UTF-8 bytes of the result's canonical JSON (0 when there is no result); of a model-facing
    result (``content`` and ``details``), of those two."""
    if result is None:
        return 0
    if not isinstance(result, Mapping) and hasattr(result, "content") and hasattr(result, "details"):
        result = {"content": result.content, "details": result.details}
    return len(canonical_json(result).encode("utf-8", "surrogatepass"))


def result_is_error(result: Any) -> bool:
    """Whether a tool result reports an error: ``isError: true``, or details with ``status: "error"`` (a
    projected MCP error result) or ``isError: true``."""
    if isinstance(result, Mapping):
        if result.get("isError") is True:
            return True
        details = result.get("details")
    else:
        details = getattr(result, "details", None)
    return isinstance(details, Mapping) and (details.get("status") == "error" or details.get("isError") is True)


# --- the preview -----------------------------------------------------------------------------------------------

_CAMEL: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEGMENTS: Final = re.compile(r"[^a-z0-9]+")
_SECRET_SEGMENTS: Final = frozenset(
    {
        "token", "tokens", "secret", "secrets", "password", "passwd", "passphrase", "pwd", "apikey", "credential",
        "credentials", "auth", "authorization", "cookie", "cookies", "jwt", "bearer", "pat", "otp", "pin",
        "signature", "privatekey", "sessionid", "session",
    }
)  # fmt: skip


def _secret_key(key: str) -> bool:
    """Whether an argument named ``key`` holds a credential (its value is masked whole): the redactor's own
    credential query names, or a name with a credential-like word (``apiKey``, ``db_password``, …)."""
    snake = _CAMEL.sub("_", key).lower()
    if is_sensitive_url_query_param_name(snake) or is_sensitive_url_query_param_name(key):
        return True
    segments = [part for part in _SEGMENTS.split(snake) if part]
    if any(part in _SECRET_SEGMENTS for part in segments):
        return True
    joined = "".join(segments)
    return joined.endswith(("apikey", "privatekey", "secretkey", "accesskey", "signingkey", "token", "secret"))


def _redact_string(text: str) -> str:
    return redact_sensitive_text(redact_sensitive_url(text))


def _redacted(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return _redact_string(value)
    if depth > _MAX_DEPTH:
        return "<nested>"
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = _redact_string(str(key))
            out[name] = MASK if _secret_key(str(key)) and item not in (None, "") else _redacted(item, depth + 1)
        return out
    if isinstance(value, list):
        if value and all(isinstance(item, str) for item in value):  # an argv-like list: ``--token <value>``
            return [_redact_string(item) for item in redact_argv(value)]
        return [_redacted(item, depth + 1) for item in value]
    return value


def args_preview(arguments: Any, limit: int = PREVIEW_MAX_CHARS) -> str:
    """The arguments as canonical JSON with credential-keyed values masked, argv-like string lists through the
    argv redactor and every string (keys included) through the project's URL and text redactors — each string
    before JSON escaping, so multi-line secrets (PEM keys) are seen whole — then cut to ``limit`` characters
    (ending in ``…`` when cut). Redaction comes before the cut, so no partial secret survives."""
    text = canonical_json(_redacted(_plain(arguments)))
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(_ELLIPSIS))] + _ELLIPSIS


# --- records -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuditDecision:
    """What decided the call: ``policy`` (the tool policy let the tool be offered: ``allow``), ``hook``
    (``none``: no handler answered; ``allow``: handlers answered without blocking; ``block``: a handler
    blocked; ``approval``: a handler asked for approval; ``failed``: a handler failed or timed out),
    ``approval`` (how an approval resolved: ``allow-once``, ``allow-always``, ``deny``, ``timeout``,
    ``cancelled``, ``unavailable``, ``mode-deny``, ``mode-report``), ``denied_reason`` (the blocked result's
    code, e.g. ``plugin-before-tool-call``)."""

    policy: str = "allow"
    hook: str = "none"
    approval: str | None = None
    denied_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"policy": self.policy, "hook": self.hook}
        if self.approval is not None:
            data["approval"] = self.approval
        if self.denied_reason is not None:
            data["denied_reason"] = self.denied_reason
        return data

    @property
    def summary(self) -> str:
        """``allow/none``, ``allow/approval:allow-once``, ``allow/block`` …"""
        text = f"{self.policy}/{self.hook}"
        return f"{text}:{self.approval}" if self.approval else text


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One tool call: when (``ts``, epoch ms at its start), whose (``agent``, ``session_key``, ``run_id``),
    what (``server``, ``tool``, ``args_digest``, ``args_preview``), how it was decided (``decision``,
    ``approved_by``: who approved when an approval ran and allowed it), and how it ended (``duration_ms``,
    ``outcome``, ``result_bytes``)."""

    ts: int
    server: str
    tool: str
    args_digest: str
    args_preview: str
    outcome: AuditOutcome
    duration_ms: int = 0
    result_bytes: int = 0
    agent: str | None = None
    session_key: str | None = None
    run_id: str | None = None
    decision: AuditDecision = field(default_factory=AuditDecision)
    approved_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ts": self.ts,
            "agent": self.agent,
            "session_key": self.session_key,
            "run_id": self.run_id,
            "server": self.server,
            "tool": self.tool,
            "args_digest": self.args_digest,
            "args_preview": self.args_preview,
            "decision": self.decision.to_json(),
            "approved_by": self.approved_by,
            "duration_ms": self.duration_ms,
            "outcome": self.outcome,
            "result_bytes": self.result_bytes,
        }


def record_json(record: AuditRecord) -> str:
    """The record's canonical JSON: what is stored and hashed."""
    return canonical_json(record.to_json())


_OUTCOMES: Final = frozenset({"ok", "error", "vetoed", "held"})


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise ValueError(f"audit record field {key} is not a string")


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"audit record field {key} is not an integer")
    return value


def record_from_json(text: str) -> AuditRecord:
    """The record stored as ``text``; ``ValueError`` when it is not one."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("audit record is not an object")
    decision = data.get("decision")
    if not isinstance(decision, dict):
        raise ValueError("audit record decision is not an object")
    outcome = data.get("outcome")
    if outcome not in _OUTCOMES:
        raise ValueError("audit record outcome is unknown")
    return AuditRecord(
        ts=_int(data, "ts"),
        server=_opt_str(data, "server") or "",
        tool=_opt_str(data, "tool") or "",
        args_digest=_opt_str(data, "args_digest") or "",
        args_preview=_opt_str(data, "args_preview") or "",
        outcome=outcome,
        duration_ms=_int(data, "duration_ms"),
        result_bytes=_int(data, "result_bytes"),
        agent=_opt_str(data, "agent"),
        session_key=_opt_str(data, "session_key"),
        run_id=_opt_str(data, "run_id"),
        decision=AuditDecision(
            policy=_opt_str(decision, "policy") or "",
            hook=_opt_str(decision, "hook") or "",
            approval=_opt_str(decision, "approval"),
            denied_reason=_opt_str(decision, "denied_reason"),
        ),
        approved_by=_opt_str(data, "approved_by"),
    )


# --- the chain ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One stored record: its sequence number, canonical JSON, the hash it chains from and its own hash."""

    seq: int
    record_json: str
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class AuditAnchor:
    """Where the kept chain starts: the last pruned record's ``seq`` and ``hash`` (retention), or ``0`` and
    :data:`GENESIS_HASH` for a chain never pruned."""

    seq: int = 0
    hash: str = GENESIS_HASH


def verify_chain(rows: Iterable[AuditRow], anchor: AuditAnchor = AuditAnchor()) -> int | None:
    """The ``seq`` of the first broken record, or ``None`` when the chain is intact.

    Rows come in ``seq`` order. A record is broken when its ``seq`` does not follow the previous one (or the
    anchor's), when its ``prev_hash`` is not the previous record's stored hash (or the anchor's), or when its
    ``hash`` is not :func:`chain_hash` of its ``prev_hash`` and ``record_json``. So an edited record is named
    itself, a deleted one by the record after it. (Deleting the newest records leaves an intact, shorter chain.)
    """
    expected_seq = anchor.seq + 1
    expected_prev = anchor.hash
    for row in rows:
        if row.seq != expected_seq or row.prev_hash != expected_prev:
            return row.seq
        if row.hash != chain_hash(row.prev_hash, row.record_json):
            return row.seq
        expected_seq = row.seq + 1
        expected_prev = row.hash
    return None


# --- reading ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuditQuery:
    """Which records to list: at or after ``since_ms``, of ``server`` / ``tool`` (exact names), the newest
    ``limit`` of them (``None``: all), listed oldest first."""

    since_ms: int | None = None
    server: str | None = None
    tool: str | None = None
    limit: int | None = None

    def matches(self, record: AuditRecord) -> bool:
        return (
            (self.since_ms is None or record.ts >= self.since_ms)
            and (self.server is None or record.server == self.server)
            and (self.tool is None or record.tool == self.tool)
        )


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """A listed record with its sequence number."""

    seq: int
    record: AuditRecord


_AGE: Final = re.compile(r"^(\d{1,9})\s*(ms|s|m|h|d|w)$")
_AGE_MS: Final = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}


def parse_since(text: str, now_ms: int) -> int:
    """``--since``: an age before ``now_ms`` (``90s``, ``30m``, ``12h``, ``7d``, ``2w``) or an ISO 8601 date or
    date-time (UTC unless it carries an offset), as epoch ms. ``ValueError`` for anything else."""
    value = text.strip()
    age = _AGE.match(value.lower())
    if age is not None:
        return now_ms - int(age.group(1)) * _AGE_MS[age.group(2)]
    try:
        moment = _dt.datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"invalid --since value {text!r} (use an ISO 8601 time or an age such as 30m, 12h, 7d)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.UTC)
    return round(moment.timestamp() * 1000)


def format_ts(ts_ms: int) -> str:
    """Epoch ms as ISO 8601 UTC with milliseconds (``2026-05-01T12:00:00.000Z``)."""
    moment = _dt.datetime.fromtimestamp(ts_ms / 1000, tz=_dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
