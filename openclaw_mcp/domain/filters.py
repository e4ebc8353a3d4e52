"""Per-server MCP tool filters, tool-policy server exclusion and session denial (spec client-runtime §6).

upstream: ``src/agents/mcp-tool-filter.ts`` (``normalizeMcpToolFilter``, ``isMcpToolAllowed``),
``src/agents/tool-policy-match.ts`` (``createMcpServerToolDenyMatcher``) and the classification of
``agent-bundle-mcp-runtime.ts``.

The filter sees the trimmed raw MCP tool name (never the agent tool name) and, for the utility tools, the
operation names ``resources_list`` … ``prompts_get`` (§6.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.domain.tool_policy import server_denied_by_tool_policy  # §6.5 lives with the tool policy
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "ToolFilter",
    "is_tool_allowed",
    "matches",
    "normalize_filter",
    "server_denied_by_tool_policy",
    "session_deny_set",
]


@dataclass(frozen=True, slots=True)
class ToolFilter:
    """A normalised tool filter (§6.1). An empty tuple means the list is absent."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        """``{include?: [...], exclude?: [...]}`` with only the non-empty lists."""
        out: dict[str, list[str]] = {}
        if self.include:
            out["include"] = list(self.include)
        if self.exclude:
            out["exclude"] = list(self.exclude)
        return out


def _string_entries(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(entry for entry in value if isinstance(entry, str))


def normalize_filter(raw: object) -> ToolFilter | None:
    """The runtime filter of a raw ``toolFilter`` value (§6.1); ``None`` when nothing constrains.

    Entries are kept as given (not trimmed, empty strings kept); non-string entries are dropped.
    """
    if not isinstance(raw, dict):
        return None
    include = _string_entries(raw.get("include"))
    exclude = _string_entries(raw.get("exclude"))
    if not include and not exclude:
        return None
    return ToolFilter(include=include, exclude=exclude)


def matches(pattern: str, name: str) -> bool:
    """The filter glob (§6.2): exact text plus ``*`` (any run); the pattern is trimmed, empty never matches.

    Prefix and suffix may not overlap (``ab*ba`` does not match ``aba``). No ``?``, classes or escapes.
    """
    trimmed = js_trim(pattern)
    if not trimmed:
        return False
    if "*" not in trimmed:
        return trimmed == name
    parts = trimmed.split("*")
    first, last = parts[0], parts[-1]
    if first and not name.startswith(first):
        return False
    cursor = len(first)
    end = len(name) - len(last) if last else len(name)
    if last and (not name.endswith(last) or end < cursor):
        return False
    for part in parts[1:-1]:
        if not part:
            continue
        index = name.find(part, cursor)
        if index == -1 or index + len(part) > end:
            return False
        cursor = index + len(part)
    return True


def is_tool_allowed(tool_filter: ToolFilter | None, name: str) -> bool:
    """Include first (an absent/empty include list allows all), then exclude; exclude always wins (§6.3)."""
    if tool_filter is None:
        return True
    included = not tool_filter.include or any(matches(p, name) for p in tool_filter.include)
    return included and not any(matches(p, name) for p in tool_filter.exclude)


# ---------------------------------------------------------------------------------------------------
# §6.6 session denial
# ---------------------------------------------------------------------------------------------------


def session_deny_set(deny_map: object, server_name: str) -> frozenset[str]:
    """The session deny set of one server (``toolOverrides.mcpToolsDeny``, §6.6).

    Only the map's own entry for the exact server name counts (a Python ``dict`` has no inherited keys, so
    a server named ``constructor`` is never affected by a map for ``docs``). Entries are exact names; the
    non-string entries of the list are ignored.
    """
    if not isinstance(deny_map, Mapping) or server_name not in deny_map:
        return frozenset()
    names: Any = deny_map[server_name]
    if not isinstance(names, list | tuple | set | frozenset):
        return frozenset()
    return frozenset(name for name in names if isinstance(name, str))
