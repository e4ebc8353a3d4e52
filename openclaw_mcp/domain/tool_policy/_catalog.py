"""The 2026.9.6 tool-policy data: core tool ids, groups, profiles, aliases, renames and the sandbox defaults
(spec plugin-tools.md §7.1, §7.2, §7.7; upstream ``src/agents/tool-catalog.ts``, ``tool-policy-shared.ts``,
``tool-policy.ts``, ``sandbox/constants.ts``).

Data only. ``tests/unit/test_tool_policy_reference.py`` compares it with the installed reference's tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = [
    "BUNDLE_MCP_PLUGIN_ID",
    "CHANNEL_IDS",
    "CORE_TOOL_IDS",
    "DEFAULT_PLUGIN_TOOLS_ENTRY",
    "PLUGINS_GROUP",
    "SANDBOX_DEFAULT_ALLOW",
    "SANDBOX_DEFAULT_DENY",
    "SHIPPED_POLICY_FAMILIES",
    "SHIPPED_POLICY_RENAMES",
    "TOOL_GROUPS",
    "TOOL_NAME_ALIASES",
    "TOOL_PROFILES",
]

BUNDLE_MCP_PLUGIN_ID: Final = "bundle-mcp"
"""The plugin id every MCP tool has for policy (``bundle-mcp`` entries, ``group:plugins``)."""

PLUGINS_GROUP: Final = "group:plugins"
"""Not a static group: every plugin-owned tool present (MCP tools included)."""

DEFAULT_PLUGIN_TOOLS_ENTRY: Final = "__openclaw_default_plugin_tools__"
"""The synthetic allow entry an implicit allow-all (``alsoAllow`` only) contributes to plugin selection."""

TOOL_NAME_ALIASES: Final[Mapping[str, str]] = MappingProxyType(
    {"bash": "exec", "apply-patch": "apply_patch", "cron": "automations"}
)

SHIPPED_POLICY_RENAMES: Final[Mapping[str, str]] = MappingProxyType({"update_plan": "progress_card"})
"""Old names in policy lists that now mean another core tool."""

SHIPPED_POLICY_FAMILIES: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType({"canvas": ("show_widget",)})
"""Policy names that also imply other core tools (``canvas`` → ``show_widget``)."""

# (id, section, profiles, in group:openclaw) in the catalog's order.
_CORE_TOOLS: Final[tuple[tuple[str, str, tuple[str, ...], bool], ...]] = (
    ("ls", "fs", ("coding",), False),
    ("read", "fs", ("coding",), False),
    ("write", "fs", ("coding",), False),
    ("edit", "fs", ("coding",), False),
    ("apply_patch", "fs", ("coding",), False),
    ("exec", "runtime", ("coding",), False),
    ("process", "runtime", ("coding",), False),
    ("code_execution", "runtime", ("coding",), True),
    ("secrets", "runtime", ("coding", "messaging"), True),
    ("web_search", "web", ("coding",), True),
    ("web_fetch", "web", ("coding",), True),
    ("x_search", "web", ("coding",), True),
    ("memory_search", "memory", ("coding",), True),
    ("memory_get", "memory", ("coding",), True),
    ("sessions", "sessions", ("coding", "messaging"), True),
    ("sessions_list", "sessions", ("coding", "messaging"), True),
    ("sessions_history", "sessions", ("coding", "messaging"), True),
    ("sessions_search", "sessions", ("coding", "messaging"), True),
    ("conversations_list", "sessions", ("coding", "messaging"), True),
    ("conversations_send", "sessions", ("coding", "messaging"), True),
    ("conversations_turn", "sessions", ("coding", "messaging"), True),
    ("sessions_send", "sessions", ("coding", "messaging"), True),
    ("sessions_spawn", "sessions", ("coding", "messaging"), True),
    ("github_identity_status", "sessions", ("coding",), True),
    ("github_publish", "sessions", ("coding",), True),
    ("agents_wait", "sessions", ("coding",), True),
    ("sessions_yield", "sessions", ("coding", "messaging"), True),
    ("subagents", "sessions", ("coding", "messaging"), True),
    ("session_status", "sessions", ("minimal", "coding", "messaging"), True),
    ("suggest_task", "sessions", ("coding",), True),
    ("dismiss_task", "sessions", ("coding",), True),
    ("browser", "ui", (), True),
    ("screen", "ui", ("coding",), True),
    ("theme", "ui", ("coding", "messaging"), True),
    ("dashboard", "ui", ("coding",), True),
    ("terminal", "ui", ("coding",), True),
    ("portal", "ui", ("coding",), True),
    ("canvas", "ui", (), False),
    ("show_widget", "ui", (), True),
    ("message", "messaging", ("messaging",), True),
    ("heartbeat_respond", "automation", (), True),
    ("automations", "automation", ("coding",), True),
    ("gateway", "automation", ("minimal", "coding", "messaging"), True),
    ("plugins", "automation", ("coding",), True),
    ("openclaw", "automation", (), True),
    ("nodes", "nodes", (), True),
    ("computer", "nodes", (), True),
    ("mobile_ui", "nodes", (), True),
    ("agents_list", "agents", (), True),
    ("get_goal", "agents", ("coding",), True),
    ("create_goal", "agents", ("coding",), True),
    ("update_goal", "agents", ("coding",), True),
    ("progress_card", "agents", ("coding",), True),
    ("ask_user", "agents", ("coding", "messaging"), True),
    ("skill_workshop", "agents", ("coding",), True),
    ("view_image", "media", ("coding",), True),
    ("image_generate", "media", ("coding",), True),
    ("music_generate", "media", ("coding",), True),
    ("video_generate", "media", ("coding",), True),
    ("tts", "media", (), True),
    ("pdf", "media", (), True),
)
_SECTIONS: Final = (
    "fs",
    "runtime",
    "web",
    "memory",
    "sessions",
    "ui",
    "messaging",
    "automation",
    "nodes",
    "agents",
    "media",
)

CORE_TOOL_IDS: Final[frozenset[str]] = frozenset(tool[0] for tool in _CORE_TOOLS)
"""The shipped core tool ids (``isKnownCoreToolId``)."""


def _groups() -> dict[str, tuple[str, ...]]:
    groups = {"group:openclaw": tuple(tool_id for tool_id, _, _, openclaw in _CORE_TOOLS if openclaw)}
    for section in _SECTIONS:
        groups[f"group:{section}"] = tuple(tool_id for tool_id, sect, _, _ in _CORE_TOOLS if sect == section)
    return groups


def _profile(name: str) -> tuple[str, ...]:
    return tuple(tool_id for tool_id, _, profiles, _ in _CORE_TOOLS if name in profiles)


TOOL_GROUPS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(_groups())
"""The static core groups (``group:openclaw`` first, then one per catalog section), members in catalog order."""

TOOL_PROFILES: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "minimal": _profile("minimal"),
        "coding": (*_profile("coding"), BUNDLE_MCP_PLUGIN_ID),
        "messaging": (*_profile("messaging"), BUNDLE_MCP_PLUGIN_ID),
        "full": ("*",),
    }
)
"""The ``allow`` list of each built-in ``tools.profile`` (no profile has a ``deny`` list)."""

CHANNEL_IDS: Final[tuple[str, ...]] = (
    "feishu",
    "googlechat",
    "nostr",
    "buzz",
    "msteams",
    "mattermost",
    "nextcloud-talk",
    "matrix",
    "raft",
    "a2a",
    "line",
    "zalo",
    "clickclack",
    "zalouser",
    "sms",
    "synology-chat",
    "tlon",
    "discord",
    "imessage",
    "irc",
    "reef",
    "signal",
    "slack",
    "telegram",
    "twitch",
    "whatsapp",
)
"""The bundled chat channel ids in the reference's channel order (part of the sandbox default deny list)."""

SANDBOX_DEFAULT_ALLOW: Final[tuple[str, ...]] = (
    "exec",
    "process",
    "read",
    "ls",
    "write",
    "edit",
    "apply_patch",
    "view_image",
    "sessions_list",
    "sessions_history",
    "sessions_search",
    "sessions_send",
    "sessions_spawn",
    "sessions_yield",
    "subagents",
    "session_status",
)

SANDBOX_DEFAULT_DENY: Final[tuple[str, ...]] = (
    "browser",
    "canvas",
    "computer",
    "mobile_ui",
    "nodes",
    "automations",
    "gateway",
    *CHANNEL_IDS,
)
