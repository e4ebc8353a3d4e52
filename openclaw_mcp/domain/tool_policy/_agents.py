"""Whose tools section applies: the agent of a session and its config entry (spec plugin-tools.md §7.5;
upstream ``src/agents/agent-tools.policy.ts`` ``resolveEffectiveToolPolicy`` (agent part),
``agent-scope-config.ts`` ``listAgentEntries`` / ``resolveAgentConfig``, ``agent-scope.ts``
``resolveSessionAgentIds``, ``packages/normalization-core/src/agent-id.ts``, ``session-key.ts``).

The reference also consults the persisted session store and throws when an explicit agent id disagrees with
the session key or several agents exist without an owner; these pure functions have no store, let the
session key's agent win, and resolve no agent (no agent layer) where the reference would throw.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "DEFAULT_AGENT_ID",
    "agent_entry",
    "agent_tools_section",
    "has_agent_roster",
    "list_agent_entries",
    "normalize_agent_id",
    "parse_session_key_agent",
    "resolve_policy_agent_id",
]

DEFAULT_AGENT_ID: Final = "main"
_VALID_ID: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.IGNORECASE | re.ASCII)
_INVALID_CHARS: Final = re.compile(r"[^a-z0-9_-]+")


def normalize_agent_id(value: object) -> str:
    """``normalizeAgentId``: a canonical id lowercased; otherwise runs of characters outside ``[a-z0-9_-]``
    become ``-``, edge dashes go and the result is cut to 64 characters; nothing left → ``main``."""
    trimmed = js_trim(value) if isinstance(value, str) else ""
    lowered = trimmed.lower()
    if _VALID_ID.fullmatch(trimmed):
        return lowered
    return _INVALID_CHARS.sub("-", lowered).strip("-")[:64] or DEFAULT_AGENT_ID


def parse_session_key_agent(session_key: object) -> str | None:
    """The (case-folded, trimmed) agent of a canonical agent session key ``agent:<agentId>:<rest>``."""
    if not isinstance(session_key, str):
        return None
    key = js_trim(session_key).lower()
    if not key.startswith("agent:"):
        return None
    end = key.find(":", 6)
    if end == -1:
        return None
    agent, rest = js_trim(key[6:end]), key[end + 1 :]
    return agent if agent and rest and not rest.startswith(":") else None


def _roster(config: Mapping[str, Any]) -> tuple[str, Any] | None:
    agents = config.get("agents")
    if not isinstance(agents, Mapping):
        return None
    for kind in ("entries", "list"):
        if kind in agents:  # a JSON ``null`` counts: the reference only skips ``undefined``
            return (kind, agents[kind])
    return None


def has_agent_roster(config: Mapping[str, Any]) -> bool:
    """Whether the config owns an agent roster (``agents.entries``, or the legacy ``agents.list``), even empty."""
    return _roster(config) is not None


def list_agent_entries(config: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The configured agent entries (``agents.entries.<id>`` with ``id`` = the key, or ``agents.list[]``)."""
    roster = _roster(config)
    if roster is None:
        return []
    kind, value = roster
    if kind == "entries":
        if not isinstance(value, Mapping):
            return []
        return [{**entry, "id": key} for key, entry in value.items() if isinstance(entry, Mapping)]
    if not isinstance(value, list):
        return []
    return [entry for entry in value if isinstance(entry, Mapping)]


def agent_entry(config: Mapping[str, Any], agent_id: str) -> Mapping[str, Any] | None:
    """The entry of ``agent_id`` (ids compared normalised); the implicit ``main`` agent exists when there is
    no roster at all (an entry without settings)."""
    wanted = normalize_agent_id(agent_id)
    for entry in list_agent_entries(config):
        if normalize_agent_id(entry.get("id")) == wanted:
            return entry
    if not has_agent_roster(config) and wanted == DEFAULT_AGENT_ID:
        return {"id": wanted}
    return None


def agent_tools_section(config: Mapping[str, Any], agent_id: str | None) -> Any:
    """The agent's ``tools`` section; ``agents.defaults.tools`` when there is no roster and the agent has none."""
    entry = agent_entry(config, agent_id) if agent_id else None
    tools = entry.get("tools") if entry is not None else None
    if tools is not None:
        return tools
    if has_agent_roster(config):
        return None
    agents = config.get("agents")
    defaults = agents.get("defaults") if isinstance(agents, Mapping) else None
    return defaults.get("tools") if isinstance(defaults, Mapping) else None


def _default_agent_id(config: Mapping[str, Any]) -> str | None:
    entries = list_agent_entries(config)
    agents = config.get("agents")
    explicit_ownership = isinstance(agents, Mapping) and agents.get("ownership") == "explicit"
    if not explicit_ownership:
        marked = [entry for entry in entries if entry.get("default") is True]
        if len(marked) == 1:
            return normalize_agent_id(marked[0].get("id"))
    if not entries:
        return None if has_agent_roster(config) else DEFAULT_AGENT_ID
    return normalize_agent_id(entries[0].get("id")) if len(entries) == 1 else None


def resolve_policy_agent_id(config: Mapping[str, Any], agent_id: str | None, session_key: str | None) -> str | None:
    """The agent whose policy applies: the session key's agent, else the explicit id, else the configured
    default (a single ``default: true`` entry, the only entry, or ``main`` without a roster); ``None`` when
    undecidable. With a roster that lists no agent: the explicit id, else the key's agent."""
    explicit = normalize_agent_id(agent_id) if isinstance(agent_id, str) and js_trim(agent_id) else None
    key_agent = parse_session_key_agent(session_key)
    if has_agent_roster(config) and not list_agent_entries(config):
        return explicit or key_agent
    if key_agent:
        return normalize_agent_id(key_agent)
    return explicit or _default_agent_id(config)
