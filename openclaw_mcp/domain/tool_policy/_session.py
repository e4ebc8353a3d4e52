"""The conversation pipeline of an agent session from the OpenClaw config (spec plugin-tools.md §7.5–§7.7;
tool-policy-and-lifecycle.md §2.2, §2.6; upstream ``src/agents/agent-tools.policy.ts``
``resolveEffectiveToolPolicy``, ``tool-policy-pipeline.ts`` ``buildDefaultToolPolicyPipelineSteps``,
``conversation-tool-policy-pipeline.ts``, ``sandbox/tool-policy.ts`` ``resolveSandboxToolPolicyForAgent``).

Layers that need what a pure function of the config does not have are left out: ``tools.byProvider.*`` (needs
the model provider), channel group and sender policies (need the channel session), sub-agent and inherited
policies (need the session store). :func:`default_pipeline_steps` accepts them when a caller has them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.domain.tool_policy._agents import agent_entry, agent_tools_section, resolve_policy_agent_id
from openclaw_mcp.domain.tool_policy._catalog import SANDBOX_DEFAULT_ALLOW, SANDBOX_DEFAULT_DENY
from openclaw_mcp.domain.tool_policy._names import (
    compile_globs,
    expand_tool_groups,
    matches_any,
    normalize_tool_policy_name,
    unique,
)
from openclaw_mcp.domain.tool_policy._pipeline import PolicyStep
from openclaw_mcp.domain.tool_policy._policy import (
    ToolPolicy,
    collect_explicit_deny,
    get,
    merge_also_allow,
    pick_policy,
    profile_policy,
    string_list,
)
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "EffectiveToolPolicy",
    "default_pipeline_steps",
    "effective_tool_policy",
    "explicit_deny_entries",
    "sandbox_tool_policy",
    "session_pipeline_steps",
]


@dataclass(frozen=True, slots=True)
class EffectiveToolPolicy:
    """The layered policy inputs of one agent (§7.5): ``profile`` is the agent's ``tools.profile`` else the
    global one (as configured, any JSON value); ``profile_also_allow`` the agent's ``alsoAllow`` list else the
    global one (de-duplicated); the global and the agent section's policies (§7.3)."""

    agent_id: str | None
    profile: object
    profile_also_allow: tuple[str, ...] | None
    global_policy: ToolPolicy | None
    agent_policy: ToolPolicy | None


def effective_tool_policy(
    config: Mapping[str, Any], *, agent_id: str | None, session_key: str | None
) -> EffectiveToolPolicy:
    """The effective policy inputs for a session (the agent comes from the key, the explicit id or the config)."""
    agent = resolve_policy_agent_id(config, agent_id, session_key)
    agent_tools = agent_tools_section(config, agent)
    global_tools = config.get("tools")
    profile = get(agent_tools, "profile")
    if profile is None:
        profile = get(global_tools, "profile")
    also_allow = string_list(get(agent_tools, "alsoAllow"))
    if also_allow is None:
        also_allow = string_list(get(global_tools, "alsoAllow"))
    return EffectiveToolPolicy(
        agent_id=agent,
        profile=profile,
        profile_also_allow=None if also_allow is None else tuple(unique(also_allow)),
        global_policy=pick_policy(global_tools),
        agent_policy=pick_policy(agent_tools),
    )


def _trimmed(value: object) -> str:
    return js_trim(value) if isinstance(value, str) else ""


def default_pipeline_steps(
    *,
    profile_policy: ToolPolicy | None = None,
    profile: object = None,
    global_policy: ToolPolicy | None = None,
    agent_policy: ToolPolicy | None = None,
    agent_id: str | None = None,
    provider_profile_policy: ToolPolicy | None = None,
    provider_profile: object = None,
    global_provider_policy: ToolPolicy | None = None,
    agent_provider_policy: ToolPolicy | None = None,
    group_policy: ToolPolicy | None = None,
    sender_policy: ToolPolicy | None = None,
    profile_core_warning_exempt: Sequence[str] = (),
    provider_profile_core_warning_exempt: Sequence[str] = (),
    suppress_core_warnings: bool = False,
    unavailable_core_reason: str | None = None,
) -> list[PolicyStep]:
    """The eight default layers with the reference's labels, every one reporting unknown allow entries:
    ``tools.profile (<p>)``, ``tools.byProvider.profile (<p>)``, ``tools.allow``, ``tools.byProvider.allow``,
    ``agents.<id>.tools.allow``, ``agents.<id>.tools.byProvider.allow``, ``group tools.allow``,
    ``tools.toolsBySender``."""
    agent = _trimmed(agent_id)
    profile_name, provider_name = _trimmed(profile), _trimmed(provider_profile)

    def step(label: str, policy: ToolPolicy | None, exempt: Sequence[str] = ()) -> PolicyStep:
        return PolicyStep(
            label=label,
            policy=policy,
            warn_unknown=True,
            suppress_core_warnings=suppress_core_warnings,
            core_warning_exempt=tuple(exempt),
            unavailable_core_reason=unavailable_core_reason,
        )

    return [
        step(
            f"tools.profile ({profile_name})" if profile_name else "tools.profile",
            profile_policy,
            profile_core_warning_exempt,
        ),
        step(
            f"tools.byProvider.profile ({provider_name})" if provider_name else "tools.byProvider.profile",
            provider_profile_policy,
            provider_profile_core_warning_exempt,
        ),
        step("tools.allow", global_policy),
        step("tools.byProvider.allow", global_provider_policy),
        step(f"agents.{agent}.tools.allow" if agent else "agent tools.allow", agent_policy),
        step(
            f"agents.{agent}.tools.byProvider.allow" if agent else "agent tools.byProvider.allow", agent_provider_policy
        ),
        step("group tools.allow", group_policy),
        step("tools.toolsBySender", sender_policy),
    ]


