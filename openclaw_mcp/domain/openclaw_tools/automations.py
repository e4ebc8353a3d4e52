"""The ``automations`` tool (alias ``cron``) up to the Gateway: arguments, local checks and what to do next
(spec openclaw-tools.md §5, §6.1, §6.2; decision D-OT2).

upstream: ``src/agents/tools/cron-tool.ts``, ``cron-tool-canonicalize.ts``, ``cron-tool-write.ts``,
``cron-tool-context.ts``, ``common.ts`` (parameter readers), ``cron/normalize.ts``, ``cron/pacing.ts``,
``cron/delivery-target-validation.ts``, ``cron/webhook-url.ts``, ``gateway.ts`` (identity rule).

:func:`plan_automations_call` turns the call's arguments into one outcome:

* :class:`Fail` — a local error text (argument checks, ``gatewayUrl`` checks, the identity error);
* :class:`CallStatus` — send ``cron.status {}`` and return its payload as the JSON result;
* :class:`FetchHistoryThenFail` — ``add`` with ``contextMessages`` > 0 and a ``systemEvent`` text: send
  ``chat.history``, ignore its outcome, then fail with the identity error.

Identity-gated methods (``cron.list/get/add/update/remove/run/runs``, ``wake``) are never sent (D-OT2).
Not modelled from the reference's job normaliser (its texts would precede the identity error): the
``schedule.staggerMs`` check of ``cron`` schedules and the ``session:<id>`` target-id check.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from openclaw_mcp.domain.openclaw_tools.gateway_target import GatewayTargetError, ToolGateway, resolve_tool_gateway
from openclaw_mcp.jscompat.numbers import is_safe_integer
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none
from openclaw_mcp.jscompat.urls import parse_url

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "IDENTITY_ERROR",
    "READ_SCOPES",
    "TRUSTED_CONTEXT_ERROR",
    "AutomationsOutcome",
    "CallStatus",
    "Fail",
    "FetchHistoryThenFail",
    "GatewayRequest",
    "plan_automations_call",
]

IDENTITY_ERROR: Final = "trusted operational run instance required for this gateway call"
TRUSTED_CONTEXT_ERROR: Final = "agent gateway calls require the trusted local gateway context"
DEFAULT_TIMEOUT_MS: Final = 60_000
READ_SCOPES: Final = ("operator.read",)
_NEXT_CHECK_ERROR: Final = "cron next_check is only available to the currently running job"
_ID_REQUIRED: Final = "jobId required (id accepted for backward compatibility)"
_SHELL_TAIL: Final = "cannot be created or edited through the agent automations tool; use the CLI or Gateway API."
_MISSING: Final = object()


# --- outcomes ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GatewayRequest:
    """One allowed Gateway request (§6.3): method, params, least-privilege scopes, timeout, tool options."""

    method: str
    params: dict[str, Any]
    scopes: tuple[str, ...]
    timeout_ms: int
    gateway: ToolGateway


@dataclass(frozen=True, slots=True)
class Fail:
    """The call fails locally with ``Tool error: <message>``."""

    message: str


@dataclass(frozen=True, slots=True)
class CallStatus:
    """``status``: send the request and return its payload as the JSON result."""

    request: GatewayRequest


@dataclass(frozen=True, slots=True)
class FetchHistoryThenFail:
    """``add`` with reminder context (§6.2 step 7): send ``chat.history``, ignore its result or error, then
    fail with ``message``."""

    request: GatewayRequest
    message: str


AutomationsOutcome = Fail | CallStatus | FetchHistoryThenFail


class _ToolInputError(Exception):
    """A local check failed; its message is the tool error text."""


# --- argument readers (common.ts, param-key.ts) -----------------------------------------------------------


def _snake_case(key: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", key)).lower()


def _raw(params: Mapping[str, Any], key: str) -> Any:
    """The value under ``key`` or its snake_case form (present keys win, even when ``null``); else _MISSING."""
    if key in params:
        return params[key]
    snake = _snake_case(key)
    return params[snake] if snake != key and snake in params else _MISSING


def _read_string(params: Mapping[str, Any], key: str, *, trim: bool = True) -> str | None:
    """``readToolStringParam``: strings only, trimmed unless ``trim=False``; empty → absent."""
    raw = _raw(params, key)
    if not isinstance(raw, str):
        return None
    value = js_trim(raw) if trim else raw
    return value or None


def _require_string(params: Mapping[str, Any], key: str) -> str:
    value = _read_string(params, key)
    if value is None:
        raise _ToolInputError(f"{key} required")
    return value


_STRICT_NUMBER: Final = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?", re.IGNORECASE | re.ASCII)


def _read_number(raw: Any) -> int | float | None:
    """``readNumberParam`` with ``strict``: finite numbers, or strict numeric strings."""
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return raw if isinstance(raw, int) or math.isfinite(raw) else None
    if isinstance(raw, str):
        text = js_trim(raw)
        if text and _STRICT_NUMBER.fullmatch(text):
            parsed = float(text)
            return parsed if math.isfinite(parsed) else None
    return None


def _read_integer(
    params: Mapping[str, Any], key: str, *, minimum: int, maximum: int | None, message: str
) -> int | None:
    """``readPositiveIntegerParam`` / ``readNonNegativeIntegerParam``: absent, ``null`` or blank → ``None``."""
    raw = _raw(params, key)
    number = _read_number(raw)
    if number is not None and is_safe_integer(number) and number >= minimum:
        if maximum is not None and number > maximum:
            raise _ToolInputError(message)
        return int(number)
    if raw is _MISSING or raw is None or (isinstance(raw, str) and not js_trim(raw)):
        return None
    raise _ToolInputError(message)


def _read_positive(
    params: Mapping[str, Any], key: str, *, maximum: int | None = None, message: str | None = None
) -> int | None:
    return _read_integer(
        params, key, minimum=1, maximum=maximum, message=message or f"{key} must be a positive integer"
    )


def _read_non_negative(params: Mapping[str, Any], key: str) -> int | None:
    return _read_integer(params, key, minimum=0, maximum=None, message=f"{key} must be a non-negative integer")


def _require_job_id(params: Mapping[str, Any]) -> str:
    job_id = _read_string(params, "jobId") or _read_string(params, "id")
    if job_id is None:
        raise _ToolInputError(_ID_REQUIRED)
    return job_id


# --- job canonicalisation (cron-tool-canonicalize.ts) -----------------------------------------------------

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


def _is_record(value: object) -> bool:
    return isinstance(value, dict)


def _record(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _has_text(value: object) -> bool:
    return js_trim_or_none(value) is not None


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
    if not _has_text(value.get("name")) and _has_text(value.get("sessionTargetName")):
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
    if _has_text(payload.get("script")):
        return "script"
    agent_hint = (
        _has_text(payload.get("message"))
        or _has_text(payload.get("model"))
        or ("model" in payload and payload["model"] is None)
        or _has_text(payload.get("thinking"))
        or (_is_number(payload.get("timeoutSeconds")) and _has_text(payload.get("text")))
        or isinstance(payload.get("lightContext"), bool)
        or isinstance(payload.get("allowUnsafeExternalContent"), bool)
        or ("fallbacks" in payload and _is_string_list_or_null(payload["fallbacks"]))
    )
    if agent_hint:
        return "agentTurn"
    return "systemEvent" if _has_text(payload.get("text")) else None


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


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


def _canonicalize(job: Any) -> dict[str, Any]:
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
    return bool(value), _canonicalize(value)


def _missing_or_empty(value: object) -> bool:
    return _js_falsy(value) or value == {}


def _js_falsy(value: object) -> bool:
    return value is None or value is False or value == "" or (_is_number(value) and value == 0)


def _drop_nulls(record: dict[str, Any], keep: frozenset[str] = frozenset()) -> None:
    """``stripCronCreateNullClears``: nulls are dropped on create (nested records too)."""
    for key, entry in list(record.items()):
        if entry is None and key not in keep:
            del record[key]
        elif isinstance(entry, dict):
            _drop_nulls(entry)


# --- local checks (cron-tool-write.ts, delivery-target-validation.ts, pacing.ts) --------------------------


def _check_no_shell(job: Mapping[str, Any]) -> None:
    payload = job.get("payload")
    if isinstance(payload, dict) and (js_trim_or_none(payload.get("kind")) or "").lower() == "command":
        raise _ToolInputError(f"automation command payloads {_SHELL_TAIL}")
    schedule = job.get("schedule")
    if isinstance(schedule, dict) and schedule.get("kind") == "on-exit":
        raise _ToolInputError(f"automation on-exit schedules {_SHELL_TAIL}")


def _check_non_blank(path: str, value: object) -> None:
    if value is not None and not _has_text(value):
        raise _ToolInputError(f"{path} must be a non-empty string")


def _check_delivery(delivery: object) -> None:
    """§6.2 step 3: present delivery strings must be non-blank."""
    if not isinstance(delivery, dict):
        return
    _check_non_blank("delivery.channel", delivery.get("channel"))
    _check_non_blank("delivery.to", delivery.get("to"))
    failure = delivery.get("failureDestination")
    if isinstance(failure, dict):
        _check_non_blank("delivery.failureDestination.channel", failure.get("channel"))
        _check_non_blank("delivery.failureDestination.to", failure.get("to"))
    completion = delivery.get("completionDestination")
    if isinstance(completion, dict):
        _check_non_blank("delivery.completionDestination.to", completion.get("to"))


_DURATION_UNITS: Final = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_SINGLE_DURATION: Final = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)?", re.ASCII)
_DURATION_SEGMENT: Final = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)", re.ASCII)


def _composite_duration(text: str) -> float | None:
    total, consumed = 0.0, 0
    for match in _DURATION_SEGMENT.finditer(text):
        if match.start() != consumed:
            return None
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        consumed = match.end()
    return total if consumed and consumed == len(text) else None


def parse_duration_ms(raw: object) -> int | None:
    """``parseDurationMs``: ``500ms``, ``30s``, ``1h30m`` (no unit = ms) → milliseconds; ``None`` if invalid."""
    text = (js_trim_or_none(raw) or "").lower()
    single = _SINGLE_DURATION.fullmatch(text)
    total = float(single.group(1)) * _DURATION_UNITS[single.group(2) or "ms"] if single else _composite_duration(text)
    if total is None or not math.isfinite(total):
        return None
    rounded = math.floor(total + 0.5)
    return rounded if is_safe_integer(rounded) else None


def _pacing_bound(pacing: Mapping[str, Any], field: str) -> int | None:
    if field not in pacing:
        return None
    duration = parse_duration_ms(pacing[field])
    if duration is None or duration <= 0:
        raise _ToolInputError(f"cron pacing {field} must be a positive duration")
    return duration


def _check_pacing(pacing: object) -> None:
    """§6.2 step 4."""
    if pacing is None or pacing is _MISSING:
        return
    if not isinstance(pacing, dict):
        raise _ToolInputError("cron pacing must be an object")
    if "min" not in pacing and "max" not in pacing:
        raise _ToolInputError("cron pacing requires at least one of min or max")
    minimum, maximum = _pacing_bound(pacing, "min"), _pacing_bound(pacing, "max")
    if minimum is not None and maximum is not None and minimum > maximum:
        raise _ToolInputError("cron pacing min must not exceed max")


def _check_label(job: Mapping[str, Any], key: str, message: str) -> None:
    value = job.get(key)
    if isinstance(value, str) and not js_trim(value):
        raise _ToolInputError(message)


def _common_checks(job: dict[str, Any]) -> None:
    _check_no_shell(job)
    _check_delivery(job.get("delivery"))
    _check_pacing(job.get("pacing", _MISSING))


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
            raise _ToolInputError("command env must be an object with non-blank keys and string values")
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
            raise _ToolInputError(f"stream schedule {key} must be an integer")


def _normalized_delivery(delivery: dict[str, Any]) -> dict[str, Any]:
    out = dict(delivery)
    mode = (js_trim_or_none(out.get("mode")) or "").lower()
    mode = "announce" if mode == "deliver" else mode
    out["mode"] = mode if mode in ("announce", "none", "webhook") else None
    out["to"] = js_trim_or_none(out.get("to"))
    return out


_TRIMMED_FIELDS: Final = ("declarationKey", "displayName", "agentId", "sessionKey")


def _normalize_job(raw: dict[str, Any]) -> dict[str, Any]:
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
    if isinstance(owner, dict) and not any(_has_text(owner.get(k)) for k in ("agentId", "sessionKey", "accountId")):
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


def _is_http_webhook(value: str | None) -> bool:
    """``normalizeHttpWebhookUrl``: an ``http(s)`` URL without credentials."""
    url = parse_url(value) if value else None
    return url is not None and url.scheme in ("http", "https") and not (url.username or url.password)


def _check_webhook(job: Mapping[str, Any]) -> None:
    """§6.2 step 6: an ``agentTurn`` with webhook delivery needs an http(s) ``to``."""
    payload, delivery = job.get("payload"), job.get("delivery")
    if not (isinstance(payload, dict) and payload.get("kind") == "agentTurn" and isinstance(delivery, dict)):
        return
    if delivery.get("mode") == "webhook" and not _is_http_webhook(delivery.get("to")):
        raise _ToolInputError('delivery.mode="webhook" requires delivery.to to be a valid http(s) URL')


def _empty_recovered_patch(patch: Mapping[str, Any]) -> bool:
    keys = list(patch)
    return not keys or (keys == ["payload"] and patch["payload"] == {})


# --- actions ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Context:
    params: Mapping[str, Any]
    session_key: str
    agent_id: str
    config: Mapping[str, Any]
    env: Mapping[str, str]
    gateway_url: str | None
    gateway_token: str | None
    timeout_ms: int

    def tool_gateway(self) -> ToolGateway:
        return resolve_tool_gateway(self.config, self.env, self.gateway_url, self.gateway_token)

    def request(self, method: str, params: dict[str, Any]) -> GatewayRequest:
        return GatewayRequest(method, params, READ_SCOPES, self.timeout_ms, self.tool_gateway())


def _identity_failure(ctx: _Context) -> str:
    """Why an identity-gated method cannot be sent (§6.1 "Why"): ``gatewayUrl`` validation first."""
    gateway = ctx.tool_gateway()
    return TRUSTED_CONTEXT_ERROR if gateway.explicit or gateway.target != "local" else IDENTITY_ERROR


def _plan_list(ctx: _Context) -> AutomationsOutcome:
    _read_positive(ctx.params, "limit", maximum=200, message="limit must be a positive integer no greater than 200")
    _read_non_negative(ctx.params, "offset")
    return Fail(_identity_failure(ctx))


def _job_argument(params: Mapping[str, Any], *, create: bool) -> tuple[Any, bool]:
    """``params.job``, else the flat job keys (``add`` only when they carry a schedule or payload)."""
    job = params.get("job")
    if not _missing_or_empty(job):
        return job, False
    found, synthetic = _recover_flat(params)
    if found and (not create or any(key in synthetic for key in _CREATE_SIGNAL_KEYS)):
        return synthetic, True
    return job, False


def _require_object(job: Any) -> None:
    if _js_falsy(job) or not isinstance(job, dict | list):
        raise _ToolInputError("job required")


def _plan_add(ctx: _Context) -> AutomationsOutcome:
    """§6.2, in order."""
    job, _ = _job_argument(ctx.params, create=True)
    _require_object(job)
    canonical = _canonicalize(job)
    _drop_nulls(canonical, keep=frozenset({"agentId", "sessionKey"}))
    _common_checks(canonical)
    _check_label(canonical, "declarationKey", "declarationKey must be a non-empty string")
    _check_label(canonical, "displayName", "displayName must be a non-empty string")
    normalized = _normalize_job(canonical)
    _check_webhook(normalized)
    context_messages = _read_non_negative(ctx.params, "contextMessages") or 0
    try:
        message = _identity_failure(ctx)
    except GatewayTargetError as exc:
        return Fail(exc.text)
    payload = normalized.get("payload")
    limit = min(10, context_messages)
    if (
        limit > 0
        and isinstance(payload, dict)
        and payload.get("kind") == "systemEvent"
        and _has_text(payload.get("text"))
    ):
        history = {"sessionKey": ctx.session_key, "agentId": ctx.agent_id, "limit": limit}
        return FetchHistoryThenFail(ctx.request("chat.history", history), message)
    return Fail(message)


def _plan_update(ctx: _Context) -> AutomationsOutcome:
    """§6.1 ``update``: id, job (or flat keys), §6.2 steps 2–4, ``displayName``."""
    _require_job_id(ctx.params)
    job, recovered = _job_argument(ctx.params, create=False)
    _require_object(job)
    canonical = _canonicalize(job)
    _common_checks(canonical)
    _check_label(canonical, "displayName", "displayName must be a non-empty string or null")
    patch = _normalize_job(canonical)
    if recovered and _empty_recovered_patch(patch):
        raise _ToolInputError("job required")
    return Fail(_identity_failure(ctx))


def _plan_action(action: str, ctx: _Context) -> AutomationsOutcome:
    if action == "status":
        return CallStatus(ctx.request("cron.status", {}))
    if action == "list":
        return _plan_list(ctx)
    if action in ("get", "remove", "runs", "run"):
        _require_job_id(ctx.params)
        return Fail(_identity_failure(ctx))
    if action == "add":
        return _plan_add(ctx)
    if action == "update":
        return _plan_update(ctx)
    if action == "next_check":
        return Fail(_NEXT_CHECK_ERROR)
    if action == "wake":
        _require_string(ctx.params, "text")
        return Fail(_identity_failure(ctx))
    return Fail(f"Unknown action: {action}")


def plan_automations_call(
    arguments: Mapping[str, Any] | None,
    *,
    session_key: str,
    agent_id: str,
    config: Mapping[str, Any],
    env: Mapping[str, str],
) -> AutomationsOutcome:
    """What one ``automations`` call does (§5, §6.1): ``action`` first, then the Gateway options
    (``gatewayUrl``/``gatewayToken`` untrimmed, ``timeoutMs`` default 60 000), then the action's checks."""
    params: Mapping[str, Any] = arguments if isinstance(arguments, Mapping) else {}
    try:
        action = _require_string(params, "action")
        ctx = _Context(
            params=params,
            session_key=session_key,
            agent_id=agent_id,
            config=config,
            env=env,
            gateway_url=_read_string(params, "gatewayUrl", trim=False),
            gateway_token=_read_string(params, "gatewayToken", trim=False),
            timeout_ms=_read_positive(params, "timeoutMs") or DEFAULT_TIMEOUT_MS,
        )
        return _plan_action(action, ctx)
    except _ToolInputError as exc:
        return Fail(str(exc))
    except GatewayTargetError as exc:
        return Fail(exc.text)
