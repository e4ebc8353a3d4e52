"""The ``automations`` tool's local checks of a canonical job (spec openclaw-tools.md §6.2 steps 3, 4, 6; upstream
``cron-tool-write.ts``, ``cron/delivery-target-validation.ts``, ``cron/pacing.ts``, ``cron/webhook-url.ts``): no shell
payloads or schedules, non-blank delivery strings, pacing bounds, webhook URLs. Part of :mod:`.automations`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.domain.openclaw_tools._automation_params import MISSING, ToolInputError, has_text
from openclaw_mcp.jscompat.numbers import is_safe_integer
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none
from openclaw_mcp.jscompat.urls import parse_url

__all__ = ["check_label", "check_webhook", "common_checks", "parse_duration_ms"]

_SHELL_TAIL: Final = "cannot be created or edited through the agent automations tool; use the CLI or Gateway API."


def _check_no_shell(job: Mapping[str, Any]) -> None:
    payload = job.get("payload")
    if isinstance(payload, dict) and (js_trim_or_none(payload.get("kind")) or "").lower() == "command":
        raise ToolInputError(f"automation command payloads {_SHELL_TAIL}")
    schedule = job.get("schedule")
    if isinstance(schedule, dict) and schedule.get("kind") == "on-exit":
        raise ToolInputError(f"automation on-exit schedules {_SHELL_TAIL}")


def _check_non_blank(path: str, value: object) -> None:
    if value is not None and not has_text(value):
        raise ToolInputError(f"{path} must be a non-empty string")


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
        raise ToolInputError(f"cron pacing {field} must be a positive duration")
    return duration


def _check_pacing(pacing: object) -> None:
    """§6.2 step 4."""
    if pacing is None or pacing is MISSING:
        return
    if not isinstance(pacing, dict):
        raise ToolInputError("cron pacing must be an object")
    if "min" not in pacing and "max" not in pacing:
        raise ToolInputError("cron pacing requires at least one of min or max")
    minimum, maximum = _pacing_bound(pacing, "min"), _pacing_bound(pacing, "max")
    if minimum is not None and maximum is not None and minimum > maximum:
        raise ToolInputError("cron pacing min must not exceed max")


def check_label(job: Mapping[str, Any], key: str, message: str) -> None:
    """A present string label must not be blank (``message`` otherwise)."""
    value = job.get(key)
    if isinstance(value, str) and not js_trim(value):
        raise ToolInputError(message)


def common_checks(job: dict[str, Any]) -> None:
    """§6.2 steps 3–4 for ``add`` and ``update``: no shell payload or schedule, delivery strings, pacing."""
    _check_no_shell(job)
    _check_delivery(job.get("delivery"))
    _check_pacing(job.get("pacing", MISSING))


def _is_http_webhook(value: str | None) -> bool:
    """``normalizeHttpWebhookUrl``: an ``http(s)`` URL without credentials."""
    url = parse_url(value) if value else None
    return url is not None and url.scheme in ("http", "https") and not (url.username or url.password)


def check_webhook(job: Mapping[str, Any]) -> None:
    """§6.2 step 6: an ``agentTurn`` with webhook delivery needs an http(s) ``to``."""
    payload, delivery = job.get("payload"), job.get("delivery")
    if not (isinstance(payload, dict) and payload.get("kind") == "agentTurn" and isinstance(delivery, dict)):
        return
    if delivery.get("mode") == "webhook" and not _is_http_webhook(delivery.get("to")):
        raise ToolInputError('delivery.mode="webhook" requires delivery.to to be a valid http(s) URL')
