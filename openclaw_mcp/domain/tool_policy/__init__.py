"""Tool policy: which tools an agent session (or the plugin-tools server) may see (spec plugin-tools.md §3, §7;
tool-policy-and-lifecycle.md §2).

Pure functions of the OpenClaw config and a tool list: policy names and globs, the 2026.9.6 groups and
profiles, ``allow``/``alsoAllow``/``deny`` sections, the layered pipeline (deny wins, plugin entries expanded
against the tools present, unknown-entry warnings with the reference's texts), the session pipeline of an
agent (profile, global, agent, sandbox layers), the whole-server decisions for MCP tools and plugin selection.
"""

from __future__ import annotations

from openclaw_mcp.domain.tool_policy._agents import normalize_agent_id, parse_session_key_agent, resolve_policy_agent_id
from openclaw_mcp.domain.tool_policy._catalog import (
    BUNDLE_MCP_PLUGIN_ID,
    CORE_TOOL_IDS,
    DEFAULT_PLUGIN_TOOLS_ENTRY,
    PLUGINS_GROUP,
    SANDBOX_DEFAULT_ALLOW,
    SANDBOX_DEFAULT_DENY,
    SHIPPED_POLICY_FAMILIES,
    SHIPPED_POLICY_RENAMES,
    TOOL_GROUPS,
    TOOL_NAME_ALIASES,
    TOOL_PROFILES,
)
from openclaw_mcp.domain.tool_policy._mcp import server_denied_by_tool_policy, tools_allow_permits_mcp_runtime
from openclaw_mcp.domain.tool_policy._names import normalize_tool_policy_name
from openclaw_mcp.domain.tool_policy._pipeline import (
    DeclaredTools,
    PolicyStep,
    PolicyTool,
    apply_pipeline,
    policy_matcher,
    unknown_entries_warning,
)
from openclaw_mcp.domain.tool_policy._plugins import (
    PluginDeclaration,
    PluginToolsPolicy,
    plugin_registration_selected,
    plugin_selected,
    plugin_tool_selected,
    plugin_tools_policy,
)
from openclaw_mcp.domain.tool_policy._policy import ToolPolicy, merge_also_allow, pick_policy, profile_policy
from openclaw_mcp.domain.tool_policy._requester import (
    SUBAGENT_TOOL_DENY_ALWAYS,
    allowed_by_policies,
    group_tool_policy,
    requester_tool_policies,
    subagent_tool_policy,
)
from openclaw_mcp.domain.tool_policy._session import (
    EffectiveToolPolicy,
    default_pipeline_steps,
    effective_tool_policy,
    explicit_deny_entries,
    sandbox_tool_policy,
    session_pipeline_steps,
)

__all__ = [
    "BUNDLE_MCP_PLUGIN_ID",
    "CORE_TOOL_IDS",
    "DEFAULT_PLUGIN_TOOLS_ENTRY",
    "PLUGINS_GROUP",
    "SANDBOX_DEFAULT_ALLOW",
    "SANDBOX_DEFAULT_DENY",
    "SHIPPED_POLICY_FAMILIES",
    "SHIPPED_POLICY_RENAMES",
    "SUBAGENT_TOOL_DENY_ALWAYS",
    "TOOL_GROUPS",
    "TOOL_NAME_ALIASES",
    "TOOL_PROFILES",
    "DeclaredTools",
    "EffectiveToolPolicy",
    "PluginDeclaration",
    "PluginToolsPolicy",
    "PolicyStep",
    "PolicyTool",
    "ToolPolicy",
    "allowed_by_policies",
    "apply_pipeline",
    "default_pipeline_steps",
    "effective_tool_policy",
    "explicit_deny_entries",
    "group_tool_policy",
    "merge_also_allow",
    "normalize_agent_id",
    "normalize_tool_policy_name",
    "parse_session_key_agent",
    "pick_policy",
    "plugin_registration_selected",
    "plugin_selected",
    "plugin_tool_selected",
    "plugin_tools_policy",
    "policy_matcher",
    "profile_policy",
    "requester_tool_policies",
    "resolve_policy_agent_id",
    "sandbox_tool_policy",
    "server_denied_by_tool_policy",
    "session_pipeline_steps",
    "subagent_tool_policy",
    "tools_allow_permits_mcp_runtime",
    "unknown_entries_warning",
]
