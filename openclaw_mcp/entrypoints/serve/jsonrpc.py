"""JSON-RPC 2.0 messages on the MCP stdio transport, as the reference's SDK (1.30.0) reads and writes them
(spec serve-bridge §4.2).

* Input: one message per ``\\n``-terminated line (a trailing ``\\r`` is dropped), ``JSON.parse`` semantics
  (no ``NaN``/``Infinity`` literals; integers beyond 2^53 become floats, of any length — beyond the double
  range an infinity; any nesting depth). A line that does not parse, or does not match the SDK's strict
  request / notification / response shapes (an infinite or nested id among them), is ignored.
* Output: ``JSON.stringify`` bytes; results as ``{"result", "jsonrpc", "id"}``, errors as
  ``{"jsonrpc", "id", "error"}`` and notifications as ``{"method", "params", "jsonrpc"}`` (the SDK's key
  orders).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, TypeGuard

from openclaw_mcp.jscompat.jsjson import js_dumps
from openclaw_mcp.jscompat.jsonparse import parse_json
from openclaw_mcp.jscompat.numbers import is_safe_integer

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "METHOD_NOT_FOUND",
    "Notification",
    "Request",
    "RequestId",
    "dumps",
    "encode",
    "error_response",
    "id_key",
    "is_request_id",
    "notification_message",
    "parse_json",
    "parse_message",
    "result_response",
]

METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603

RequestId = str | int


def is_request_id(value: object) -> TypeGuard[str | int | float]:
    """``string | int`` (a safe integer; ``1.0`` counts as ``1``)."""
    if isinstance(value, str):
        return True
    return is_safe_integer(value)


def id_key(value: RequestId | float) -> tuple[str, str | int]:
    """A dictionary key for a request id: ``1`` and ``1.0`` are the same id, ``"1"`` is another."""
    if isinstance(value, str):
        return ("s", value)
    return ("n", int(value))


def _valid_meta(params: dict[str, Any]) -> bool:
    if "_meta" not in params:
        return True
    meta = params["_meta"]
    if not isinstance(meta, dict):
        return False
    return "progressToken" not in meta or is_request_id(meta["progressToken"])


@dataclass(frozen=True, slots=True)
class Request:
    id: RequestId
    method: str
    params: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Notification:
    method: str
    params: dict[str, Any] | None


def parse_message(line: str, *, check_meta: bool = True) -> Request | Notification | None:
    """The request or notification on one input line; ``None`` for anything else (ignored). Without
    ``check_meta`` (a 2026-07-28 connection) ``params._meta`` is left to the era ladder, which answers a malformed
    one (protocol-eras §4.2) instead of ignoring the line as the legacy SDK does."""
    try:
        message = parse_json(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    method = message.get("method")
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return None
    if "params" in message and params is None:
        return None
    if check_meta and params is not None and not _valid_meta(params):
        return None
    keys = set(message)
    if "id" in message:
        if not isinstance(method, str) or not is_request_id(message["id"]):
            return None
        if keys - {"jsonrpc", "id", "method", "params"}:
            return None
        raw_id = message["id"]
        request_id: RequestId = raw_id if isinstance(raw_id, str) else int(raw_id)
        return Request(request_id, method, params)
    if not isinstance(method, str) or keys - {"jsonrpc", "method", "params"}:
        return None
    return Notification(method, params)


def result_response(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"result": result, "jsonrpc": "2.0", "id": request_id}


def error_response(request_id: RequestId, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def notification_message(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"method": method, "params": params, "jsonrpc": "2.0"}


def dumps(value: Any) -> str:
    """``JSON.stringify(value)`` (compact)."""
    return js_dumps(value, None)


def encode(message: dict[str, Any]) -> bytes:
    """One output line: ``JSON.stringify(message) + "\\n"`` as UTF-8."""
    return (dumps(message) + "\n").encode("utf-8")
