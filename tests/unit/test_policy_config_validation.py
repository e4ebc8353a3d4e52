"""Malformed tool-policy config (``tools``, ``agents.entries.<id>.tools``, their ``sandbox.tools``) is a config
validation error with the reference's issue paths, texts and order (observed with OpenClaw 2026.9.6); the
registry commands then print the invalid-config block (cli-registry §1.4) and exit 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mcp.domain.validation import validate_config
from openclaw_mcp.domain.validation_tools import TOOL_PROFILES

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main", "mcp"]

PROFILE = 'Invalid input (allowed: "minimal", "coding", "messaging", "full")'
ADVICE = "(merge alsoAllow into allow, or remove allow and use profile + alsoAllow)"
TOOLS_CONFLICT = f"tools cannot set both allow and alsoAllow in the same scope {ADVICE}"
AGENT_CONFLICT = f"agent tools cannot set both allow and alsoAllow in the same scope {ADVICE}"
POLICY_CONFLICT = f"tools policy cannot set both allow and alsoAllow in the same scope {ADVICE}"

Row = tuple[str, str, tuple[str, ...] | None]


def issues(root: Any) -> list[Row]:
    return [(issue.dotted, issue.message, issue.allowed_values) for issue in validate_config(root)]


def _agent(tools: Any) -> dict[str, Any]:
    return {"agents": {"entries": {"main": {"tools": tools}}}}


def _sandbox(tools: Any) -> dict[str, Any]:
    return {"tools": {"sandbox": {"tools": tools}}}


# (config, issues) as the reference reports them (`openclaw mcp list`, 2026.9.6).
CASES: list[tuple[str, Any, list[Row]]] = [
    (
        "unknown-profile",
        {"tools": {"profile": "bogus"}, "mcp": {"servers": {}}},
        [("tools.profile", PROFILE, TOOL_PROFILES)],
    ),
    ("profile-wrong-case", {"tools": {"profile": "Coding"}}, [("tools.profile", PROFILE, TOOL_PROFILES)]),
    ("profile-not-a-string", {"tools": {"profile": 5}}, [("tools.profile", PROFILE, TOOL_PROFILES)]),
    (
        "allow-not-a-list",
        {"tools": {"allow": "read"}},
        [("tools.allow", "Invalid input: expected array, received string", None)],
    ),
    (
        "allow-number-element",
        {"tools": {"allow": [1]}},
        [("tools.allow.0", "Invalid input: expected string, received number", None)],
    ),
    ("deny-object", {"tools": {"deny": {}}}, [("tools.deny", "Invalid input: expected array, received object", None)]),
    (
        "null-list-and-null-element",
        {"tools": {"allow": None, "deny": [None]}},
        [
            ("tools.allow", "Invalid input: expected array, received null", None),
            ("tools.deny.0", "Invalid input: expected string, received null", None),
        ],
    ),
    ("allow-and-also-allow", {"tools": {"allow": ["a"], "alsoAllow": ["b"]}}, [("tools", TOOLS_CONFLICT, None)]),
    ("tools-not-an-object", {"tools": "x"}, [("tools", "Invalid input: expected object, received string", None)]),
    (
        "aborting-profile-skips-the-conflict",
        {"tools": {"profile": "bogus", "allow": ["a"], "alsoAllow": ["b"]}},
        [("tools.profile", PROFILE, TOOL_PROFILES)],
    ),
    (
        "agent-scope-every-field",
        _agent({"profile": "bogus", "allow": "read", "alsoAllow": [""], "deny": {}}),
        [
            ("agents.entries.main.tools.profile", PROFILE, TOOL_PROFILES),
            ("agents.entries.main.tools.allow", "Invalid input: expected array, received string", None),
            ("agents.entries.main.tools.deny", "Invalid input: expected array, received object", None),
        ],
    ),
    (
        "agent-aborting-element-skips-the-conflict",
        _agent({"allow": [1], "alsoAllow": ["x"]}),
        [("agents.entries.main.tools.allow.0", "Invalid input: expected string, received number", None)],
    ),
    (
        "agent-conflict",
        _agent({"allow": ["a"], "alsoAllow": ["b"]}),
        [("agents.entries.main.tools", AGENT_CONFLICT, None)],
    ),
    (
        "agent-tools-not-an-object",
        _agent("x"),
        [("agents.entries.main.tools", "Invalid input: expected object, received string", None)],
    ),
    (
        "agent-entry-not-an-object",
        {"agents": {"entries": {"main": "x"}}},
        [("agents.entries.main", "Invalid input: expected object, received string", None)],
    ),
    (
        "entries-not-a-record",
        {"agents": {"entries": "x"}},
        [("agents.entries", "Invalid input: expected record, received string", None)],
    ),
    ("agents-not-an-object", {"agents": "x"}, [("agents", "Invalid input: expected object, received string", None)]),
    (
        "invalid-agent-id-is-not-validated-further",
        {"agents": {"entries": {"bad id!": {"tools": {"allow": "x"}}}}},
        [("agents.entries.bad id!", "Invalid key in record", None)],
    ),
    (
        "blocked-key-stops-the-entry",
        {"agents": {"entries": {"main": {"constructor": 1, "tools": {"allow": "x"}}}}},
        [("agents.entries.main.constructor", "agent entries must not contain blocked object keys", None)],
    ),
    (
        "entries-in-javascript-key-order",
        {
            "agents": {
                "ownership": "explicit",
                "entries": {"b": {"tools": {"deny": "x"}}, "10": {"tools": {"deny": "y"}}},
            }
        },
        [
            ("agents.entries.10.tools.deny", "Invalid input: expected array, received string", None),
            ("agents.entries.b.tools.deny", "Invalid input: expected array, received string", None),
        ],
    ),
    (
        "sandbox-every-field",
        _sandbox({"allow": "read", "alsoAllow": [2], "deny": {}}),
        [
            ("tools.sandbox.tools.allow", "Invalid input: expected array, received string", None),
            ("tools.sandbox.tools.alsoAllow.0", "Invalid input: expected string, received number", None),
            ("tools.sandbox.tools.deny", "Invalid input: expected array, received object", None),
        ],
    ),
    (
        "sandbox-conflict",
        _sandbox({"allow": ["a"], "alsoAllow": ["b"]}),
        [("tools.sandbox.tools", POLICY_CONFLICT, None)],
    ),
    (
        "sandbox-not-an-object",
        {"tools": {"sandbox": "x"}},
        [("tools.sandbox", "Invalid input: expected object, received string", None)],
    ),
    (
        "sandbox-tools-not-an-object",
        _sandbox("x"),
        [("tools.sandbox.tools", "Invalid input: expected object, received string", None)],
    ),
    (
        "both-conflicts-inner-first",
        {"tools": {"allow": ["a"], "alsoAllow": ["b"], "sandbox": {"tools": {"allow": ["a"], "alsoAllow": ["b"]}}}},
        [("tools.sandbox.tools", POLICY_CONFLICT, None), ("tools", TOOLS_CONFLICT, None)],
    ),
    (
        "aborting-sandbox-skips-the-outer-conflict",
        {"tools": {"allow": ["a"], "alsoAllow": ["b"], "sandbox": {"tools": {"deny": "x"}}}},
        [("tools.sandbox.tools.deny", "Invalid input: expected array, received string", None)],
    ),
    (
        "unknown-sandbox-keys-do-not-abort",
        {"tools": {"allow": ["a"], "alsoAllow": ["b"], "sandbox": {"foo": 2, "tools": {"foo": 1, "bar": 2}}}},
        [
            ("tools.sandbox.tools", 'Unrecognized keys: "foo", "bar"', None),
            ("tools.sandbox", 'Unrecognized key: "foo"', None),
            ("tools", TOOLS_CONFLICT, None),
        ],
    ),
    (
        "agent-sandbox-and-agent-conflicts",
        _agent({"allow": ["a"], "alsoAllow": ["b"], "sandbox": {"tools": {"allow": ["a"], "alsoAllow": ["c"]}}}),
        [
            ("agents.entries.main.tools.sandbox.tools", POLICY_CONFLICT, None),
            ("agents.entries.main.tools", AGENT_CONFLICT, None),
        ],
    ),
    (
        "agent-sandbox-field",
        _agent({"profile": "full", "sandbox": {"tools": {"deny": 5}}}),
        [("agents.entries.main.tools.sandbox.tools.deny", "Invalid input: expected array, received number", None)],
    ),
    (
        "schema-order-agents-tools-mcp-whatever-the-file-order",
        {
            "mcp": {"servers": {"a": {"command": 5}}},
            "tools": {"allow": "x"},
            "agents": _agent({"allow": "x"})["agents"],
        },
        [
            ("agents.entries.main.tools.allow", "Invalid input: expected array, received string", None),
            ("tools.allow", "Invalid input: expected array, received string", None),
            ("mcp.servers.a.command", "Invalid input: expected string, received number", None),
        ],
    ),
]

VALID: list[tuple[str, Any]] = [
    ("profile-and-lists", {"tools": {"profile": "coding", "allow": ["read"], "deny": ["exec"]}}),
    ("empty-strings-are-tool-names", {"tools": {"alsoAllow": [""]}}),
    ("empty-allow-is-no-conflict", {"tools": {"allow": [], "alsoAllow": ["b"]}}),
    ("every-profile", {"agents": {"entries": {p: {"tools": {"profile": p}} for p in TOOL_PROFILES}}}),
    ("agent-policy", _agent({"profile": "minimal", "alsoAllow": ["bundle-mcp"], "deny": ["docs__*"]})),
    ("sandbox-policy", _sandbox({"alsoAllow": ["bundle-mcp", "group:plugins"], "deny": []})),
    ("empty-entries", {"agents": {"entries": {}}}),
    # Opaque here (the reference reports unknown tools keys and migrates agents.list before validating).
    ("other-tools-fields-are-opaque", {"tools": {"exec": {"host": "gateway"}, "web": 5, "byProvider": "x"}}),
    ("other-agents-fields-are-opaque", {"agents": {"defaults": {"tools": {"allow": "x"}}, "list": [1]}}),
    ("proto-keys-never-reach-the-schema", {"tools": {"__proto__": 1}, "agents": {"entries": {"__proto__": 1}}}),
]


@pytest.mark.parametrize(("config", "expected"), [pytest.param(c, e, id=i) for i, c, e in CASES])
def test_malformed_policy_config_reports_the_reference_issues(config: Any, expected: list[Row]) -> None:
    assert issues(config) == expected


@pytest.mark.parametrize("config", [pytest.param(c, id=i) for i, c in VALID])
def test_well_formed_policy_config_stays_valid(config: Any) -> None:
    assert issues(config) == []


def test_agent_ids_match_the_reference_pattern_in_ascii_only() -> None:
    def entry_issue(key: str) -> list[Row]:
        return issues({"agents": {"entries": {key: {}}}})

    assert entry_issue("_a-1") == []
    assert entry_issue("A" * 64) == []
    for bad in ("", "-a", "a.b", "A" * 65, "\u212a", "a\n"):  # Kelvin sign: no case folding outside ASCII
        assert entry_issue(bad) == [(f"agents.entries.{bad}", "Invalid key in record", None)], bad


_NAMES = st.text(alphabet="abcdefgh_-*:", max_size=6)
_LIST = st.lists(_NAMES, max_size=3)
_KEYS = st.sampled_from(["allow", "alsoAllow", "deny"])


@st.composite
def _policy(draw: st.DrawFn, *, profile: bool) -> dict[str, Any]:
    policy: dict[str, Any] = {key: draw(_LIST) for key in draw(st.sets(_KEYS))}
    if policy.get("allow") and policy.get("alsoAllow"):
        del policy[draw(st.sampled_from(["allow", "alsoAllow"]))]
    if profile and draw(st.booleans()):
        policy["profile"] = draw(st.sampled_from(TOOL_PROFILES))
    return policy


@settings(max_examples=60, deadline=None)
@given(
    tools=_policy(profile=True),
    sandbox=_policy(profile=False),
    agent=_policy(profile=True),
    opaque=st.dictionaries(st.sampled_from(["exec", "web", "fs", "zzz"]), st.integers(), max_size=2),
)
def test_any_conflict_free_policy_is_valid_whatever_the_opaque_fields(
    tools: dict[str, Any], sandbox: dict[str, Any], agent: dict[str, Any], opaque: dict[str, int]
) -> None:
    config = {
        "tools": {**tools, **opaque, "sandbox": {"tools": sandbox}},
        "agents": {"entries": {"main": {**opaque, "tools": {**agent, **opaque}}}},
    }
    assert issues(config) == []


@settings(max_examples=60, deadline=None)
@given(
    key=_KEYS,
    names=st.lists(st.one_of(_NAMES, st.integers(), st.none(), st.booleans()), max_size=5),
    scope=st.sampled_from(["tools", "agents.entries.main.tools", "tools.sandbox.tools"]),
)
def test_every_non_string_list_entry_is_reported_at_its_index(key: str, names: list[Any], scope: str) -> None:
    policy = {key: names}
    config: dict[str, Any] = {
        "tools": {"tools": policy},
        "agents.entries.main.tools": _agent(policy),
        "tools.sandbox.tools": _sandbox(policy),
    }[scope]
    expected = [
        (f"{scope}.{key}.{index}", f"Invalid input: expected string, received {_js_type(name)}", None)
        for index, name in enumerate(names)
        if not isinstance(name, str)
    ]
    assert issues(config) == expected


def _js_type(value: object) -> str:
    if value is None:
        return "null"
    return "boolean" if isinstance(value, bool) else "number"


# --- through a CLI process ------------------------------------------------------------------------------


def _run(state: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run([*CLI, *argv], env=env, cwd=state, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path


BAD = {
    "agents": {"entries": {"main": {"tools": {"allow": "read"}}}},
    "tools": {"profile": "bogus", "sandbox": {"tools": {"deny": [1]}}},
    "mcp": {"servers": {"docs": {"command": "uvx"}}},
}
BAD_LINES = [
    "  - openclaw.json:6 — agents.entries.main.tools.allow: Invalid input: expected array, received string",
    "  - openclaw.json:12 — tools.profile: "
    'Invalid input (allowed: "minimal", "coding", "messaging", "full"), got: "bogus"',
    "  - openclaw.json:16 — tools.sandbox.tools.deny[0]: Invalid input: expected string, received number",
]


def _write(state: Path, config: Any) -> str:
    text = json.dumps(config, indent=2) + "\n"
    (state / "openclaw.json").write_text(text)
    return text


def _problem_lines(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    start = lines.index("Problem:") + 1
    end = next(index for index in range(start, len(lines)) if not lines[index].startswith("  - "))
    return lines[start:end]


def test_list_refuses_a_malformed_policy_with_the_invalid_config_block_and_leaves_the_file(state: Path) -> None:
    text = _write(state, BAD)
    result = _run(state, "list")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("OpenClaw config is invalid\n")
    assert _problem_lines(result.stderr) == BAD_LINES
    assert 'Run "openclaw doctor --fix" to repair the config, then retry.' in result.stderr
    assert (state / "openclaw.json").read_text() == text
    assert sorted(path.name for path in state.iterdir()) == ["home", "openclaw.json"]


def test_list_json_reports_the_policy_issues_with_allowed_values(state: Path) -> None:
    _write(state, BAD)
    result = _run(state, "list", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["issues"] == [
        {"path": "agents.entries.main.tools.allow", "message": "Invalid input: expected array, received string"},
        {"path": "tools.profile", "message": PROFILE, "allowedValues": list(TOOL_PROFILES)},
        {"path": "tools.sandbox.tools.deny.0", "message": "Invalid input: expected string, received number"},
    ]


def test_doctor_shows_the_policy_issue(state: Path) -> None:
    text = _write(
        state, {"tools": {"allow": ["a"], "alsoAllow": ["b"]}, "mcp": {"servers": {"docs": {"command": "uvx"}}}}
    )
    result = _run(state, "doctor")
    assert result.returncode == 1
    assert _problem_lines(result.stderr) == [f"  - openclaw.json:2 — tools: {TOOLS_CONFLICT}"]
    assert (state / "openclaw.json").read_text() == text


def test_set_is_refused_on_a_malformed_policy_and_writes_nothing(state: Path) -> None:
    text = _write(state, {"tools": {"deny": {}}})
    result = _run(state, "set", "docs", '{"command":"uvx"}')
    assert result.returncode == 1
    assert "tools.deny: Invalid input: expected array, received object" in result.stderr
    assert (state / "openclaw.json").read_text() == text


def test_a_well_formed_policy_config_lists_and_is_kept_by_set(state: Path) -> None:
    policy = {"profile": "coding", "alsoAllow": ["bundle-mcp"], "sandbox": {"tools": {"deny": ["exec"]}}}
    _write(state, {"tools": policy, "agents": {"entries": {"main": {"tools": {"deny": ["docs__*"]}}}}})
    assert _run(state, "list").returncode == 0
    result = _run(state, "set", "docs", '{"command":"uvx"}')
    assert result.returncode == 0, result.stderr
    written = json.loads((state / "openclaw.json").read_text())
    assert written["tools"] == policy
    assert written["agents"] == {"entries": {"main": {"tools": {"deny": ["docs__*"]}}}}
    assert written["mcp"]["servers"] == {"docs": {"command": "uvx"}}


# --- the legacy line of an allow/alsoAllow conflict (doctor rule tools.allow-also-allow-conflict) ---------------

_CONFLICT = {"allow": ["a"], "alsoAllow": ["b"]}


@pytest.mark.parametrize(
    ("config", "roots"),
    [
        ({"tools": _CONFLICT}, ["tools"]),
        ({"tools": {"byProvider": {"openai": _CONFLICT}}}, ["tools"]),
        ({"tools": {"sandbox": {"tools": _CONFLICT}}}, []),
        ({"agents": {"list": [{"id": "main", "tools": _CONFLICT}]}}, ["agents"]),
        ({"agents": {"entries": {"main": {"tools": _CONFLICT}}}, "tools": _CONFLICT}, ["tools", "agents"]),
        ({"tools": {"allow": [], "alsoAllow": ["b"]}}, []),
        ({"tools": {"allow": ["a", 1], "alsoAllow": ["b"]}}, []),
        ({"channels": {"slack": {"tools": _CONFLICT}}}, ["channels"]),
    ],
)
def test_an_allow_and_also_allow_conflict_gets_one_legacy_line_per_root(
    config: dict[str, Any], roots: list[str]
) -> None:
    from openclaw_mcp.domain.config_legacy import legacy_lines

    message = (
        'Tool policy sets both allow and alsoAllow in the same scope; run "openclaw doctor --fix" for a '
        "permission-preserving repair or manual guidance."
    )
    assert legacy_lines(config) == [f"{root}: {message}" for root in roots]
