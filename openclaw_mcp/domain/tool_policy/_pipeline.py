"""The layered tool-policy pipeline and its matcher (spec plugin-tools.md §7.4, §7.6; tool-policy-and-lifecycle.md
§2.1–§2.2; upstream ``src/agents/tool-policy-pipeline.ts`` ``applyToolPolicyPipeline``, ``tool-policy-match.ts``
``createToolPolicyMatcher``, ``tool-policy.ts`` ``buildPluginToolGroups`` / ``expandPolicyWithPluginGroups`` /
``analyzeAllowlistByToolType``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from openclaw_mcp.domain.tool_policy._catalog import BUNDLE_MCP_PLUGIN_ID, CORE_TOOL_IDS, PLUGINS_GROUP
from openclaw_mcp.domain.tool_policy._names import (
    compile_globs,
    expand_shipped_names,
    expand_tool_groups,
    matches_any,
    normalize_tool_list,
    normalize_tool_policy_name,
    unique,
)
from openclaw_mcp.domain.tool_policy._policy import ToolPolicy
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "DeclaredTools",
    "PolicyStep",
    "PolicyTool",
    "apply_pipeline",
    "policy_matcher",
    "unknown_entries_warning",
]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class PolicyTool:
    """A tool as policy sees it: its model-facing name and the owning plugin id (``None`` for core tools,
    ``"bundle-mcp"`` for MCP tools)."""

    name: str
    plugin_id: str | None = None


@dataclass(frozen=True, slots=True)
class PolicyStep:
    """One pipeline layer. ``policy`` ``None`` = the layer does not apply.

    ``warn_unknown``: unknown ``allow`` entries are reported (the reference's ``stripPluginOnlyAllowlist``
    layers: profile, provider, global, agent, group, sender); ``suppress_core_warnings``: unknown entries that
    are shipped core tool ids are not reported; ``core_warning_exempt``: entries never reported (the profile's
    own list in the conversation pipeline); ``unavailable_core_reason``: the reason named in the warning text.
    """

    label: str
    policy: ToolPolicy | None
    warn_unknown: bool = False
    suppress_core_warnings: bool = False
    core_warning_exempt: tuple[str, ...] = ()
    unavailable_core_reason: str | None = None


@dataclass(frozen=True, slots=True)
class DeclaredTools:
    """What is configured but not necessarily present, so that naming it is not an unknown entry: plugin ids,
    their declared tool names and the safe names of configured MCP servers (``<safe>__…`` entries)."""

    plugin_ids: tuple[str, ...] = ()
    plugin_tool_names: tuple[str, ...] = ()
    mcp_server_names: tuple[str, ...] = ()


@dataclass(slots=True)
class _PluginGroups:
    all: list[str] = field(default_factory=list)
    by_plugin: dict[str, list[str]] = field(default_factory=dict)


def _plugin_groups(tools: Iterable[PolicyTool]) -> _PluginGroups:
    groups = _PluginGroups()
    for tool in tools:
        if tool.plugin_id is None:
            continue
        name = normalize_tool_policy_name(tool.name)
        groups.all.append(name)
        plugin = js_trim(tool.plugin_id).lower()
        if plugin:
            groups.by_plugin.setdefault(plugin, []).append(name)
    return groups


def _expand_plugin_entries(entries: tuple[str, ...] | None, groups: _PluginGroups) -> list[str] | None:
    if entries is None:
        return None
    out: list[str] = []
    for name in expand_shipped_names(entries):
        if name == PLUGINS_GROUP:
            out.extend(groups.all or [name])
        else:
            out.extend(groups.by_plugin.get(name) or [name])
    return unique(out)


def policy_matcher(policy: ToolPolicy | None, *, write_allows_apply_patch: bool = True) -> Callable[[str], bool]:
    """Whether a tool name passes ``policy`` (§7.4): deny globs win; then an absent or empty allow list allows
    everything, else a glob must match (``apply_patch`` also passes when ``write`` is allowed). Static groups
    are expanded; plugin entries must have been expanded already (:func:`apply_pipeline` does it)."""
    if policy is None:
        return lambda _name: True
    deny = compile_globs(expand_tool_groups(policy.deny))
    allow = compile_globs(expand_tool_groups(policy.allow))

    def matches(name: str) -> bool:
        normalized = normalize_tool_policy_name(name)
        if matches_any(normalized, deny):
            return False
        if not allow or matches_any(normalized, allow):
            return True
        return write_allows_apply_patch and normalized == "apply_patch" and matches_any("write", allow)

    return matches


def _declared_mcp_entry(entry: str, prefixes: set[str]) -> bool:
    if not prefixes:
        return False
    if entry == BUNDLE_MCP_PLUGIN_ID:
        return True
    return any(len(entry) > len(prefix) and entry.startswith(prefix) for prefix in prefixes)


def _unknown_allow_entries(
    policy: ToolPolicy, groups: _PluginGroups, core_names: set[str], declared: DeclaredTools | None
) -> list[str]:
    if not policy.allow:
        return []
    plugin_ids = set(groups.by_plugin)
    plugin_tools = set(groups.all)
    prefixes: set[str] = set()
    if declared is not None:
        plugin_ids.update(filter(None, (js_trim(value).lower() for value in declared.plugin_ids)))
        plugin_tools.update(normalize_tool_list(declared.plugin_tool_names))
        prefixes.update(filter(None, (normalize_tool_policy_name(f"{name}__") for name in declared.mcp_server_names)))
    unknown: list[str] = []
    for entry in normalize_tool_list(expand_shipped_names(policy.allow)):
        if entry == "*":
            continue
        plugin_entry = (
            entry == PLUGINS_GROUP
            or entry in plugin_ids
            or entry in plugin_tools
            or _declared_mcp_entry(entry, prefixes)
        )
        if not plugin_entry and not any(name in core_names for name in expand_tool_groups([entry])):
            unknown.append(entry)
    return unique(unknown)


def _suffix(*, core: bool, other: bool, reason: str | None) -> str:
    reason = js_trim(reason) if reason else ""
    if core and other:
        if reason:
            return (
                f"Some entries are shipped core tools but unavailable here: {reason}; "
                "other entries won't match any tool unless the plugin is enabled."
            )
        return (
            "Some entries are shipped core tools but unavailable in the current runtime/provider/model/config; "
            "other entries won't match any tool unless the plugin is enabled."
        )
    if core:
        if reason:
            return f"These entries are shipped core tools but unavailable here: {reason}."
        return "These entries are shipped core tools but unavailable in the current runtime/provider/model/config."
    return "These entries won't match any tool unless the plugin is enabled."


def unknown_entries_warning(step: PolicyStep, unknown: Sequence[str]) -> str | None:
    """The warning for a step's unknown ``allow`` entries (``None`` when nothing is to be reported):
    ``tools: <label> allowlist contains unknown entries (<entries>). <suffix>`` — core tool ids first."""
    exempt = {normalize_tool_policy_name(entry) for entry in step.core_warning_exempt}
    gated = [entry for entry in unknown if entry in CORE_TOOL_IDS]
    core = [] if step.suppress_core_warnings else [entry for entry in gated if entry not in exempt]
    other = [entry for entry in unknown if entry not in CORE_TOOL_IDS and entry not in exempt]
    if not core and not other:
        return None
    suffix = _suffix(core=bool(core), other=bool(other), reason=step.unavailable_core_reason)
    return f"tools: {step.label} allowlist contains unknown entries ({', '.join([*core, *other])}). {suffix}"


def apply_pipeline(
    entries: Sequence[_T],
    steps: Sequence[PolicyStep],
    *,
    identity: Callable[[_T], PolicyTool],
    warn: Callable[[str], None],
    declared: DeclaredTools | None = None,
) -> list[_T]:
    """The entries whose identity passes every step, in their order (§7.4, §7.6).

    ``group:plugins``, plugin ids and ``bundle-mcp`` are expanded against the identities of ``entries`` (the
    input list, as the reference does); unknown ``allow`` entries of ``warn_unknown`` steps are reported once
    per distinct text within this call (the reference also remembers texts across calls; callers that want that
    keep their own memory). ``declared`` names configured plugins / MCP servers that are not unknown entries.
    """
    identities = [identity(entry) for entry in entries]
    core_names = {
        name for tool in identities if tool.plugin_id is None if (name := normalize_tool_policy_name(tool.name))
    }
    groups = _plugin_groups(identities)
    kept = list(zip(entries, identities, strict=True))
    warned: set[str] = set()
    for step in steps:
        policy = step.policy
        if policy is None:
            continue
        if step.warn_unknown:
            unknown = _unknown_allow_entries(policy, groups, core_names, declared)
            text = unknown_entries_warning(step, unknown) if unknown else None
            if text is not None and text not in warned:
                warned.add(text)
                warn(text)
        expanded = ToolPolicy(
            allow=_tuple(_expand_plugin_entries(policy.allow, groups)),
            deny=_tuple(_expand_plugin_entries(policy.deny, groups)),
        )
        matches = policy_matcher(expanded)
        kept = [(entry, tool) for entry, tool in kept if matches(tool.name)]
    return [entry for entry, _ in kept]


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)
