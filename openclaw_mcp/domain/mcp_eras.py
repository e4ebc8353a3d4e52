"""The two MCP protocol eras in one place: the legacy ``initialize`` handshake and the stateless 2026-07-28
revision (spec protocol-eras.md §1–§4). Shared by the client adapter (``adapters/mcp_sdk``, ``adapters/http``)
and the three stdio servers (``entrypoints/rpc_session.py``: ``openclaw mcp serve``, ``openclaw-plugin-tools``,
``openclaw-tools``).

Pure facts and rules, no SDK import (D-PE16: the servers answer before importing pydantic); the values restate
the SDK's (``mcp_types.version``, ``mcp_types._types``, ``mcp_types.jsonrpc``, ``mcp.shared.inbound``) and
``tests/unit/test_mcp_eras.py`` asserts them equal.

* **Client** (§3): :func:`is_modern_refusal` — does a refused ``initialize`` identify a 2026 server (T1–T3)?
  :func:`request_envelope` / :func:`stamp_params` — what every 2026 request carries (the HTTP headers'
  values come from the SDK's ``mcp.shared.inbound`` in the adapter); :func:`catalog_fresh_ms` — how long a
  2026 tool catalog stays fresh (D-PE6).
* **Server** (§4): :func:`first_request_era` — the era lock; :func:`modern_request_error` — the 2026 request
  ladder; :func:`modern_result` / :func:`discover_result` — the 2026 result shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

__all__ = [
    "CACHEABLE_METHODS",
    "CLIENT_CAPABILITIES_KEY",
    "CLIENT_INFO_KEY",
    "HANDSHAKE_VERSIONS",
    "HEADER_MISMATCH",
    "INVALID_PARAMS",
    "LEGACY_LATEST_VERSION",
    "LEGACY_VERSIONS",
    "LOG_LEVEL_KEY",
    "MCP_METHOD_HEADER",
    "MCP_NAME_HEADER",
    "MCP_PROTOCOL_VERSION_HEADER",
    "METHOD_NOT_FOUND",
    "MIN_CATALOG_FRESH_MS",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "MODERN_VERSION",
    "MODERN_VERSIONS",
    "NAME_BEARING_METHODS",
    "PROTOCOL_VERSION_KEY",
    "RESULT_TYPE_COMPLETE",
    "RESULT_TYPE_INPUT_REQUIRED",
    "SERVER_INFO_KEY",
    "SUBSCRIPTION_ID_KEY",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "Era",
    "RpcError",
    "catalog_fresh_ms",
    "discover_result",
    "first_request_era",
    "has_modern_envelope",
    "is_modern_refusal",
    "modern_request_error",
    "modern_result",
    "request_envelope",
    "stamp_params",
    "supports_modern",
]

# --- versions ------------------------------------------------------------------------------------------------

HANDSHAKE_VERSIONS: Final[tuple[str, ...]] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Revisions reached through ``initialize`` (``mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS``)."""
LEGACY_LATEST_VERSION: Final = "2025-11-25"
LEGACY_VERSIONS: Final[tuple[str, ...]] = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07")
"""The handshake versions OpenClaw 2026.9.6 (TS SDK 1.30 ``SUPPORTED_PROTOCOL_VERSIONS``) accepts, newest first: our
servers answer one of them and our client accepts them (``2024-10-07`` included, a draft the Python SDK lacks)."""
MODERN_VERSION: Final = "2026-07-28"
MODERN_VERSIONS: Final[tuple[str, ...]] = (MODERN_VERSION,)
"""Revisions with the stateless per-request envelope (``mcp_types.version.MODERN_PROTOCOL_VERSIONS``)."""

Era = Literal["legacy", "2026-07-28"]
"""The era of a connection: decided once, by the handshake's outcome (client) or the first request (server)."""

# --- envelope and result keys (mcp_types._types) -------------------------------------------------------------

PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL_KEY: Final = "io.modelcontextprotocol/logLevel"
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID_KEY: Final = "io.modelcontextprotocol/subscriptionId"

