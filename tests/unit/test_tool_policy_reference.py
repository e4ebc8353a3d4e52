# ruff: noqa: E501 - the embedded JavaScript probe keeps its long lines
"""``domain.tool_policy`` against the installed reference OpenClaw 2026.9.6 (plugin-tools.md §12 step 5;
tool-policy-and-lifecycle.md §6 step 3): the catalog tables, ``check/pol.mjs`` (policy table, warnings, server
deny matcher) and a probe script (written here, into a temporary directory) that feeds the same inputs to the
reference's own policy functions. Skipped when the reference is absent (a failure under CI)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.domain.tool_policy import (
    SANDBOX_DEFAULT_ALLOW,
    SANDBOX_DEFAULT_DENY,
    TOOL_GROUPS,
    TOOL_PROFILES,
    DeclaredTools,
    PolicyStep,
    PolicyTool,
    ToolPolicy,
    apply_pipeline,
    default_pipeline_steps,
    explicit_deny_entries,
    normalize_tool_policy_name,
    pick_policy,
    profile_policy,
    sandbox_tool_policy,
    server_denied_by_tool_policy,
    session_pipeline_steps,
    tools_allow_permits_mcp_runtime,
)
from tests.docker.gateway_harness import Reference, find_reference, running_under_ci
from tests.fixtures.reference_cases import CHECK
from tests.unit.test_tool_policy import POLICY_TABLE, TOOLS

pytestmark = pytest.mark.reference

POL_MJS = CHECK / "pol.mjs"

PROBE = r"""
import fs from "node:fs";
const d = process.env.OPENCLAW_REFERENCE_DIR + "/node_modules/openclaw/dist/";
const load = (name) => import(d + name);
const cat = await load("tool-catalog-CLTpLFor.mjs");
const shared = await load("tool-policy-shared-auQCQEhM.mjs");
const tp = await load("tool-policy-YDdaK0oX.mjs");
const sb = await load("sandbox-tool-policy-Dp4rlIlG.mjs");
const pipe = await load("tool-policy-pipeline-BjUxseTY.mjs");
const match = await load("tool-policy-match-Bv2XOvEF.mjs");
const consts = await load("constants-D1dHTp_E.mjs");
const sbx = await load("tool-policy-C8ci7WKM.mjs");
const plan = await load("attempt-tool-construction-plan-DN-5OrUy.mjs");
const ap = await load("agent-tools.policy-CN7PMMey.mjs");
const cp = await load("conversation-capability-profile-EUPtpcbI.mjs");
const cpp = await load("conversation-tool-policy-pipeline-lj6t0cRI.mjs");
const IMPLICIT = Symbol.for("openclaw.toolPolicy.implicitAllowAllFromAlsoAllow");
const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const pol = (p) => p ? { allow: p.allow ?? null, deny: p.deny ?? null, implicit: p[IMPLICIT] === true } : null;
const jsPolicy = (p) => p ? { ...(p.allow ? { allow: p.allow } : {}), ...(p.deny ? { deny: p.deny } : {}) } : undefined;
function run(toolList, steps, declared) {
  const meta = new Map();
  const tools = toolList.map(([name, pluginId]) => { const t = { name }; if (pluginId !== null) meta.set(t, { pluginId }); return t; });
  const warns = [];
  const out = pipe.t({ tools, toolMeta: (t) => meta.get(t), warn: (w) => warns.push(w), steps, declaredToolAllowlist: declared });
  return { names: out.map((t) => t.name), warns };
}
function session(c) {
  try {
    const effective = ap.n({ config: c.config, agentId: c.agentId ?? undefined, sessionKey: c.sessionKey ?? undefined });
    const capabilityProfile = cp.t({
      config: c.config, agentId: c.agentId ?? undefined, sessionKey: c.sessionKey ?? undefined,
      sandboxToolPolicy: c.sandboxed ? sbx.r(c.config, effective.agentId) : undefined,
    });
    const steps = cpp.t({ capabilityProfile, policies: cpp.i({ capabilityProfile }), includeRuntimeToolPolicy: false });
    const suppressed = steps.map((s) => Object.assign({}, s, { suppressUnavailableCoreToolWarning: true }));
    return {
      agentId: effective.agentId ?? null,
      steps: steps.map((s) => ({
        label: s.label, policy: pol(s.policy), warn: s.stripPluginOnlyAllowlist === true,
        suppress: s.suppressUnavailableCoreToolWarning === true, exempt: s.suppressUnavailableCoreToolWarningAllowlist ?? [],
      })),
      deny: capabilityProfile.policy.explicitToolDenylist,
      run: run(c.tools, suppressed),
    };
  } catch (error) {
    return { error: String(error.message) };
  }
}
const stepOf = (s) => ({
  label: s.label, policy: jsPolicy(s.policy), stripPluginOnlyAllowlist: s.warn, suppressUnavailableCoreToolWarning: s.suppress,
  suppressUnavailableCoreToolWarningAllowlist: s.exempt, unavailableCoreToolReason: s.reason ?? undefined,
});
console.log(JSON.stringify({
  groups: cat.t,
  profiles: Object.fromEntries(["minimal", "coding", "messaging", "full", "Coding", "constructor"].map((p) => [p, pol(cat.a(p))])),
  sandboxDefaults: { allow: consts.m, deny: consts.h },
  names: cases.names.map((n) => shared.l(n)),
  pick: cases.pick.map((s) => pol(sb.n(s))),
  profile: cases.profile.map(([p, a]) => pol(tp.l(shared.d(p), a))),
  pipelines: cases.pipelines.map((c) => run(c.tools, c.steps.map(stepOf), c.declared ?? undefined)),
  sessions: cases.sessions.map(session),
  sandbox: cases.sandbox.map(([cfg, agent]) => { const p = sbx.r(cfg, agent ?? undefined); return { allow: p.allow, deny: p.deny }; }),
  gate: cases.gate.map(([allow, ns]) => plan.a({ toolsEnabled: true, toolsAllow: allow, resolveConfiguredMcpNamespaces: () => ns })),
  serverDeny: cases.serverDeny.map(([deny, s]) => match.t(deny)(s)),
}));
"""


@pytest.fixture(scope="module")
def reference() -> Reference:
    found = find_reference()
    if found is None:
        if running_under_ci():
            pytest.fail(
                "the reference OpenClaw 2026.9.6 is not installed (tests/docker/gateway_harness.find_reference)"
            )
        pytest.skip("the reference OpenClaw 2026.9.6 is not installed")
    return found


def run_node(reference: Reference, tmp: Path, *args: str) -> str:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "OPENCLAW_STATE_DIR": str(tmp / "state"),
        "OPENCLAW_CONFIG_PATH": str(tmp / "state" / "openclaw.json"),
        "OPENCLAW_REFERENCE_DIR": str(reference.root),
    }
    done = subprocess.run(
        [str(reference.node), *args], env=env, cwd=tmp, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- check/pol.mjs ----------------------------------------------------------------------------------------

POL_RUNS: list[tuple[str, dict[str, Any]]] = [
    ("none", {}),
    ("minimal", {"profile": "minimal"}),
    ("minimal+alsoAllow bundle-mcp", {"profile": "minimal", "alsoAllow": ["bundle-mcp"]}),
    ("coding", {"profile": "coding"}),
    ("messaging", {"profile": "messaging"}),
    ("deny docs__*", {"tools": {"deny": ["docs__*"]}}),
    ("deny DOCS__Read_Docs", {"tools": {"deny": ["DOCS__Read_Docs"]}}),
    ("deny read_docs (raw)", {"tools": {"deny": ["read_docs"]}}),
    ("deny bundle-mcp", {"tools": {"deny": ["bundle-mcp"]}}),
    ("deny group:plugins", {"tools": {"deny": ["group:plugins"]}}),
    ("allow docs__read_docs", {"tools": {"allow": ["docs__read_docs"]}}),
    ("alsoAllow only memory__*", {"tools": {"alsoAllow": ["memory__*"]}}),
    ("agent deny memory__status", {"agent": {"deny": ["memory__status"]}}),
    ("global allow * agent deny docs__*", {"tools": {"allow": ["*"]}, "agent": {"deny": ["docs__*"]}}),
]


def our_pol_output() -> tuple[list[str], list[str]]:
    lines: list[str] = []
    warnings: list[str] = []
    for label, spec in POL_RUNS:
        steps = default_pipeline_steps(
            profile_policy=profile_policy(spec.get("profile"), spec.get("alsoAllow")),
            profile=spec.get("profile"),
            global_policy=pick_policy(spec.get("tools")),
            agent_policy=pick_policy(spec.get("agent")),
            agent_id="main" if "agent" in spec else None,
        )
        kept = apply_pipeline(TOOLS, steps, identity=lambda tool: tool, warn=warnings.append)
        lines.append(label.ljust(34) + " " + json.dumps([tool.name for tool in kept], separators=(",", ":")))
    return lines, list(dict.fromkeys(warnings))  # the reference remembers warning texts process-wide


def test_pol_mjs_table_warnings_and_server_deny_lines_match_ours(reference: Reference, tmp_path: Path) -> None:
    if not POL_MJS.is_file():
        pytest.skip(f"{POL_MJS} is not available")
    output = run_node(reference, tmp_path, str(POL_MJS))
    table = [
        line for line in output.splitlines() if line[:1] != " " and not line.startswith(("WARNS", "serverDeny", "]"))
    ]
    lines, warnings = our_pol_output()
    assert table == lines
    warns_line = next(line for line in output.splitlines() if line.startswith("WARNS "))
    assert json.loads(warns_line[len("WARNS ") :]) == warnings
    pairs = re.findall(r"\[ '(\w+)', (true|false) \]", output)
    assert [(server, flag == "true") for server, flag in pairs] == [
        (server, server_denied_by_tool_policy(["Docs__*", "other__x"], server))
        for server in ("docs", "Docs", "other", "doc")
    ]
    last = next(line for line in output.splitlines() if line.startswith("serverDeny bundle-mcp"))
    ours = (
        server_denied_by_tool_policy(["BUNDLE-MCP"], "x"),
        server_denied_by_tool_policy(["group:plugins"], "x"),
        server_denied_by_tool_policy(["docs__search"], "docs"),
    )
    assert last == "serverDeny bundle-mcp {} group:plugins {} exact no star {}".format(*map(json.dumps, ours))


# --- the probe ----------------------------------------------------------------------------------------------

NAMES = [" Bash ", "APPLY-PATCH", "Cron", "\ufeffRead\u3000", "Memory__Status", "", "  ", None, 5]
PICK = [
    {"allow": ["a"], "alsoAllow": ["b", "a"]},
    {"allow": [], "alsoAllow": ["b"]},
    {"allow": []},
    {"alsoAllow": ["b"]},
    {"alsoAllow": [" * ", "b"]},
    {"alsoAllow": []},
    {"deny": ["x"], "allow": "read"},
    {"deny": []},
    {},
    None,
]
PROFILE = [["minimal", None], ["minimal", ["bundle-mcp", "gateway"]], ["full", ["x"]], ["Coding", ["x"]], [None, ["x"]]]


def _step(label: str, policy: ToolPolicy | None, **extra: Any) -> dict[str, Any]:
    return {
        "label": label,
        "policy": None if policy is None else {"allow": policy.allow, "deny": policy.deny},
        "warn": extra.get("warn", True),
        "suppress": extra.get("suppress", False),
        "exempt": list(extra.get("exempt", ())),
        "reason": extra.get("reason"),
    }


TOOL_ROWS = [[tool.name, tool.plugin_id] for tool in TOOLS]
APPLY = [["apply_patch", None], ["write", None], ["progress_card", None], ["show_widget", None], ["x\ny", "p"]]
PIPELINES: list[dict[str, Any]] = [
    {"tools": TOOL_ROWS, "steps": [_step("p0", ToolPolicy(allow=("nope", "Gateway", "group:fs", "read", "*")))]},
    {"tools": TOOL_ROWS, "steps": [_step("p1", ToolPolicy(allow=("gateway", "nope")), reason=" no gw ")]},
    {"tools": TOOL_ROWS, "steps": [_step("p2", ToolPolicy(allow=("gateway",)), reason="why")]},
    {"tools": TOOL_ROWS, "steps": [_step("p3", ToolPolicy(allow=("gateway", "nope", "other")), suppress=True)]},
    {"tools": TOOL_ROWS, "steps": [_step("p4", ToolPolicy(allow=("gateway", "nope")), exempt=("Gateway",))]},
    {"tools": TOOL_ROWS, "steps": [_step("p5", ToolPolicy(allow=("hookplug", "group:plugins", "*_tool", "re*")))]},
    {"tools": TOOL_ROWS, "steps": [_step("p6", ToolPolicy(allow=("docs__*",), deny=("HookPlug", "docs__read*")))]},
    {"tools": TOOL_ROWS[:3], "steps": [_step("p7", ToolPolicy(allow=("group:plugins", "bundle-mcp")))]},
    {"tools": APPLY, "steps": [_step("p8", ToolPolicy(allow=("wr*", "update_plan", "canvas", "x*y")))]},
    {"tools": APPLY, "steps": [_step("p9", ToolPolicy(allow=("write",), deny=("apply-patch",)), warn=False)]},
    {
        "tools": TOOL_ROWS[:3],
        "steps": [_step("p10", ToolPolicy(allow=("docs__later", "otherplug", "other_tool", "bundle-mcp", "x__y")))],
        "declared": {"pluginIds": ["OtherPlug"], "pluginToolNames": ["Other_Tool"], "mcpServerNames": ["docs"]},
    },
]

SESSIONS: list[dict[str, Any]] = [
    *({"config": config, "agentId": "main", "sessionKey": "agent:main:main"} for _, config, _ in POLICY_TABLE),
    {"config": {}},
    {"config": {}, "sandboxed": True},
    {"config": {"tools": {"sandbox": {"tools": {"alsoAllow": ["bundle-mcp"]}}}}, "sandboxed": True},
    {"config": {"agents": {"defaults": {"tools": {"profile": "minimal", "alsoAllow": ["bundle-mcp"], "deny": ["a"]}}}}},
    {"config": {"agents": {"entries": {"ops": {"tools": {"allow": ["read"]}}, "b": {}}}}, "sessionKey": "agent:Ops:x"},
    {"config": {"agents": {"entries": {"ops": {"tools": {"deny": ["exec"]}}}}}},
    {"config": {"agents": {"entries": {"a": {}, "b": {"default": True, "tools": {"deny": ["read"]}}}}}},
    {"config": {"agents": {"entries": {"a": {}, "b": {}}}}},
    {"config": {"agents": {"list": [{"id": "Legacy", "tools": {"profile": "messaging", "alsoAllow": ["echo_tool"]}}]}}},
    {"config": {"agents": {"entries": {}}, "tools": {"deny": ["exec"]}}, "sessionKey": "agent:zed:main"},
    {
        "config": {
            "tools": {"profile": "minimal", "alsoAllow": ["exec"], "sandbox": {"tools": {"deny": ["exec"]}}},
            "agents": {
                "entries": {"main": {"tools": {"profile": "coding", "sandbox": {"tools": {"allow": ["exec"]}}}}}
            },
        },
        "agentId": "Main",
        "sandboxed": True,
    },
    {"config": {"tools": {"profile": " coding ", "alsoAllow": ["nope", "browser"]}}, "agentId": "main"},
]
SANDBOX: list[list[Any]] = [
    [{}, None],
    [{"tools": {"sandbox": {"tools": {"alsoAllow": ["Browser", "group:nodes"]}}}}, None],
    [{"tools": {"sandbox": {"tools": {"deny": ["image"], "allow": ["read"]}}}}, None],
    [{"tools": {"sandbox": {"tools": {"allow": [], "deny": []}}}}, None],
    [{"tools": {"sandbox": {"tools": {"alsoAllow": ["*"]}}}}, None],
    [{"tools": {"sandbox": {"tools": {"deny": ["im*"]}}}}, None],
    [
        {
            "tools": {"sandbox": {"tools": {"allow": ["read"], "deny": ["exec"]}}},
            "agents": {"entries": {"main": {"tools": {"sandbox": {"tools": {"allow": ["group:web"]}}}}}},
        },
        "main",
    ],
]
GATE = [
    [allow, ["docs__", "memory__"]]
    for allow in ([], ["read"], ["docs__*"], ["bundle-mcp"], ["group:plugins"], ["doc*"], ["*"], ["x__y"], ["other*"])
]
SERVER_DENY = [
    [deny, server]
    for deny in (["Docs__*", "other__x"], ["docs*"], ["d*__*"], ["*"], ["docs__search"], [" group:plugins "], [])
    for server in ("docs", "Docs", "other", "doc")
]


def _policy_json(policy: ToolPolicy | None) -> dict[str, Any] | None:
    if policy is None:
        return None
    return {
        "allow": None if policy.allow is None else list(policy.allow),
        "deny": None if policy.deny is None else list(policy.deny),
        "implicit": policy.implicit_allow_all,
    }


@pytest.fixture(scope="module")
def probe(reference: Reference, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("tool-policy-probe")
    (tmp / "probe.mjs").write_text(PROBE, encoding="utf-8")
    cases = {
        "names": NAMES,
        "pick": PICK,
        "profile": PROFILE,
        "pipelines": PIPELINES,
        "sessions": [{**case, "tools": TOOL_ROWS} for case in SESSIONS],
        "sandbox": SANDBOX,
        "gate": GATE,
        "serverDeny": SERVER_DENY,
    }
    (tmp / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    result: dict[str, Any] = json.loads(run_node(reference, tmp, str(tmp / "probe.mjs"), str(tmp / "cases.json")))
    return result


def test_groups_profiles_and_sandbox_defaults_are_the_references(probe: dict[str, Any]) -> None:
    assert probe["groups"] == {group: list(members) for group, members in TOOL_GROUPS.items()}
    assert list(probe["groups"]) == list(TOOL_GROUPS)
    for name, policy in probe["profiles"].items():
        assert policy == _policy_json(profile_policy(name)), name
    assert set(TOOL_PROFILES) == {name for name, policy in probe["profiles"].items() if policy}
    assert probe["sandboxDefaults"] == {"allow": list(SANDBOX_DEFAULT_ALLOW), "deny": list(SANDBOX_DEFAULT_DENY)}


def test_names_sections_and_profiles_match_the_reference(probe: dict[str, Any]) -> None:
    assert probe["names"] == [normalize_tool_policy_name(name) for name in NAMES]
    assert probe["pick"] == [_policy_json(pick_policy(section)) for section in PICK]
    assert probe["profile"] == [_policy_json(profile_policy(name, also)) for name, also in PROFILE]


def _steps(rows: list[dict[str, Any]]) -> list[PolicyStep]:
    def tuple_or_none(values: Any) -> tuple[str, ...] | None:
        return None if values is None else tuple(values)

    return [
        PolicyStep(
            label=row["label"],
            policy=None
            if row["policy"] is None
            else ToolPolicy(tuple_or_none(row["policy"]["allow"]), tuple_or_none(row["policy"]["deny"])),
            warn_unknown=row["warn"],
            suppress_core_warnings=row["suppress"],
            core_warning_exempt=tuple(row["exempt"]),
            unavailable_core_reason=row["reason"],
        )
        for row in rows
    ]


def _run(tools: list[list[Any]], steps: list[PolicyStep], declared: DeclaredTools | None = None) -> dict[str, Any]:
    warnings: list[str] = []
    kept = apply_pipeline(
        [PolicyTool(name, plugin) for name, plugin in tools],
        steps,
        identity=lambda tool: tool,
        warn=warnings.append,
        declared=declared,
    )
    return {"names": [tool.name for tool in kept], "warns": warnings}


def test_pipelines_and_their_warnings_match_the_reference(probe: dict[str, Any]) -> None:
    for case, expected in zip(PIPELINES, probe["pipelines"], strict=True):
        raw = case.get("declared")
        declared = (
            None
            if raw is None
            else DeclaredTools(tuple(raw["pluginIds"]), tuple(raw["pluginToolNames"]), tuple(raw["mcpServerNames"]))
        )
        assert _run(case["tools"], _steps(case["steps"]), declared) == expected, case["steps"][0]["label"]


def test_session_pipelines_match_the_references_conversation_pipeline(probe: dict[str, Any]) -> None:
    for case, expected in zip(SESSIONS, probe["sessions"], strict=True):
        context = {"agent_id": case.get("agentId"), "session_key": case.get("sessionKey")}
        steps = session_pipeline_steps(
            case["config"], **context, sandboxed=case.get("sandboxed", False), suppress_core_warnings=False
        )
        if "error" in expected:  # the reference refuses to pick an agent: we resolve none (no agent layer)
            assert steps[4].label == "agent tools.allow" and steps[4].policy is None, (case, expected["error"])
            continue
        reference_steps = [
            step for step in expected["steps"] if step["label"] not in ("subagent tools.allow", "inherited tools")
        ]
        assert all(step["policy"] is None for step in expected["steps"][len(reference_steps) :]), case
        ours = [
            {
                "label": step.label,
                "policy": _policy_json(step.policy),
                "warn": step.warn_unknown,
                "suppress": step.suppress_core_warnings,
                "exempt": list(step.core_warning_exempt),
            }
            for step in steps
        ]
        assert ours == reference_steps, case
        assert list(explicit_deny_entries(steps)) == expected["deny"], case
        mcp_path = session_pipeline_steps(case["config"], **context, sandboxed=case.get("sandboxed", False))
        assert _run([[tool.name, tool.plugin_id] for tool in TOOLS], mcp_path) == expected["run"], case


def test_sandbox_gates_match_the_reference(probe: dict[str, Any]) -> None:
    for (config, agent), expected in zip(SANDBOX, probe["sandbox"], strict=True):
        policy = sandbox_tool_policy(config, agent)
        assert {"allow": list(policy.allow or ()), "deny": list(policy.deny or ())} == expected, config


def test_the_tools_allow_gate_and_server_exclusion_match_the_reference(probe: dict[str, Any]) -> None:
    for (allow, namespaces), expected in zip(GATE, probe["gate"], strict=True):
        safe_names = [namespace.removesuffix("__") for namespace in namespaces]
        assert tools_allow_permits_mcp_runtime(allow, safe_names) is expected, allow
    for (deny, server), expected in zip(SERVER_DENY, probe["serverDeny"], strict=True):
        assert server_denied_by_tool_policy(deny, server) is expected, (deny, server)
