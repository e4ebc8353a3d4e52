"""Which plugin tools the ``openclaw-plugin-tools`` server collects (spec plugin-tools.md §3.1–§3.2; upstream
``src/mcp/plugin-tools-serve.ts`` ``resolvePluginToolPolicy``, ``src/plugins/tools.ts``
``resolvePluginToolPluginIds`` / ``resolvePluginToolsFromRegistry``, ``tool-grant-allowlist.ts``
``createPluginToolAllowlist``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.domain.tool_policy._catalog import DEFAULT_PLUGIN_TOOLS_ENTRY, PLUGINS_GROUP
from openclaw_mcp.domain.tool_policy._names import Glob, compile_globs, matches_any, normalize_tool_policy_name, unique
from openclaw_mcp.domain.tool_policy._pipeline import PolicyStep
from openclaw_mcp.domain.tool_policy._policy import (
    collect_explicit_allow,
    collect_explicit_deny,
    get,
    pick_policy,
    profile_policy,
)
from openclaw_mcp.domain.tool_policy._session import default_pipeline_steps, effective_tool_policy
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "PluginDeclaration",
    "PluginToolsPolicy",
    "plugin_registration_selected",
    "plugin_selected",
    "plugin_tool_selected",
    "plugin_tools_policy",
]


@dataclass(frozen=True, slots=True)
class PluginToolsPolicy:
    """The policy inputs of plugin-tool collection (§3.1): the pipeline ``steps`` (empty without a session
    context), the explicit ``allowlist`` / ``denylist`` entries, and whether plugins are enabled at all."""

    steps: tuple[PolicyStep, ...] = ()
    allowlist: tuple[str, ...] = ()
    denylist: tuple[str, ...] = ()
    plugins_enabled: bool = True


@dataclass(frozen=True)
class PluginDeclaration:
    """A plugin as its manifest declares it: id, declared tool names and which of them are optional."""

    plugin_id: str
    tools: tuple[str, ...]
    optional_tools: tuple[str, ...] = ()

    @property
    def declared(self) -> tuple[str, ...]:
        """Every declared tool name (``contracts.tools``), the optional ones included."""
        return tuple(unique([*self.tools, *self.optional_tools]))


def plugin_tools_policy(
    config: Mapping[str, Any], *, agent_id: str | None, session_key: str | None
) -> PluginToolsPolicy:
    """§3.1. With a session context (an agent id or a session key): the effective policy's profile (+its
    ``alsoAllow``), global and agent layers as pipeline steps (core-tool warnings suppressed); without one:
    ``tools.profile`` (+``tools.alsoAllow``) and ``tools`` only, and no steps."""
    tools = config.get("tools")
    has_context = any(isinstance(value, str) and js_trim(value) for value in (agent_id, session_key))
    if has_context:
        effective = effective_tool_policy(config, agent_id=agent_id, session_key=session_key)
        also_allow = effective.profile_also_allow
        profile = effective.profile if effective.profile is not None else get(tools, "profile")
        policy = profile_policy(profile, list(also_allow) if also_allow is not None else get(tools, "alsoAllow"))
        global_policy = effective.global_policy if effective.global_policy is not None else pick_policy(tools)
        steps = tuple(
            default_pipeline_steps(
                profile_policy=policy,
                profile=effective.profile,
                global_policy=global_policy,
                agent_policy=effective.agent_policy,
                agent_id=effective.agent_id,
                suppress_core_warnings=True,
            )
        )
        policies = [step.policy for step in steps]
    else:
        policy = profile_policy(get(tools, "profile"), get(tools, "alsoAllow"))
        steps = ()
        policies = [policy, pick_policy(tools)]
    return PluginToolsPolicy(
        steps=steps,
        allowlist=collect_explicit_allow(policies),
        denylist=collect_explicit_deny(policies),
        plugins_enabled=get(config.get("plugins"), "enabled") is not False,
    )


@dataclass(frozen=True, slots=True)
class _Allowlist:
    entries: frozenset[str]
    globs: tuple[Glob, ...]

    @classmethod
    def of(cls, allowlist: Sequence[str]) -> _Allowlist:
        entries = [name for name in unique(map(normalize_tool_policy_name, allowlist)) if name]
        return cls(frozenset(entries), tuple(compile_globs(entries)))

    @property
    def includes_defaults(self) -> bool:
        return not self.entries or DEFAULT_PLUGIN_TOOLS_ENTRY in self.entries

    def allows_plugin(self, plugin_id: str) -> bool:
        return bool({"*", PLUGINS_GROUP, normalize_tool_policy_name(plugin_id)} & self.entries)

    def allows_tool(self, plugin_id: str, tool_name: str) -> bool:
        return (
            self.allows_plugin(plugin_id)
            or PLUGINS_GROUP in self.entries
            or matches_any(normalize_tool_policy_name(tool_name), self.globs)
        )


def _denied(name: str, deny: Sequence[Glob]) -> bool:
    normalized = normalize_tool_policy_name(name)
    return bool(normalized) and matches_any(normalized, deny)


def _plugin_blocked(plugin_id: str, deny: Sequence[Glob]) -> bool:
    return _denied(plugin_id, deny) or matches_any(PLUGINS_GROUP, deny)


def plugin_selected(plugin: PluginDeclaration, policy: PluginToolsPolicy) -> bool:
    """§3.2 steps 1–3 for a plugin: plugins enabled; its id (or ``group:plugins``) not denied; and one declared
    tool that is not denied is eligible — the plugin id / ``*`` / ``group:plugins`` is allowed, or the allow list
    includes the defaults (empty, or ``__openclaw_default_plugin_tools__``) and the tool is not optional, or an
    allow glob matches the tool's name."""
    if not policy.plugins_enabled:
        return False
    deny = compile_globs(policy.denylist)
    if _plugin_blocked(plugin.plugin_id, deny):
        return False
    allow = _Allowlist.of(policy.allowlist)
    allows_plugin = allow.allows_plugin(plugin.plugin_id)
    optional = set(plugin.optional_tools)
    return any(
        (
            allows_plugin
            or (allow.includes_defaults and name not in optional)
            or allow.allows_tool(plugin.plugin_id, name)
        )
        and not _denied(name, deny)
        for name in plugin.declared
    )


