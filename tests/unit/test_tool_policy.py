"""The tool policy (spec plugin-tools.md §3.1–§3.2, §7; tool-policy-and-lifecycle.md §2, §5.2): names, groups,
profiles, sections, the pipeline and its warnings, the session pipeline, server exclusion, the ``toolsAllow``
gate, the sandbox gate and plugin selection. The reference comparison is in ``test_tool_policy_reference.py``."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openclaw_mcp.domain.filters import server_denied_by_tool_policy as filters_server_denied
from openclaw_mcp.domain.tool_policy import (
    CORE_TOOL_IDS,
    SANDBOX_DEFAULT_ALLOW,
    SANDBOX_DEFAULT_DENY,
    TOOL_GROUPS,
    TOOL_PROFILES,
    DeclaredTools,
    PluginDeclaration,
    PolicyStep,
    PolicyTool,
    ToolPolicy,
    apply_pipeline,
    default_pipeline_steps,
    explicit_deny_entries,
    normalize_tool_policy_name,
    pick_policy,
    plugin_selected,
    plugin_tool_selected,
    plugin_tools_policy,
    profile_policy,
    resolve_policy_agent_id,
    sandbox_tool_policy,
    server_denied_by_tool_policy,
    session_pipeline_steps,
    tools_allow_permits_mcp_runtime,
)

# The 7 tools of check/pol.mjs (tool-policy-and-lifecycle.md §2.2).
TOOLS = (
    PolicyTool("read"),
    PolicyTool("exec"),
    PolicyTool("web_search"),
    PolicyTool("docs__search_docs", "bundle-mcp"),
    PolicyTool("docs__read_docs", "bundle-mcp"),
    PolicyTool("Memory__status", "bundle-mcp"),
    PolicyTool("echo_tool", "hookplug"),
)
MCP = ["docs__search_docs", "docs__read_docs", "Memory__status"]
ALL = [tool.name for tool in TOOLS]


class Context(TypedDict, total=False):
    agent_id: str | None
    session_key: str | None


SESSION: Context = {"agent_id": "main", "session_key": "agent:main:main"}


def names(
    steps: list[PolicyStep], tools: tuple[PolicyTool, ...] = TOOLS, warnings: list[str] | None = None
) -> list[str]:
    sink: list[str] = [] if warnings is None else warnings
    return [tool.name for tool in apply_pipeline(tools, steps, identity=lambda tool: tool, warn=sink.append)]


def one(policy: ToolPolicy, label: str = "tools.allow", *, warn: bool = False) -> list[PolicyStep]:
    return [PolicyStep(label=label, policy=policy, warn_unknown=warn)]


# --- names, groups, profiles ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (" Bash ", "exec"),
        ("APPLY-PATCH", "apply_patch"),
        ("Cron", "automations"),
        ("apply_patch", "apply_patch"),
        ("\ufeffRead\u3000", "read"),  # JavaScript trim()
        ("Memory__Status", "memory__status"),
        ("", ""),
        ("   ", ""),
        (None, ""),
        (5, ""),
        (["exec"], ""),
    ],
)
def test_policy_names_are_trimmed_lowercased_and_aliased(raw: object, expected: str) -> None:
    assert normalize_tool_policy_name(raw) == expected


def _spec_list(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(","))


SPEC_GROUPS = {  # plugin-tools.md §7.1
    "group:fs": "ls, read, write, edit, apply_patch",
    "group:runtime": "exec, process, code_execution, secrets",
    "group:web": "web_search, web_fetch, x_search",
    "group:memory": "memory_search, memory_get",
    "group:sessions": "sessions, sessions_list, sessions_history, sessions_search, conversations_list, "
    "conversations_send, conversations_turn, sessions_send, sessions_spawn, github_identity_status, github_publish, "
    "agents_wait, sessions_yield, subagents, session_status, suggest_task, dismiss_task",
    "group:ui": "browser, screen, theme, dashboard, terminal, portal, canvas, show_widget",
    "group:messaging": "message",
    "group:automation": "heartbeat_respond, automations, gateway, plugins, openclaw",
    "group:nodes": "nodes, computer, mobile_ui",
    "group:agents": "agents_list, get_goal, create_goal, update_goal, progress_card, ask_user, skill_workshop",
    "group:media": "view_image, image_generate, music_generate, video_generate, tts, pdf",
}


def test_the_static_groups_are_the_2026_9_6_groups() -> None:
    assert list(TOOL_GROUPS) == ["group:openclaw", *SPEC_GROUPS]
    for group, members in SPEC_GROUPS.items():
        assert TOOL_GROUPS[group] == _spec_list(members), group
    everything = [name for group, members in TOOL_GROUPS.items() if group != "group:openclaw" for name in members]
    assert set(everything) == CORE_TOOL_IDS and len(everything) == len(CORE_TOOL_IDS)
    not_openclaw = {"ls", "read", "write", "edit", "apply_patch", "exec", "process", "canvas"}
    assert TOOL_GROUPS["group:openclaw"] == tuple(name for name in everything if name not in not_openclaw)


def test_the_profiles_are_the_2026_9_6_profiles() -> None:
    assert TOOL_PROFILES["minimal"] == ("session_status", "gateway")
    assert TOOL_PROFILES["full"] == ("*",)
    assert TOOL_PROFILES["coding"][:7] == ("ls", "read", "write", "edit", "apply_patch", "exec", "process")
    assert TOOL_PROFILES["coding"][-1] == TOOL_PROFILES["messaging"][-1] == "bundle-mcp"
    assert len(TOOL_PROFILES["coding"]) == 50 and "browser" not in TOOL_PROFILES["coding"]
    assert TOOL_PROFILES["messaging"] == _spec_list(
        "secrets, sessions, sessions_list, sessions_history, sessions_search, conversations_list, conversations_send, "
        "conversations_turn, sessions_send, sessions_spawn, sessions_yield, subagents, session_status, theme, message, "
        "gateway, ask_user, bundle-mcp"
    )


@pytest.mark.parametrize(
    ("profile", "also_allow", "expected"),
    [
        ("minimal", None, ToolPolicy(allow=("session_status", "gateway"))),
        ("minimal", ["bundle-mcp", "gateway"], ToolPolicy(allow=("session_status", "gateway", "bundle-mcp"))),
        ("full", ["x"], ToolPolicy(allow=("*", "x"))),
        ("minimal", [], ToolPolicy(allow=("session_status", "gateway"))),
        ("Coding", ["x"], None),
        (" coding", None, None),
        (None, ["x"], None),
        (3, None, None),
    ],
)
def test_profile_policy_is_the_profile_list_plus_also_allow(profile: object, also_allow: Any, expected: Any) -> None:
    assert profile_policy(profile, also_allow) == expected


def test_shipped_renames_apply_to_policy_entries() -> None:
    tools = (PolicyTool("progress_card"), PolicyTool("show_widget"), PolicyTool("canvas"), PolicyTool("read"))
    assert names(one(ToolPolicy(allow=("update_plan",))), tools) == ["progress_card"]
    assert names(one(ToolPolicy(allow=("canvas",))), tools) == ["show_widget", "canvas"]
    assert names(one(ToolPolicy(deny=("Canvas",))), tools) == ["progress_card", "read"]


# --- sections (§7.3) ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        ({"allow": ["a"], "alsoAllow": ["b", "a"]}, ToolPolicy(allow=("a", "b"))),
        ({"allow": [], "alsoAllow": ["b"]}, ToolPolicy(allow=("*", "b"))),
        ({"allow": []}, ToolPolicy(allow=())),
        ({"alsoAllow": ["b"]}, ToolPolicy(allow=("*", "b"), implicit_allow_all=True)),
        ({"alsoAllow": [" * ", "b"]}, ToolPolicy(allow=("*", " * ", "b"))),
        ({"alsoAllow": []}, None),
        ({"deny": ["x"], "allow": "read"}, ToolPolicy(deny=("x",))),
        ({"deny": [], "profile": "coding"}, ToolPolicy(deny=())),
        ({"allow": ["a", 1, None]}, ToolPolicy(allow=("a",))),
        ({}, None),
        (None, None),
        ("tools", None),
        (["allow"], None),
    ],
)
def test_a_tools_section_becomes_a_policy(section: object, expected: ToolPolicy | None) -> None:
    assert pick_policy(section) == expected


# --- matching and the pipeline (§7.4, §7.6) -------------------------------------------------------------


def test_deny_wins_over_allow_and_an_empty_allow_list_allows_everything() -> None:
    assert names(one(ToolPolicy(allow=("*",), deny=("exec",)))) == [n for n in ALL if n != "exec"]
    assert names(one(ToolPolicy(allow=()))) == ALL
    assert names(one(ToolPolicy(allow=("read",), deny=("read",)))) == []


def test_write_in_the_allow_list_also_allows_apply_patch_unless_denied() -> None:
    tools = (PolicyTool("apply_patch"), PolicyTool("write"), PolicyTool("read"))
    assert names(one(ToolPolicy(allow=("write",))), tools) == ["apply_patch", "write"]
    assert names(one(ToolPolicy(allow=("wr*",))), tools) == ["apply_patch", "write"]
    assert names(one(ToolPolicy(allow=("write",), deny=("apply-patch",))), tools) == ["write"]
    assert names(one(ToolPolicy(allow=("apply_patch",))), tools) == ["apply_patch"]


def test_groups_plugin_ids_and_bundle_mcp_expand_against_the_tools_present() -> None:
    assert names(one(ToolPolicy(allow=("group:runtime", "group:web")))) == ["exec", "web_search"]
    assert names(one(ToolPolicy(allow=("HookPlug",)))) == ["echo_tool"]
    assert names(one(ToolPolicy(allow=("bundle-mcp",)))) == MCP
    assert names(one(ToolPolicy(allow=("group:plugins",)))) == [*MCP, "echo_tool"]
    core = TOOLS[:3]
    assert names(one(ToolPolicy(deny=("group:plugins", "bundle-mcp"))), core) == ["read", "exec", "web_search"]
    assert names(one(ToolPolicy(allow=("group:plugins",))), core) == []


def test_globs_are_anchored_and_a_lone_star_matches_everything() -> None:
    assert names(one(ToolPolicy(allow=("*_tool",)))) == ["echo_tool"]
    assert names(one(ToolPolicy(allow=("docs__*",)))) == ["docs__search_docs", "docs__read_docs"]
    assert names(one(ToolPolicy(allow=("docs",)))) == []
    assert names(one(ToolPolicy(allow=("*docs*",)))) == ["docs__search_docs", "docs__read_docs"]
    assert names(one(ToolPolicy(allow=("re.d",)))) == []  # no regular-expression meaning
    line = (PolicyTool("a\nb", "p"), PolicyTool("ab", "p"))
    assert names(one(ToolPolicy(allow=("a*b",))), line) == ["ab"]  # JavaScript ``.`` excludes line terminators


# tool-policy-and-lifecycle.md §2.2 (observed with the reference; the same rows in test_tool_policy_reference.py)
POLICY_TABLE: list[tuple[str, dict[str, Any], list[str]]] = [
    ("none", {}, ALL),
    ("profile minimal", {"tools": {"profile": "minimal"}}, []),
    ("minimal + bundle-mcp", {"tools": {"profile": "minimal", "alsoAllow": ["bundle-mcp"]}}, MCP),
    ("profile coding", {"tools": {"profile": "coding"}}, ["read", "exec", "web_search", *MCP]),
    ("profile messaging", {"tools": {"profile": "messaging"}}, MCP),
    ("deny docs__*", {"tools": {"deny": ["docs__*"]}}, ["read", "exec", "web_search", "Memory__status", "echo_tool"]),
    ("deny case-insensitive", {"tools": {"deny": ["DOCS__Read_Docs"]}}, [n for n in ALL if n != "docs__read_docs"]),
    ("raw names never match", {"tools": {"deny": ["read_docs"]}}, ALL),
    ("deny bundle-mcp", {"tools": {"deny": ["bundle-mcp"]}}, ["read", "exec", "web_search", "echo_tool"]),
    ("deny group:plugins", {"tools": {"deny": ["group:plugins"]}}, ["read", "exec", "web_search"]),
    ("allow one", {"tools": {"allow": ["docs__read_docs"]}}, ["docs__read_docs"]),
    ("alsoAllow only", {"tools": {"alsoAllow": ["memory__*"]}}, ALL),
    (
        "agent deny",
        {"agents": {"entries": {"main": {"tools": {"deny": ["memory__status"]}}}}},
        [n for n in ALL if n != "Memory__status"],
    ),
    (
        "global allow * agent deny",
        {"tools": {"allow": ["*"]}, "agents": {"entries": {"main": {"tools": {"deny": ["docs__*"]}}}}},
        ["read", "exec", "web_search", "Memory__status", "echo_tool"],
    ),
]


@pytest.mark.parametrize(("label", "config", "expected"), POLICY_TABLE, ids=[row[0] for row in POLICY_TABLE])
def test_the_session_pipeline_reproduces_the_observed_policy_table(
    label: str, config: dict[str, Any], expected: list[str]
) -> None:
    assert names(session_pipeline_steps(config, **SESSION)) == expected, label


# --- warnings -------------------------------------------------------------------------------------------

CORE_SUFFIX = "These entries are shipped core tools but unavailable in the current runtime/provider/model/config."
PLUGIN_SUFFIX = "These entries won't match any tool unless the plugin is enabled."


def test_unknown_allow_entries_are_reported_with_the_reference_texts() -> None:
    warnings: list[str] = []
    steps = default_pipeline_steps(
        profile_policy=profile_policy("minimal"), global_policy=pick_policy({"alsoAllow": ["memory__*"]})
    )
    names(steps, warnings=warnings)
    assert warnings == [
        f"tools: tools.profile allowlist contains unknown entries (session_status, gateway). {CORE_SUFFIX}",
        f"tools: tools.allow allowlist contains unknown entries (memory__*). {PLUGIN_SUFFIX}",
    ]


def test_mixed_unknown_entries_list_core_tools_first_with_the_mixed_suffix() -> None:
    warnings: list[str] = []
    names(one(ToolPolicy(allow=("nope", "Gateway", "group:fs", "read", "*")), "x", warn=True), warnings=warnings)
    assert warnings == [
        "tools: x allowlist contains unknown entries (gateway, nope). Some entries are shipped core tools but "
        "unavailable in the current runtime/provider/model/config; other entries won't match any tool unless the "
        "plugin is enabled."
    ]
    reason = PolicyStep("y", ToolPolicy(allow=("gateway",)), warn_unknown=True, unavailable_core_reason=" no gw ")
    names([reason], warnings=warnings)
    assert warnings[-1] == (
        "tools: y allowlist contains unknown entries (gateway). "
        "These entries are shipped core tools but unavailable here: no gw."
    )


def test_suppressed_and_exempt_entries_are_not_reported_and_a_text_is_reported_once() -> None:
    warnings: list[str] = []
    policy = ToolPolicy(allow=("gateway", "nope", "other"))
    steps = [
        PolicyStep("a", policy, warn_unknown=True, suppress_core_warnings=True),
        PolicyStep("a", policy, warn_unknown=True, suppress_core_warnings=True),
        PolicyStep("b", policy, warn_unknown=True, core_warning_exempt=("Gateway", "other")),
        PolicyStep("c", policy),
        PolicyStep("d", ToolPolicy(allow=("gateway",)), warn_unknown=True, suppress_core_warnings=True),
    ]
    names(steps, warnings=warnings)
    assert warnings == [
        f"tools: a allowlist contains unknown entries (nope, other). {PLUGIN_SUFFIX}",
        f"tools: b allowlist contains unknown entries (nope). {PLUGIN_SUFFIX}",
    ]


def test_configured_plugins_and_mcp_servers_are_not_unknown_entries() -> None:
    warnings: list[str] = []
    step = one(ToolPolicy(allow=("docs__later", "otherplug", "other_tool", "bundle-mcp", "x__y")), "s", warn=True)
    declared = DeclaredTools(plugin_ids=("OtherPlug",), plugin_tool_names=("Other_Tool",), mcp_server_names=("docs",))
    apply_pipeline(TOOLS[:3], step, identity=lambda tool: tool, warn=warnings.append, declared=declared)
    assert warnings == [f"tools: s allowlist contains unknown entries (x__y). {PLUGIN_SUFFIX}"]


def test_the_session_pipeline_labels_are_the_references() -> None:
    config = {"tools": {"profile": " coding "}, "agents": {"entries": {"Ops": {"tools": {"deny": ["x"]}}}}}
    steps = session_pipeline_steps(config, agent_id=None, session_key="agent:ops:main")
    assert [step.label for step in steps] == [
        "tools.profile (coding)",
        "tools.byProvider.profile",
        "tools.allow",
        "tools.byProvider.allow",
        "agents.ops.tools.allow",
        "agents.ops.tools.byProvider.allow",
        "group tools.allow",
        "tools.toolsBySender",
        "sandbox tools.allow",
    ]
    assert steps[0].policy is None  # " coding " is not a profile name
    assert steps[4].policy == ToolPolicy(deny=("x",)) and steps[-1].policy is None and not steps[-1].warn_unknown
    assert default_pipeline_steps()[4].label == "agent tools.allow"


MIXED_SUFFIX = (
    "Some entries are shipped core tools but unavailable in the current runtime/provider/model/config; "
    "other entries won't match any tool unless the plugin is enabled."
)


def test_the_session_pipeline_profile_entries_never_warn_but_also_allow_entries_do() -> None:
    warnings: list[str] = []
    config = {"tools": {"profile": "coding", "alsoAllow": ["nope", "browser"]}}
    names(session_pipeline_steps(config, **SESSION, suppress_core_warnings=False), warnings=warnings)
    assert warnings == [
        f"tools: tools.profile (coding) allowlist contains unknown entries (browser, nope). {MIXED_SUFFIX}",
        f"tools: tools.allow allowlist contains unknown entries (browser, nope). {MIXED_SUFFIX}",
    ]
    warnings.clear()
    names(session_pipeline_steps(config, **SESSION), warnings=warnings)  # core ids suppressed (the MCP path)
    assert warnings == [
        f"tools: tools.profile (coding) allowlist contains unknown entries (nope). {PLUGIN_SUFFIX}",
        f"tools: tools.allow allowlist contains unknown entries (nope). {PLUGIN_SUFFIX}",
    ]


# --- agents (§7.5) ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "agent_id", "session_key", "expected"),
    [
        ({}, None, None, "main"),
        ({}, "Ops Team", None, "ops-team"),
        ({}, None, "agent:Ops:main", "ops"),
        ({}, "main", "agent:ops:main", "ops"),
        ({"agents": {"entries": {"a": {}, "b": {}}}}, None, None, None),
        ({"agents": {"entries": {"a": {}, "b": {"default": True}}}}, None, None, "b"),
        ({"agents": {"entries": {"solo": {}}}}, None, "main", "solo"),
        ({"agents": {"list": [{"id": "Legacy"}]}}, None, None, "legacy"),
        ({"agents": {"entries": {}}}, None, None, None),
        ({"agents": {"entries": {}}}, None, "agent:Ops:main", "ops"),
    ],
)
def test_the_policy_agent_comes_from_the_key_the_id_or_the_config(
    config: dict[str, Any], agent_id: str | None, session_key: str | None, expected: str | None
) -> None:
    assert resolve_policy_agent_id(config, agent_id, session_key) == expected


def test_agent_sections_defaults_and_legacy_lists_provide_the_agent_layer() -> None:
    defaults = {"agents": {"defaults": {"tools": {"profile": "minimal", "deny": ["a"]}}}}
    steps = session_pipeline_steps(defaults, agent_id=None, session_key=None)
    assert steps[0].label == "tools.profile (minimal)" and steps[4].policy == ToolPolicy(deny=("a",))
    roster = {**defaults["agents"], "entries": {"main": {}}}
    assert session_pipeline_steps({"agents": roster}, **SESSION)[4].policy is None  # defaults only without roster
    legacy = {"agents": {"list": [{"id": "main", "tools": {"allow": ["read"]}}]}}
    assert names(session_pipeline_steps(legacy, **SESSION)) == ["read"]
    agent_profile = {
        "tools": {"profile": "minimal", "alsoAllow": ["exec"]},
        "agents": {"entries": {"main": {"tools": {"profile": "coding"}}}},
    }
    assert session_pipeline_steps(agent_profile, **SESSION)[0].policy == profile_policy("coding", ["exec"])


def test_explicit_deny_entries_collect_every_layer() -> None:
    config = {"tools": {"deny": [" docs__* ", "", "x"]}, "agents": {"entries": {"main": {"tools": {"deny": ["x"]}}}}}
    steps = session_pipeline_steps(config, **SESSION)
    assert explicit_deny_entries(steps) == ("docs__*", "x", "x")
    assert explicit_deny_entries(session_pipeline_steps({}, **SESSION, sandboxed=True))[:2] == ("browser", "canvas")


# --- server exclusion (§2.3) and the toolsAllow gate (§2.5) -------------------------------------------------


@pytest.mark.parametrize(
    ("deny", "server", "expected"),
    [
        (["Docs__*", "other__x"], "docs", True),
        (["Docs__*", "other__x"], "Docs", True),
        (["Docs__*", "other__x"], "other", False),
        (["Docs__*", "other__x"], "doc", False),
        (["docs*"], "docs", True),
        (["d*__*"], "docs", True),
        (["*"], "docs", True),
        (["docs__search"], "docs", False),
        (["BUNDLE-MCP"], "x", True),
        ([" group:plugins "], "x", True),
        ([], "x", False),
        (None, "x", False),
    ],
)
def test_a_deny_list_excludes_whole_servers(deny: list[str] | None, server: str, expected: bool) -> None:
    assert server_denied_by_tool_policy(deny, server) is expected
    assert filters_server_denied(deny, server) is expected


@pytest.mark.parametrize(
    ("tools_allow", "expected"),
    [
        ([], False),
        (["read"], False),
        (["docs__*"], True),
        (["bundle-mcp"], True),
        (["group:plugins"], True),
        (["doc*"], True),
        (["*"], True),
        (["x__y"], True),
        (["mem*"], True),
        (["other*"], False),
        (["d"], False),
    ],
)
def test_tools_allow_decides_whether_the_mcp_runtime_is_created(tools_allow: list[str], expected: bool) -> None:
    assert tools_allow_permits_mcp_runtime(tools_allow, ["docs", "Memory"]) is expected


# --- sandbox (§7.7, tool-policy §2.6) -------------------------------------------------------------------------


def test_the_default_sandbox_gate_admits_no_mcp_or_plugin_tool() -> None:
    assert sandbox_tool_policy({}, "main") == ToolPolicy(allow=SANDBOX_DEFAULT_ALLOW, deny=SANDBOX_DEFAULT_DENY)
    steps = session_pipeline_steps({}, **SESSION, sandboxed=True)
    assert names(steps) == ["read", "exec"]
    also = {"tools": {"sandbox": {"tools": {"alsoAllow": ["bundle-mcp"]}}}}
    assert names(session_pipeline_steps(also, **SESSION, sandboxed=True)) == ["read", "exec", *MCP]


def test_the_agent_sandbox_section_comes_first_per_list() -> None:
    config = {
        "tools": {"sandbox": {"tools": {"allow": ["read"], "deny": ["exec"]}}},
        "agents": {"entries": {"main": {"tools": {"sandbox": {"tools": {"allow": ["group:web"]}}}}}},
    }
    assert sandbox_tool_policy(config, "main") == ToolPolicy(
        allow=("web_search", "web_fetch", "x_search", "view_image"), deny=("exec",)
    )
    assert sandbox_tool_policy(config, None) == ToolPolicy(allow=("read", "view_image"), deny=("exec",))


def test_explicit_sandbox_allows_lift_default_denials_and_view_image_follows_image() -> None:
    lifted = sandbox_tool_policy({"tools": {"sandbox": {"tools": {"alsoAllow": ["Browser", "group:nodes"]}}}}, None)
    assert lifted.deny is not None and not {"browser", "nodes", "computer", "mobile_ui"} & set(lifted.deny)
    assert lifted.allow == (*SANDBOX_DEFAULT_ALLOW, "browser", "nodes", "computer", "mobile_ui")
    image = sandbox_tool_policy({"tools": {"sandbox": {"tools": {"deny": ["image"], "allow": ["read"]}}}}, None)
    assert image == ToolPolicy(allow=("read",), deny=("image", "view_image"))
    empty = sandbox_tool_policy({"tools": {"sandbox": {"tools": {"allow": [], "deny": []}}}}, None)
    assert empty == ToolPolicy(allow=(), deny=()) and names([PolicyStep("s", empty)]) == ALL


# --- plugin tools (§3.1–§3.2) -------------------------------------------------------------------------------

HOOKPLUG = PluginDeclaration("hookplug", ("echo_tool", "fail_tool", "img_tool", "noschema_tool", "raw_tool"))


def served(config: dict[str, Any], plugin: PluginDeclaration = HOOKPLUG, context: Context | None = None) -> list[str]:
    ctx = context or {}
    policy = plugin_tools_policy(config, agent_id=ctx.get("agent_id"), session_key=ctx.get("session_key"))
    if not plugin_selected(plugin, policy):
        return []
    optional = set(plugin.optional_tools)
    kept = [
        name for name in plugin.declared if plugin_tool_selected(plugin, name, optional=name in optional, policy=policy)
    ]
    tools = [PolicyTool(name, plugin.plugin_id) for name in kept]
    return [tool.name for tool in apply_pipeline(tools, policy.steps, identity=lambda tool: tool, warn=lambda _: None)]


FIVE = list(HOOKPLUG.tools)
PLUGIN_TABLE: list[tuple[str, dict[str, Any], Context, list[str]]] = [
    ("none", {}, {}, FIVE),
    ("minimal", {"tools": {"profile": "minimal"}}, {}, []),
    ("coding", {"tools": {"profile": "coding"}}, {}, []),
    ("coding + alsoAllow hookplug", {"tools": {"profile": "coding", "alsoAllow": ["hookplug"]}}, {}, FIVE),
    ("deny echo_tool, browser", {"tools": {"deny": ["echo_tool", "browser"]}}, {}, FIVE[1:]),
    ("deny hookplug", {"tools": {"deny": ["hookplug"]}}, {}, []),
    ("allow echo_tool, no session", {"tools": {"allow": ["echo_tool"]}}, {}, FIVE),
    (
        "agent deny fail_*",
        {"agents": {"entries": {"main": {"tools": {"deny": ["fail_*"]}}}}},
        SESSION,
        [name for name in FIVE if name != "fail_tool"],
    ),
]


@pytest.mark.parametrize(("label", "config", "context", "expected"), PLUGIN_TABLE, ids=[row[0] for row in PLUGIN_TABLE])
def test_plugin_tool_selection_reproduces_the_observed_table(
    label: str, config: dict[str, Any], context: Context, expected: list[str]
) -> None:
    assert served(config, context=context) == expected, label


def test_the_plugin_tools_policy_has_steps_only_with_a_session_context() -> None:
    config = {"tools": {"profile": "minimal", "alsoAllow": ["x"], "deny": [" a ", "a"]}}
    without = plugin_tools_policy(config, agent_id=None, session_key=None)
    assert without.steps == () and without.allowlist == (
        "session_status",
        "gateway",
        "x",
        "__openclaw_default_plugin_tools__",
    )
    assert without.denylist == ("a", "a")
    with_context = plugin_tools_policy(config, **SESSION)
    assert [step.label for step in with_context.steps][:5:2] == [
        "tools.profile (minimal)",
        "tools.allow",
        "agents.main.tools.allow",
    ]
    assert all(step.suppress_core_warnings and step.warn_unknown for step in with_context.steps)
    implicit = plugin_tools_policy({"tools": {"alsoAllow": ["echo_tool"]}}, agent_id=None, session_key=None)
    assert implicit.allowlist == ("echo_tool", "__openclaw_default_plugin_tools__")


def test_optional_tools_need_the_plugin_id_or_their_name() -> None:
    plugin = PluginDeclaration("p", ("a",), optional_tools=("b",))
    assert served({}, plugin) == ["a"]
    assert served({"tools": {"alsoAllow": ["b"]}}, plugin) == ["a", "b"]  # defaults kept, b named
    assert served({"tools": {"allow": ["p"]}}, plugin) == ["a", "b"]
    assert served({"tools": {"allow": ["group:plugins"]}}, plugin) == ["a", "b"]
    only_optional = PluginDeclaration("q", (), optional_tools=("b",))
    assert served({}, only_optional) == [] and served({"tools": {"allow": ["b*"]}}, only_optional) == ["b"]
    policy = plugin_tools_policy({"tools": {"allow": ["a"]}}, agent_id=None, session_key=None)
    assert plugin_tool_selected(plugin, "a", optional=True, policy=policy)  # named by the allow list
    assert not plugin_tool_selected(plugin, "b", optional=False, policy=policy)  # declared optional


def test_a_registration_qualifies_through_one_of_its_allowed_names() -> None:
    policy = plugin_tools_policy({"tools": {"allow": ["a"]}}, agent_id=None, session_key=None)
    two = PluginDeclaration("r", ("a", "c"))
    assert plugin_tool_selected(two, "c", optional=False, policy=policy)  # one registration for both names
    assert not plugin_tool_selected(two, "c", optional=False, policy=policy, registration_names=["c"])
    assert plugin_tool_selected(two, "a", optional=False, policy=policy, registration_names=["a"])
    assert not plugin_tool_selected(two, "c", optional=True, policy=policy)


def test_disabled_plugins_or_a_plugin_wide_deny_select_nothing() -> None:
    assert served({"plugins": {"enabled": False}}) == []
    assert served({"tools": {"deny": ["*"]}}) == [] and served({"tools": {"deny": ["group:*"]}}) == []
    assert served({"tools": {"deny": ["HOOK*"]}}) == []
    assert served({"tools": {"deny": FIVE}}) == []


# --- properties ---------------------------------------------------------------------------------------------

_NAME = st.text(alphabet="abAB_", min_size=1, max_size=4)
_ENTRY = st.one_of(_NAME, _NAME.map(lambda text: text + "*"), st.just("*"), st.just("bundle-mcp"), st.just("p"))
_TOOLS = st.lists(st.builds(PolicyTool, _NAME, st.sampled_from([None, "p", "bundle-mcp"])), max_size=8)
_LIST = st.one_of(st.none(), st.lists(_ENTRY, max_size=4).map(tuple))


def _kept(tools: list[PolicyTool], *policies: ToolPolicy) -> list[int]:
    steps = [PolicyStep(label=f"s{i}", policy=policy, warn_unknown=True) for i, policy in enumerate(policies)]
    return apply_pipeline(list(range(len(tools))), steps, identity=tools.__getitem__, warn=lambda _: None)


@given(_TOOLS, _LIST, _LIST, st.data())
def test_a_denied_tool_never_survives(tools: list[PolicyTool], allow: Any, deny: Any, data: st.DataObject) -> None:
    if not tools:
        return
    victim = data.draw(st.sampled_from(tools))
    denied = (*(deny or ()), victim.name.swapcase())
    assert all(tools[i].name.lower() != victim.name.lower() for i in _kept(tools, ToolPolicy(allow, denied)))


@given(_TOOLS, _LIST, _LIST)
def test_matching_ignores_case(tools: list[PolicyTool], allow: Any, deny: Any) -> None:
    def swap(values: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if values is None else tuple(value.swapcase() for value in values)

    swapped = ToolPolicy(swap(allow), swap(deny))
    assert _kept(tools, ToolPolicy(allow, deny)) == _kept(tools, swapped)


@given(_TOOLS, _LIST, _LIST, _ENTRY)
def test_adding_a_deny_entry_never_adds_a_tool(tools: list[PolicyTool], allow: Any, deny: Any, extra: str) -> None:
    before = set(_kept(tools, ToolPolicy(allow, deny)))
    assert set(_kept(tools, ToolPolicy(allow, (*(deny or ()), extra)))) <= before


@given(_TOOLS, _LIST)
def test_a_lone_star_allows_everything_not_denied(tools: list[PolicyTool], deny: Any) -> None:
    assert _kept(tools, ToolPolicy(("*",), deny)) == _kept(tools, ToolPolicy(None, deny))
    assert _kept(tools, ToolPolicy(("*",))) == list(range(len(tools)))


@given(_TOOLS, st.lists(st.builds(ToolPolicy, _LIST, _LIST), max_size=3))
def test_the_result_is_an_ordered_subsequence_of_the_input(tools: list[PolicyTool], policies: list[ToolPolicy]) -> None:
    kept = _kept(tools, *policies)
    assert kept == sorted(set(kept)) and all(0 <= i < len(tools) for i in kept)
    assert set(kept) == set.intersection(set(range(len(tools))), *(set(_kept(tools, policy)) for policy in policies))
