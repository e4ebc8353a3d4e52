"""Gateway wire frames (spec gateway-protocol §1, §3.3): encoding requests, recognising inbound frames the
way the reference client's frame guards do, and turning ``ok: false`` errors into port errors."""

from __future__ import annotations

import json
import math
import uuid
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.application.ports.gateway import GatewayRequestError
from openclaw_mcp.jscompat.jsonparse import parse_json
from openclaw_mcp.jscompat.text import js_trim
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "MAX_PAYLOAD_BYTES",
    "EventFrame",
    "ResponseFrame",
    "as_non_negative_integer",
    "encode_request",
    "format_connect_error_message",
    "is_non_negative_integer",
    "parse_frame",
    "read_detail_code",
    "request_error",
    "request_id",
]

MAX_PAYLOAD_BYTES = 26_214_400
"""The largest inbound message the client accepts (25 MiB)."""


@dataclass(frozen=True, slots=True)
class EventFrame:
    event: str
    payload: Any
    seq: int | None


@dataclass(frozen=True, slots=True)
class ResponseFrame:
    id: str
    ok: bool
    payload: Any
    error: dict[str, Any] | None


def request_id(counter: int) -> str:
    """``"<n>:<uuid4>"``: the per-connection counter and a random UUID."""
    return f"{counter}:{uuid.uuid4()}"


def encode_request(frame_id: str, method: str, params: Any = None) -> str:
    """A request frame; ``params`` is omitted when ``None`` (JavaScript ``undefined``)."""
    frame: dict[str, Any] = {"type": "req", "id": frame_id, "method": method}
    if params is not None:
        frame["params"] = params
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def as_non_negative_integer(value: object) -> int | None:
    """``value`` as an ``int`` when JavaScript ``Number.isInteger(value) && value >= 0`` holds for it (JSON
    numbers; booleans are not numbers), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and value >= 0:
        return int(value)
    return None


def is_non_negative_integer(value: object) -> bool:
    return as_non_negative_integer(value) is not None


def _non_empty_string(value: Any) -> bool:
    return isinstance(value, str) and len(value) > 0


def _is_error_shape(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if not _non_empty_string(value.get("code")) or not _non_empty_string(value.get("message")):
        return False
    if "retryable" in value and not isinstance(value["retryable"], bool):
        return False
    return "retryAfterMs" not in value or is_non_negative_integer(value["retryAfterMs"])


def parse_frame(data: str | bytes) -> EventFrame | ResponseFrame | None:
    """The inbound frame, or ``None`` for anything the client ignores: unparseable text, and JSON that is
    neither a valid event frame nor a valid response frame (binary messages are decoded as UTF-8)."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    try:
        value = parse_json(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    if value.get("type") == "event" and _non_empty_string(value.get("event")):
        seq = as_non_negative_integer(value.get("seq"))
        if "seq" not in value or seq is not None:
            return EventFrame(event=value["event"], payload=value.get("payload", UNDEFINED), seq=seq)
    if value.get("type") != "res" or not _non_empty_string(value.get("id")) or not isinstance(value.get("ok"), bool):
        return None
    if "error" in value and not _is_error_shape(value["error"]):
        return None
    return ResponseFrame(
        id=value["id"],
        ok=value["ok"],
        payload=value.get("payload"),
        error=value.get("error"),
    )


def read_detail_code(details: Any) -> str | None:
    """``details.code`` trimmed, when it is a non-blank string."""
    if not isinstance(details, dict):
        return None
    code = details.get("code")
    if isinstance(code, str) and code.strip():
        return code.strip()
    return None


_PAIRING_MESSAGES = {
    "not-paired": "device pairing required",
    "role-upgrade": "role upgrade pending approval",
    "scope-upgrade": "scope upgrade pending approval",
    "metadata-upgrade": "device metadata change pending approval",
}


def _opt_str(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    trimmed = js_trim(value)
    return trimmed or None


def _pairing_request_id(value: Any) -> str | None:
    text = _opt_str(value)
    if text is None or len(text) > 128 or not text[0].isascii() or not text[0].isalnum():
        return None
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-")
    return text if all(c in allowed for c in text) else None


def _protocol_number(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    return int(value) if value > 0 else None


def format_connect_error_message(message: Any, details: Any) -> str:
    """The client-side message of a Gateway rejection (gateway-protocol §3.3)."""
    code = read_detail_code(details)
    if code == "PAIRING_REQUIRED":
        assert isinstance(details, dict)
        reason = _opt_str(details.get("reason"))
        base = _PAIRING_MESSAGES.get(reason or "", _PAIRING_MESSAGES["not-paired"])
        pairing_request = _pairing_request_id(details.get("requestId"))
        return f"{base} (requestId: {pairing_request})" if pairing_request else base
    if code == "PROTOCOL_MISMATCH":
        assert isinstance(details, dict)
        client_min = _protocol_number(details.get("clientMinProtocol"))
        client_max = _protocol_number(details.get("clientMaxProtocol"))
        expected = _protocol_number(details.get("expectedProtocol"))
        probe_min = _protocol_number(details.get("minimumProbeProtocol"))
        parts: list[str] = []
        if client_min is not None and client_max is not None:
            parts.append(
                f"Control UI v{client_min}" if client_min == client_max else f"Control UI v{client_min}-v{client_max}"
            )
        if expected is not None:
            parts.append(f"Gateway v{expected}")
        if probe_min is not None:
            parts.append(f"probe min v{probe_min}")
        text = _opt_str(message) or "protocol mismatch"
        return f"{text}: {', '.join(parts)}" if parts else text
    return _opt_str(message) or "gateway request failed"


def request_error(error: dict[str, Any]) -> GatewayRequestError:
    """The port error for a response's ``error`` object (the reference's ``GatewayClientRequestError``)."""
    details = error.get("details")
    retry_after = as_non_negative_integer(error.get("retryAfterMs"))
    code = error.get("code")
    return GatewayRequestError(
        format_connect_error_message(error.get("message"), details),
        code if isinstance(code, str) and code else "UNAVAILABLE",
        details if isinstance(details, dict) else None,
        error.get("retryable") is True,
        retry_after,
    )