def _sandbox_list(field: str, agent: object, global_: object) -> list[str] | None:
    values = string_list(get(agent, field))
    return values if values is not None else string_list(get(global_, field))


def sandbox_tool_policy(config: Mapping[str, Any], agent_id: str | None) -> ToolPolicy:
    """The sandbox gate (§7.7): ``tools.sandbox.tools`` of the agent's entry first, else the global one, per
    list. Default allow = the sandbox defaults (+ ``alsoAllow``); default deny = the sandbox defaults minus
    what an explicit ``allow``/``alsoAllow`` re-allows. Groups are expanded; ``view_image`` follows ``image``."""
    entry = agent_entry(config, agent_id) if agent_id else None
    agent = get(get(get(entry, "tools"), "sandbox"), "tools")
    global_ = get(get(config.get("tools"), "sandbox"), "tools")
    allow_cfg = _sandbox_list("allow", agent, global_)
    also_cfg = _sandbox_list("alsoAllow", agent, global_)
    deny_cfg = _sandbox_list("deny", agent, global_)
    if allow_cfg is not None:
        allow = [] if not allow_cfg else (unique([*allow_cfg, *also_cfg]) if also_cfg else list(allow_cfg))
    else:
        allow = unique([*SANDBOX_DEFAULT_ALLOW, *also_cfg]) if also_cfg else list(SANDBOX_DEFAULT_ALLOW)
    if deny_cfg is not None:
        deny = list(deny_cfg)
    else:
        reallowed = compile_globs(expand_tool_groups(unique([*(allow_cfg or ()), *(also_cfg or ())])))
        deny = [
            name
            for name in SANDBOX_DEFAULT_DENY
            if not reallowed or not matches_any(normalize_tool_policy_name(name), reallowed)
        ]
    expanded_deny = expand_tool_groups(deny)
    expanded_allow = expand_tool_groups(allow)
    deny_globs = compile_globs(expanded_deny)
    if matches_any("image", deny_globs) and not matches_any("view_image", deny_globs):
        expanded_deny.append("view_image")
    if expanded_allow and "view_image" not in expanded_deny and "view_image" not in expanded_allow:
        expanded_allow.append("view_image")
    return ToolPolicy(allow=tuple(expanded_allow), deny=tuple(expanded_deny))


def session_pipeline_steps(
    config: Mapping[str, Any],
    *,
    agent_id: str | None,
    session_key: str | None,
    sandboxed: bool = False,
    suppress_core_warnings: bool = True,
) -> list[PolicyStep]:
    """The conversation pipeline for an agent session's tools (§7.6; tool-policy §2.2): the profile (with its
    ``alsoAllow``; its own entries never warn), global, agent layers with the reference's labels, then
    ``sandbox tools.allow`` (a policy only when ``sandboxed``). ``suppress_core_warnings`` (default, as the
    reference's filter of MCP tools): unknown entries that are core tool ids are not reported."""
    effective = effective_tool_policy(config, agent_id=agent_id, session_key=session_key)
    base = profile_policy(effective.profile)
    also_allow = list(effective.profile_also_allow) if effective.profile_also_allow else None
    steps = default_pipeline_steps(
        profile_policy=merge_also_allow(base, also_allow),
        profile=effective.profile,
        profile_core_warning_exempt=base.allow or () if base is not None else (),
        global_policy=effective.global_policy,
        agent_policy=effective.agent_policy,
        agent_id=effective.agent_id,
        suppress_core_warnings=suppress_core_warnings,
    )
    sandbox = sandbox_tool_policy(config, effective.agent_id) if sandboxed else None
    steps.append(PolicyStep(label="sandbox tools.allow", policy=sandbox))
    return steps


def explicit_deny_entries(steps: Sequence[PolicyStep]) -> tuple[str, ...]:
    """Every deny entry of the steps' policies, trimmed and non-blank (the input of the server exclusion, §2.3)."""
    return collect_explicit_deny(step.policy for step in steps)