def plugin_registration_selected(
    plugin: PluginDeclaration,
    *,
    optional: bool,
    policy: PluginToolsPolicy,
    registration_names: Sequence[str] | None = None,
) -> bool:
    """§3.2 for one registration of a selected plugin, before its factory runs: not optional and the allow
    list includes the defaults, or an allow list exists and it allows one of the registration's non-denied
    names (``registration_names``; default: every declared tool, i.e. one registration for the plugin)."""
    if not plugin_selected(plugin, policy):
        return False
    deny = compile_globs(policy.denylist)
    allow = _Allowlist.of(policy.allowlist)
    names = list(plugin.declared if registration_names is None else registration_names)
    eligible = [name for name in names if not _denied(name, deny)]
    if names and not eligible:
        return False
    return (not optional and allow.includes_defaults) or (
        bool(allow.entries) and (not eligible or any(allow.allows_tool(plugin.plugin_id, name) for name in eligible))
    )


def plugin_tool_selected(
    plugin: PluginDeclaration,
    tool_name: str,
    *,
    optional: bool,
    policy: PluginToolsPolicy,
    registration_names: Sequence[str] | None = None,
) -> bool:
    """§3.2 steps 2–3 for one tool a selected plugin registered (``optional``: the registration is optional).

    The tool's registration must qualify (:func:`plugin_registration_selected`); then the tool itself: not
    denied, and an optional tool (by registration or declaration) needs the plugin id, ``group:plugins`` or a
    matching tool-name glob. ``registration_names``: the names the tool was registered under (default: every
    declared tool, i.e. one registration for the whole plugin), so non-optional tools of an allowed plugin are
    kept.
    """
    if not plugin_registration_selected(
        plugin, optional=optional, policy=policy, registration_names=registration_names
    ):
        return False
    deny = compile_globs(policy.denylist)
    allow = _Allowlist.of(policy.allowlist)
    name = js_trim(tool_name)
    needs_grant = optional or name in plugin.optional_tools
    if needs_grant and not allow.allows_tool(plugin.plugin_id, name):
        return False
    return not _denied(name, deny)