RESULT_TYPE_COMPLETE: Final = "complete"
RESULT_TYPE_INPUT_REQUIRED: Final = "input_required"
CACHEABLE_METHODS: Final = frozenset(
    {"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"}
)
"""Methods whose complete 2026 results carry ``ttlMs`` and ``cacheScope`` (§2.3)."""

# --- HTTP headers (mcp.shared.inbound) -----------------------------------------------------------------------

MCP_PROTOCOL_VERSION_HEADER: Final = "mcp-protocol-version"
MCP_METHOD_HEADER: Final = "mcp-method"
MCP_NAME_HEADER: Final = "mcp-name"
NAME_BEARING_METHODS: Final[Mapping[str, str]] = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
"""Methods whose ``Mcp-Name`` header mirrors a body parameter."""

# --- error codes (mcp_types.jsonrpc) -------------------------------------------------------------------------

INVALID_PARAMS: Final = -32602
METHOD_NOT_FOUND: Final = -32601
HEADER_MISMATCH: Final = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022

_MODERN_ONLY_INITIALIZE: Final = (
    "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted"
)
_META_NOT_OBJECT: Final = (
    f"params._meta must be an object carrying the required {PROTOCOL_VERSION_KEY!r} and "
    f"{CLIENT_CAPABILITIES_KEY!r} envelope keys"
)


@dataclass(frozen=True, slots=True)
class RpcError:
    """A JSON-RPC error answer: ``code``, ``message`` and, when present, ``data``."""

    code: int
    message: str
    data: Any = None
    has_data: bool = False

    def to_json(self) -> dict[str, Any]:
        """The ``error`` member of the answer."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.has_data:
            error["data"] = self.data
        return error


# --- client (§3) -----------------------------------------------------------------------------------------------


def supports_modern(versions: object) -> bool:
    """Does a ``supportedVersions`` (or ``error.data.supported``) list name the 2026 revision?"""
    return isinstance(versions, list) and MODERN_VERSION in versions


def is_modern_refusal(error: object, *, http_status: int | None = None) -> bool:
    """T1–T3 (§3.1): does this error answer to ``initialize`` identify a server of the 2026 era? ``error``: the
    JSON-RPC ``error`` member; ``http_status``: the POST's status on streamable HTTP (``None`` on stdio).

    T1 ``-32022`` whose ``data.supported`` names 2026-07-28; T2 ``-32601`` (a server without ``initialize`` is not
    a legacy server); T3 ``-32020``/``-32021``, or ``-32602`` naming the envelope (on HTTP only with status 400).
    Anything else keeps today's failure (D-PE2)."""
    if not isinstance(error, Mapping):
        return False
    code, message = error.get("code"), error.get("message")
    if code == UNSUPPORTED_PROTOCOL_VERSION:
        data = error.get("data")
        return isinstance(data, Mapping) and supports_modern(data.get("supported"))
    if code == METHOD_NOT_FOUND:
        return True
    if http_status is not None and http_status != 400:
        return False
    if code in (HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY):
        return True
    return (
        code == INVALID_PARAMS
        and isinstance(message, str)
        and ("io.modelcontextprotocol/" in message or "_meta" in message)
    )


def request_envelope(client_info: Mapping[str, Any], client_capabilities: Mapping[str, Any]) -> dict[str, Any]:
    """The ``_meta`` keys every 2026 request carries (D-PE5: the legacy identity and capabilities, no log level)."""
    return {
        PROTOCOL_VERSION_KEY: MODERN_VERSION,
        CLIENT_INFO_KEY: dict(client_info),
        CLIENT_CAPABILITIES_KEY: dict(client_capabilities),
    }


