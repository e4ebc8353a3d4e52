"""Which servers a projection starts from, and session tool denials (spec runtime-projection §1.1, §3.1, §4)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from openclaw_mcp.jscompat.text import utf16_key

__all__ = [
    "code_unit_sorted",
    "enabled_servers",
    "exact_denials",
    "merge_exclude",
    "normalize_denials",
    "without_tool_filter",
]


def code_unit_sorted(values: Iterable[str]) -> list[str]:
    """JavaScript's default ``Array.prototype.sort`` order (UTF-16 code units), duplicates removed."""
    return sorted(dict.fromkeys(values), key=utf16_key)


def _override(tool_overrides: Mapping[str, Any] | None, name: str) -> object:
    servers = (tool_overrides or {}).get("mcpServers")
    return servers.get(name) if isinstance(servers, dict) else None


def enabled_servers(servers: Mapping[str, Any], tool_overrides: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Object-valued entries that are enabled: a session override ``False`` removes one, ``True`` re-enables a
    configured ``enabled: false``."""
    kept: dict[str, dict[str, Any]] = {}
    for name, server in servers.items():
        if not isinstance(server, dict):
            continue
        override = _override(tool_overrides, name)
        if override is False or (server.get("enabled") is False and override is not True):
            continue
        kept[name] = dict(server)
    return kept


def exact_denials(tool_overrides: Mapping[str, Any] | None, name: str) -> list[str]:
    """The session's exact tool denials of one server (``toolOverrides.mcpToolsDeny[name]``, strings only)."""
    deny = (tool_overrides or {}).get("mcpToolsDeny")
    entries = deny.get(name) if isinstance(deny, dict) else None
    return [entry for entry in entries if isinstance(entry, str)] if isinstance(entries, list) else []


def normalize_denials(deny: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """Per server unique and sorted, servers sorted, empty lists dropped."""
    out: dict[str, list[str]] = {}
    for name in code_unit_sorted(deny or {}):
        entries = (deny or {})[name]
        tools = code_unit_sorted(e for e in entries if isinstance(e, str) and e) if isinstance(entries, list) else []
        if tools:
            out[name] = tools
    return out


def merge_exclude(server: Mapping[str, Any], denied: Iterable[str]) -> dict[str, Any]:
    """The server with ``denied`` merged into ``toolFilter.exclude`` (union, sorted); unchanged when empty."""
    denied = list(denied)
    if not denied:
        return dict(server)
    tool_filter = server.get("toolFilter")
    tool_filter = dict(tool_filter) if isinstance(tool_filter, dict) else {}
    existing = tool_filter.get("exclude")
    current = [e for e in existing if isinstance(e, str)] if isinstance(existing, list) else []
    tool_filter["exclude"] = code_unit_sorted([*current, *denied])
    return {**server, "toolFilter": tool_filter}


def without_tool_filter(server: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in server.items() if key != "toolFilter"}
