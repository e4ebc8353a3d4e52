"""Canonical spelling of one MCP server definition (spec cli-registry §2.4).

``set``, ``add`` and ``configure`` rewrite a few operator-friendly aliases into the keys the config schema
accepts before the new config is validated (upstream: ``canonicalizeConfiguredMcpServer``):

* a CLI-native ``type`` alias (``http``, ``streamable-http``, ``sse``, ``stdio``; trimmed, case-insensitive)
  fills ``transport`` when that is not already a string (``stdio`` maps to nothing) and is removed; any other
  ``type`` stays;
* ``workingDirectory`` → ``cwd``; ``supports_parallel_tool_calls`` → ``supportsParallelToolCalls``;
  ``ssl_verify`` → ``sslVerify``; ``client_cert`` / ``client_key`` → ``clientCert`` / ``clientKey``: copied
  only when the alias has the right type and the canonical key does not already have it; the alias is always
  removed;
* ``codex.default_tools_approval_mode`` → ``codex.defaultToolsApprovalMode`` likewise, on a copy of ``codex``.

Retired keys that have no canonical twin (``timeout``, ``connectTimeout``, ``connect_timeout``,
``disabled``) are left for validation to reject.

Key positions follow JavaScript object semantics: a key that already exists keeps its position when its
value changes, a new key is appended, a deleted key disappears.
"""

from __future__ import annotations

from typing import Any

from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "CLI_TYPE_ALIASES",
    "canonicalize_server",
    "is_known_type_alias",
    "transport_for_type_alias",
]

# CLI-native ``type`` spelling (trimmed, lower-cased) → OpenClaw transport name.
CLI_TYPE_ALIASES: dict[str, str] = {
    "http": "streamable-http",
    "streamable-http": "streamable-http",
    "sse": "sse",
    "stdio": "stdio",
}


def _alias_key(value: object) -> str:
    """``normalizeLowercaseStringOrEmpty``: trimmed and lower-cased text, ``""`` for anything else."""
    return js_trim(value).lower() if isinstance(value, str) else ""


def is_known_type_alias(value: object) -> bool:
    """True when ``value`` is one of the four CLI-native ``type`` aliases (trimmed, case-insensitive)."""
    return _alias_key(value) in CLI_TYPE_ALIASES


def transport_for_type_alias(value: object) -> str | None:
    """The HTTP transport a ``type`` alias stands for (``sse`` or ``streamable-http``); ``None`` otherwise."""
    mapped = CLI_TYPE_ALIASES.get(_alias_key(value))
    return mapped if mapped in ("sse", "streamable-http") else None


def canonicalize_server(server: dict[str, Any]) -> dict[str, Any]:
    """A new server dict with the §2.4 aliases rewritten; ``server`` itself is not modified.

    The copy is shallow (nested values are shared) except for ``codex``, which is copied when it is an
    object.
    """
    out = dict(server)

    alias_transport = transport_for_type_alias(out.get("type"))
    if not isinstance(out.get("transport"), str) and alias_transport is not None:
        out["transport"] = alias_transport
    if is_known_type_alias(out.get("type")):
        del out["type"]

    if not isinstance(out.get("cwd"), str) and isinstance(out.get("workingDirectory"), str):
        out["cwd"] = out["workingDirectory"]
    out.pop("workingDirectory", None)

    _move_alias(out, "supports_parallel_tool_calls", "supportsParallelToolCalls", bool)
    _move_alias(out, "ssl_verify", "sslVerify", bool)
    _move_alias(out, "client_cert", "clientCert", str)
    _move_alias(out, "client_key", "clientKey", str)

    codex = out.get("codex")
    if isinstance(codex, dict):
        codex_copy = dict(codex)
        if not isinstance(codex_copy.get("defaultToolsApprovalMode"), str) and isinstance(
            codex_copy.get("default_tools_approval_mode"), str
        ):
            codex_copy["defaultToolsApprovalMode"] = codex_copy["default_tools_approval_mode"]
        codex_copy.pop("default_tools_approval_mode", None)
        out["codex"] = codex_copy
    return out


def _move_alias(out: dict[str, Any], alias: str, canonical: str, kind: type[bool] | type[str]) -> None:
    if _has_type(out.get(alias), kind) and not _has_type(out.get(canonical), kind):
        out[canonical] = out[alias]
    out.pop(alias, None)


def _has_type(value: object, kind: type[bool] | type[str]) -> bool:
    # ``isinstance(True, int)`` is irrelevant here: only ``bool`` and ``str`` are asked for.
    return isinstance(value, kind)
