"""The ``automations`` tool's job argument (spec openclaw-tools.md §6.2 steps 1–2, 5): ``job`` or the flat keys beside
the action, canonicalised (upstream ``cron-tool-canonicalize.ts``), and the parts of the job normaliser that matter
before the identity error (``cron/normalize.ts``). Part of :mod:`.automations`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.domain.openclaw_tools._automation_params import ToolInputError, has_text, is_number, js_falsy
from openclaw_mcp.jscompat.numbers import is_safe_integer
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none

__all__ = ["canonicalize", "drop_nulls", "empty_recovered_patch", "job_argument", "normalize_job", "require_object"]

_SCHEDULE_KINDS: Final = ("at", "every", "cron", "on-exit", "stream")
_PAYLOAD_KINDS: Final = ("systemEvent", "agentTurn", "script", "command")
_FLAT_PAYLOAD_KEYS: Final = (
    "message",
    "text",
    "script",
    "model",
    "fallbacks",
    "toolsAllow",
    "thinking",
    "timeoutSeconds",
    "toolBudget",
    "lightContext",
    "allowUnsafeExternalContent",
)
_FLAT_SCHEDULE_KEYS: Final = (
    "kind",
    "at",
    "atMs",
    "every",
    "everyMs",
    "anchorMs",
    "cron",
    "expr",
    "tz",
    "stagger",
    "staggerMs",
    "exact",
    "command",
    "cwd",
    "mode",
    "match",
    "batchMs",
    "maxBatchBytes",
)
_RECOVERABLE_KEYS: Final = frozenset(
    {
        "name",
        "declarationKey",
        "displayName",
        "owner",
        "schedule",
        "pacing",
        "trigger",
        "sessionTarget",
        "wakeMode",
        "payload",
        "delivery",
        "enabled",
        "description",
        "deleteAfterRun",
        "agentId",
        "sessionKey",
        "failureAlert",
        "namePayload",
        "scheduleKind",
        "sessionTargetName",
        *_FLAT_PAYLOAD_KEYS,
        *_FLAT_SCHEDULE_KEYS,
    }
)
_CREATE_SIGNAL_KEYS: Final = ("schedule", "at", "atMs", "everyMs", "cron", "expr", "payload", "message", "text")


# --- canonicalisation (cron-tool-canonicalize.ts) ---------------------------------------------------------


def _is_record(value: object) -> bool:
    return isinstance(value, dict)


def _record(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _is_schedule_kind(value: object) -> bool:
    return isinstance(value, str) and value in _SCHEDULE_KINDS


def _is_payload_kind(value: object) -> bool:
    return isinstance(value, str) and value in _PAYLOAD_KINDS


def _move(source: dict[str, Any], target: dict[str, Any], key: str, to: str | None = None) -> bool:
    """``moveDefinedField``: move a present key (``null`` included)."""
    if key not in source:
        return False
    target[to or key] = source.pop(key)
    return True


def _repair_padded_keys(value: dict[str, Any]) -> None:
    for key in list(value):
        trimmed = js_trim(key)
        if trimmed != key and trimmed in _RECOVERABLE_KEYS and trimmed not in value:
            value[trimmed] = value.pop(key)


def _repair_concatenated_keys(value: dict[str, Any]) -> None:
    if not _is_record(value.get("payload")) and _is_record(value.get("namePayload")):
        value["payload"] = _record(value["namePayload"])
    raw_kind = value.get("scheduleKind")
    schedule = value.get("schedule")
    if not isinstance(schedule, dict):
        if _is_record(raw_kind):
            value["schedule"] = _record(raw_kind)
        elif _is_schedule_kind(raw_kind):
            value["schedule"] = {"kind": raw_kind}
    elif _is_schedule_kind(raw_kind) and not _is_schedule_kind(schedule.get("kind")):
        value["schedule"] = {**schedule, "kind": raw_kind}
    if not has_text(value.get("name")) and has_text(value.get("sessionTargetName")):
        value["name"] = value["sessionTargetName"]
    for key in ("namePayload", "scheduleKind", "sessionTargetName"):
        value.pop(key, None)


def _schedule_shorthands(schedule: dict[str, Any]) -> None:
    """Shorthands inside ``schedule`` (``atMs``→``at``, ``every``→``everyMs``, ``cron``→``expr``, …). ``at``
    keeps the given value (the reference converts a millisecond ``atMs`` to ISO; never sent here)."""
    if "atMs" in schedule:
        schedule["at"] = schedule.pop("atMs")
        if not _is_schedule_kind(schedule.get("kind")):
            schedule["kind"] = "at"
    for short, full in (("every", "everyMs"), ("cron", "expr"), ("stagger", "staggerMs")):
        if full not in schedule and short in schedule:
            schedule[full] = schedule.pop(short)
    if schedule.get("exact") is True and "staggerMs" not in schedule:
        schedule["staggerMs"] = 0
    schedule.pop("exact", None)


def _move_kind_keys(value: dict[str, Any], schedule: dict[str, Any]) -> None:
    """Flat ``at``/``atMs``, ``everyMs``/``every``, ``cron``/``expr`` and ``command`` imply a kind."""
    moved_at = _move(value, schedule, "at")
    if "atMs" in value:
        schedule["at"] = value.pop("atMs")
        moved_at = True
    if moved_at and not _is_schedule_kind(schedule.get("kind")):
        schedule["kind"] = "at"
    for pair, kind in ((("everyMs", "every"), "every"), (("cron", "expr"), "cron")):
        target = "everyMs" if kind == "every" else "expr"
        if (
            _move(value, schedule, pair[0], target) or _move(value, schedule, pair[1], target)
        ) and not _is_schedule_kind(schedule.get("kind")):
            schedule["kind"] = kind
    if _move(value, schedule, "command") and not _is_schedule_kind(schedule.get("kind")):
        schedule["kind"] = "on-exit"


def _flat_schedule_keys(value: dict[str, Any], schedule: dict[str, Any]) -> bool:
    """Moves flat schedule keys into ``schedule``; true when a kind, ``atMs`` or another key made one."""
    made = "atMs" in value
    if _is_schedule_kind(value.get("kind")) and not _is_schedule_kind(schedule.get("kind")):
        schedule["kind"] = value.pop("kind")
        made = True
    _move_kind_keys(value, schedule)
    for key in ("anchorMs", "tz", "staggerMs", "cwd", "mode", "match", "batchMs", "maxBatchBytes"):
        made = _move(value, schedule, key) or made
    made = _move(value, schedule, "stagger", "staggerMs") or made
    if value.get("exact") is True and "staggerMs" not in schedule:
        schedule["staggerMs"] = 0
        made = True
    value.pop("exact", None)
    return made


def _canonical_schedule(value: dict[str, Any]) -> None:
    had_schedule = _is_record(value.get("schedule"))
    schedule = _record(value.get("schedule"))
    _schedule_shorthands(schedule)
    made = _flat_schedule_keys(value, schedule)
    if not _is_schedule_kind(schedule.get("kind")):
        for key, kind in (("at", "at"), ("everyMs", "every"), ("expr", "cron"), ("command", "on-exit")):
            if key in schedule:
                schedule["kind"] = kind
                break
    if had_schedule or made or schedule:
        value["schedule"] = schedule


def _infer_payload_kind(payload: dict[str, Any]) -> str | None:
    if has_text(payload.get("script")):
        return "script"
    agent_hint = (
        has_text(payload.get("message"))
        or has_text(payload.get("model"))
        or ("model" in payload and payload["model"] is None)
        or has_text(payload.get("thinking"))
        or (is_number(payload.get("timeoutSeconds")) and has_text(payload.get("text")))
        or isinstance(payload.get("lightContext"), bool)
        or isinstance(payload.get("allowUnsafeExternalContent"), bool)
        or ("fallbacks" in payload and _is_string_list_or_null(payload["fallbacks"]))
    )
    if agent_hint:
        return "agentTurn"
    return "systemEvent" if has_text(payload.get("text")) else None


def _is_string_list_or_null(value: object) -> bool:
    return value is None or (isinstance(value, list) and all(isinstance(entry, str) for entry in value))


def _canonical_payload(value: dict[str, Any]) -> None:
    had_payload = _is_record(value.get("payload"))
    payload = _record(value.get("payload"))
    made = False
    for key in _FLAT_PAYLOAD_KEYS:
        made = _move(value, payload, key) or made
    if _is_payload_kind(value.get("kind")) and not _is_payload_kind(payload.get("kind")):
        payload["kind"] = value.pop("kind")
        made = True
    if not _is_payload_kind(payload.get("kind")):
        inferred = _infer_payload_kind(payload)
        if inferred is not None:
            payload["kind"] = inferred
    if had_payload or made or payload:
        value["payload"] = payload


def canonicalize(job: Any) -> dict[str, Any]:
    """``canonicalizeCronToolObject``: ``data``/``job`` wrappers, padded and concatenated keys, flat schedule
    and payload keys moved in, kinds inferred (§6.2 step 2)."""
    source = {str(index): item for index, item in enumerate(job)} if isinstance(job, list) else _record(job)
    inner = source.get("data") if _is_record(source.get("data")) else source.get("job")
    value = _record(inner) if _is_record(inner) else dict(source)
    _repair_padded_keys(value)
    _repair_concatenated_keys(value)
    _canonical_schedule(value)
    _canonical_payload(value)
    return value


def _recover_flat(params: Mapping[str, Any]) -> tuple[bool, dict[str, Any]]:
    """``recoverCronObjectFromFlatParams``: the recoverable keys beside the action (§6.2 step 1)."""
    value = {key: params[key] for key in params if key in _RECOVERABLE_KEYS}
    return bool(value), canonicalize(value)


def _missing_or_empty(value: object) -> bool:
    return js_falsy(value) or value == {}


def drop_nulls(record: dict[str, Any], keep: frozenset[str] = frozenset()) -> None:
    """``stripCronCreateNullClears``: nulls are dropped on create (nested records too)."""
    for key, entry in list(record.items()):
        if entry is None and key not in keep:
            del record[key]
        elif isinstance(entry, dict):
            drop_nulls(entry)


def job_argument(params: Mapping[str, Any], *, create: bool) -> tuple[Any, bool]:
    """``params.job``, else the flat job keys (``add`` only when they carry a schedule or payload)."""
    job = params.get("job")
    if not _missing_or_empty(job):
        return job, False
    found, synthetic = _recover_flat(params)
    if found and (not create or any(key in synthetic for key in _CREATE_SIGNAL_KEYS)):
        return synthetic, True
    return job, False


def require_object(job: Any) -> None:
    """``job required`` unless the job argument is an object or an array (JavaScript-truthy)."""
    if js_falsy(job) or not isinstance(job, dict | list):
        raise ToolInputError("job required")


# --- the parts of the job normaliser that matter here (cron/normalize.ts) ---------------------------------


def _normalized_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """``normalizeCronPayload``: kind spelling, trimmed text, ``env`` check, the agentTurn hint."""
    out = dict(payload)
    kind = (js_trim_or_none(out.get("kind")) or "").lower()
    spelled = {"agentturn": "agentTurn", "systemevent": "systemEvent"}.get(kind, kind)
    if spelled:
        out["kind"] = spelled
    for field in ("message", "text"):
        if isinstance(out.get(field), str):
            out[field] = js_trim_or_none(out[field]) or ""
    if "env" in out:
        env = out["env"]
        if not isinstance(env, dict) or any(not js_trim(k) or not isinstance(v, str) for k, v in env.items()):
            raise ToolInputError("command env must be an object with non-blank keys and string values")
    hints = ("model", "fallbacks", "thinking", "timeoutSeconds")
    hinted = any(k in out for k in hints) or any(
        isinstance(out.get(k), bool) for k in ("lightContext", "allowUnsafeExternalContent")
    )
    if "kind" not in out and isinstance(out.get("text"), str) and hinted:
        out["kind"], out["message"] = "agentTurn", out["text"]
    if out.get("kind") == "agentTurn":
        out.pop("text", None)
    return out


def _check_stream_batching(schedule: Mapping[str, Any]) -> None:
    if (js_trim_or_none(schedule.get("kind")) or "").lower() != "stream":
        return
    for key in ("batchMs", "maxBatchBytes"):
        if key in schedule and not (isinstance(schedule[key], int | float) and is_safe_integer(schedule[key])):
            raise ToolInputError(f"stream schedule {key} must be an integer")


def _normalized_delivery(delivery: dict[str, Any]) -> dict[str, Any]:
    out = dict(delivery)
    mode = (js_trim_or_none(out.get("mode")) or "").lower()
    mode = "announce" if mode == "deliver" else mode
    out["mode"] = mode if mode in ("announce", "none", "webhook") else None
    out["to"] = js_trim_or_none(out.get("to"))
    return out


_TRIMMED_FIELDS: Final = ("declarationKey", "displayName", "agentId", "sessionKey")


def normalize_job(raw: dict[str, Any]) -> dict[str, Any]:
    """``normalizeCronJobInput`` as far as this tool's decisions need: blank labels and ids dropped, invalid
    ``sessionTarget``/``wakeMode``/``owner``/``trigger`` dropped, schedule, payload and delivery spelled."""
    job = dict(raw)
    for field in _TRIMMED_FIELDS:
        if isinstance(job.get(field), str):
            trimmed = js_trim(job[field])
            if trimmed:
                job[field] = trimmed
            else:
                del job[field]
    owner = job.get("owner")
    if isinstance(owner, dict) and not any(has_text(owner.get(k)) for k in ("agentId", "sessionKey", "accountId")):
        job.pop("owner")
    target = (js_trim_or_none(job.get("sessionTarget")) or "").lower()
    if "sessionTarget" in job and target not in ("main", "isolated", "current") and not target.startswith("session:"):
        job.pop("sessionTarget")
    if "wakeMode" in job and (js_trim_or_none(job.get("wakeMode")) or "").lower() not in ("now", "next-heartbeat"):
        job.pop("wakeMode")
    if job.get("runtimeAuthorityRecoveryRequired") is not True:
        job.pop("runtimeAuthorityRecoveryRequired", None)
    if "trigger" in job and job["trigger"] is not None and not isinstance(job["trigger"], dict):
        job.pop("trigger")
    if isinstance(job.get("schedule"), dict):
        _check_stream_batching(job["schedule"])
    if isinstance(job.get("payload"), dict):
        job["payload"] = _normalized_payload(job["payload"])
    if isinstance(job.get("delivery"), dict):
        job["delivery"] = _normalized_delivery(job["delivery"])
    return job


def empty_recovered_patch(patch: Mapping[str, Any]) -> bool:
    """An ``update`` patch recovered from flat keys that carries nothing (no key, or only an empty payload)."""
    keys = list(patch)
    return not keys or (keys == ["payload"] and patch["payload"] == {})
