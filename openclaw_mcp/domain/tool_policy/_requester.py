"""The requester policies of a session key: the channel-group policy and the subagent policy (spec
openclaw-tools.md §3; upstream ``src/agents/requester-tool-policy.ts`` ``resolveRequesterToolPolicies`` with
``senderPolicyMode: "never"``, ``agent-tools.policy.ts`` ``resolveGroupToolPolicy``,
``resolveSubagentToolPolicyForSession``, ``config/group-policy.ts`` ``resolveChannelGroupToolsPolicy``).

What a stdio tools server can know without a Gateway session store: the group comes from the key
(``agent:<id>:<channel>:group|channel:<groupId>[:topic:<t>][:sender:<s>][:thread:<id>]``), the subagent role
from ``:subagent:`` in the key. Inherited policies and subagent envelopes stored with ACP/dashboard sessions
live in the Gateway's session store, which this server never opens (decision: not applied). No channel plugin
is loaded, so a plugin's own group resolver never applies (as in the reference's tools server).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from openclaw_mcp.domain.tool_policy._names import unique
from openclaw_mcp.domain.tool_policy._pipeline import policy_matcher
from openclaw_mcp.domain.tool_policy._policy import ToolPolicy, get, pick_policy, string_list
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "SUBAGENT_TOOL_DENY_ALWAYS",
    "SUBAGENT_TOOL_DENY_LEAF",
    "allowed_by_policies",
    "group_tool_policy",
    "requester_tool_policies",
    "subagent_tool_policy",
]

SUBAGENT_TOOL_DENY_ALWAYS: Final = (
    "gateway",
    "agents_list",
    "openclaw",
    "session_status",
    "progress_card",
    "automations",
    "message",
    "sessions_send",
    "conversations_list",
    "conversations_send",
    "conversations_turn",
)
"""Denied to every subagent, whatever its depth."""
SUBAGENT_TOOL_DENY_LEAF: Final = ("subagents", "sessions_list", "sessions_history", "sessions_search", "sessions_spawn")
"""Also denied to leaf subagents (they cannot spawn children)."""

_THREAD_SUFFIX: Final = re.compile(r"^(.*):thread:[^:]+$", re.IGNORECASE)
_TOPIC_SENDER: Final = re.compile(r"^(.+):topic:([^:]+):sender:([^:]+)$", re.IGNORECASE)
_TOPIC: Final = re.compile(r"^(.+):topic:([^:]+)$", re.IGNORECASE)
_SENDER: Final = re.compile(r"^(.+):sender:([^:]+)$", re.IGNORECASE)


def _group_id_candidates(group_id: str) -> list[str]:
    """The scoped ids a group id is looked up under, most specific first (topic and sender scopes)."""
    if match := _TOPIC_SENDER.match(group_id):
        return unique([group_id, f"{match[1]}:topic:{match[2]}", match[1]])
    if match := _TOPIC.match(group_id):
        return unique([f"{match[1]}:topic:{match[2]}", match[1]])
    if match := _SENDER.match(group_id):
        return unique([group_id, match[1]])
    return [group_id]


def _group_context(session_key: str) -> tuple[str, list[str]] | None:
    """``(channel, group id candidates)`` named by a session key, or ``None`` when it names no group."""
    raw = js_trim(session_key)
    if match := _THREAD_SUFFIX.match(raw):
        raw = match[1]
    parts = [part for part in raw.split(":") if part]
    body = parts[2:] if parts and parts[0] == "agent" else parts
    if body and body[0] == "subagent":
        body = body[1:]
    if len(body) < 3 or body[1] not in ("group", "channel"):
        return None
    group_id = js_trim(":".join(body[2:]))
    if not group_id:
        return None
    return body[0].lower(), _group_id_candidates(group_id)


def group_tool_policy(config: Mapping[str, Any], session_key: str) -> ToolPolicy | None:
    """``channels.<channel>.groups.<id>.tools`` of the key's group (the first candidate configured), else the
    ``*`` group's ``tools``; ``None`` when the key names no group or nothing is configured."""
    context = _group_context(session_key)
    if context is None:
        return None
    channel, candidates = context
    groups = get(get(config.get("channels"), channel), "groups")
    if not isinstance(groups, Mapping):
        return None
    selected = next((groups[c] for c in candidates if isinstance(groups.get(c), Mapping) and groups[c]), None)
    tools = get(selected, "tools") or get(groups.get("*"), "tools")
    return pick_policy(tools)


def is_subagent_session(session_key: str) -> bool:
    """A subagent session key (``…:subagent:…``, or one that starts ``subagent:``)."""
    key = js_trim(session_key).lower()
    return key.startswith("subagent:") or ":subagent:" in key


def subagent_tool_policy(config: Mapping[str, Any], session_key: str) -> ToolPolicy | None:
    """For a subagent key: allow = ``tools.subagents.tools.allow`` (+ ``alsoAllow`` when both are lists), deny =
    the always-denied tools + ``tools.subagents.tools.deny``; ``None`` for other keys."""
    if not is_subagent_session(session_key):
        return None
    configured = get(get(config.get("tools"), "subagents"), "tools")
    allow = string_list(get(configured, "allow"))
    also_allow = string_list(get(configured, "alsoAllow"))
    if allow is not None and also_allow is not None:
        allow = unique([*allow, *also_allow])
    deny = [*SUBAGENT_TOOL_DENY_ALWAYS, *(string_list(get(configured, "deny")) or [])]
    return ToolPolicy(allow=None if allow is None else tuple(allow), deny=tuple(deny))


def requester_tool_policies(config: Mapping[str, Any], session_key: str) -> tuple[ToolPolicy, ...]:
    """The policies a tool must all pass for ``session_key`` (group, subagent), absent ones left out."""
    policies = (group_tool_policy(config, session_key), subagent_tool_policy(config, session_key))
    return tuple(policy for policy in policies if policy is not None)


def allowed_by_policies(name: str, policies: Sequence[ToolPolicy]) -> bool:
    """``name`` passes every policy (§7.4 matching: deny wins, aliases and groups expanded)."""
    return all(policy_matcher(policy)(name) for policy in policies)