def stamp_params(params: Mapping[str, Any] | None, envelope: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` (created when absent) whose ``_meta`` carries the envelope: existing ``_meta`` keys are kept,
    the envelope's overwrite (§3.2)."""
    stamped = dict(params or {})
    meta = stamped.get("_meta")
    stamped["_meta"] = {**(meta if isinstance(meta, Mapping) else {}), **envelope}
    return stamped


MIN_CATALOG_FRESH_MS: Final = 5000


def catalog_fresh_ms(ttls: Sequence[object]) -> int:
    """How long a 2026 tool catalog stays fresh (D-PE6): the smallest ``ttlMs`` of its pages (absent, negative or
    not an integer → 0), at least :data:`MIN_CATALOG_FRESH_MS`."""
    values = [ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl > 0 else 0 for ttl in ttls]
    return max(min(values, default=0), MIN_CATALOG_FRESH_MS)


# --- server (§4) -----------------------------------------------------------------------------------------------


def has_modern_envelope(params: object) -> bool:
    """Does ``params._meta`` carry the protocol-version key (the era signal, §2.1)?"""
    if not isinstance(params, Mapping):
        return False
    meta = params.get("_meta")
    return isinstance(meta, Mapping) and PROTOCOL_VERSION_KEY in meta


def first_request_era(method: str, params: object) -> Era:
    """The era a server process locks to on its first request (§4.1): ``initialize`` → legacy; another method
    with the envelope's version key → 2026-07-28; without it → legacy."""
    if method == "initialize":
        return "legacy"
    return MODERN_VERSION if has_modern_envelope(params) else "legacy"


def _unsupported_version(requested: str) -> RpcError:
    return RpcError(
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        {"supported": list(MODERN_VERSIONS), "requested": requested},
        has_data=True,
    )


def modern_request_error(method: str, params: object, served: frozenset[str] | set[str]) -> RpcError | None:
    """The 2026 request ladder (§4.2, first failing rung answers): ``initialize`` → -32022; the envelope
    (``_meta`` not an object or keys missing → -32602, version not a string → -32602, not served → -32022);
    a method not in ``served`` → -32601 with the method as data. ``None``: the request goes on to the method's
    own parameter checks."""
    if method == "initialize":
        requested = params.get("protocolVersion") if isinstance(params, Mapping) else None
        data: dict[str, Any] = {"supported": list(MODERN_VERSIONS)}
        if isinstance(requested, str):
            data["requested"] = requested
        return RpcError(UNSUPPORTED_PROTOCOL_VERSION, _MODERN_ONLY_INITIALIZE, data, has_data=True)
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    if not isinstance(meta, Mapping):
        return RpcError(INVALID_PARAMS, _META_NOT_OBJECT)
    missing = [key for key in (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY) if key not in meta]
    if missing:
        return RpcError(INVALID_PARAMS, f"params._meta is missing the required envelope key(s): {', '.join(missing)}")
    version = meta[PROTOCOL_VERSION_KEY]
    if not isinstance(version, str):
        return RpcError(INVALID_PARAMS, "the protocol-version envelope value must be a string")
    if version not in MODERN_VERSIONS:
        return _unsupported_version(version)
    if method not in served:
        return RpcError(METHOD_NOT_FOUND, "Method not found", method, has_data=True)
    return None


def modern_result(
    result: Mapping[str, Any], server_info: Mapping[str, Any], *, cacheable: bool = False
) -> dict[str, Any]:
    """A legacy result object in its 2026 shape (§4.3): ``resultType: "complete"`` first, the legacy members,
    ``ttlMs: 0`` and ``cacheScope: "private"`` for a cacheable method (D-PE13), and ``_meta`` with the server
    info stamped in unless the result already names it."""
    shaped: dict[str, Any] = {"resultType": RESULT_TYPE_COMPLETE, **result}
    if cacheable:
        shaped["ttlMs"] = 0
        shaped["cacheScope"] = "private"
    meta = result.get("_meta")
    if meta is None:
        shaped["_meta"] = {SERVER_INFO_KEY: dict(server_info)}
    elif isinstance(meta, Mapping):
        shaped["_meta"] = (
            dict(meta)
            if meta.get(SERVER_INFO_KEY) is not None
            else {
                **meta,
                SERVER_INFO_KEY: dict(server_info),
            }
        )
    return shaped


def discover_result(server_info: Mapping[str, Any], capabilities: Mapping[str, Any]) -> dict[str, Any]:
    """The ``server/discover`` result of our servers (§4.3, D-PE13)."""
    return modern_result(
        {"supportedVersions": list(MODERN_VERSIONS), "capabilities": dict(capabilities)}, server_info, cacheable=True
    )
