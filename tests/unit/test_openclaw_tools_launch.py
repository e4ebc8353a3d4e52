"""The ``openclaw-tools`` launch (spec openclaw-tools.md §1.2, §1.3), its catalog (§4) and the requester policies
(§3): pure functions, texts of the reference."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from openclaw_mcp.domain.openclaw_tools.launch import Launch, SystemAgentLaunch, resolve_launch, resolve_selection
from openclaw_mcp.domain.plugin_tools.launch import LaunchError
from openclaw_mcp.domain.tool_policy import allowed_by_policies, requester_tool_policies
from tests.fixtures.openclaw_tools import FINGERPRINTS, TEXTS_FINGERPRINT
from tests.fixtures.openclaw_tools_texts import OPENCLAW_TEXTS, automations_entry, system_agent_entry

KEY = {"OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:main"}
SELECTION_ERROR = "OPENCLAW_TOOLS_MCP_TOOLS must be a comma list of: cron, openclaw"
PAIRING_ERROR = (
    "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY must be a canonical agent session key or have a matching explicit "
    "OpenClaw owner"
)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _fingerprint(entry: dict[str, Any]) -> tuple[str, str]:
    return (
        hashlib.sha256(entry["description"].encode()).hexdigest(),
        hashlib.sha256(_canonical(entry["inputSchema"]).encode()).hexdigest(),
    )


@pytest.mark.parametrize(
    ("raw", "selection"),
    [
        (None, ("cron",)),
        ("", ("cron",)),
        ("  ", ("cron",)),
        ("openclaw", ("openclaw",)),
        ("cron,openclaw", ("cron", "openclaw")),
        (" openclaw , cron ", ("openclaw", "cron")),
        ("openclaw,openclaw", ("openclaw", "openclaw")),
        ("cron,,openclaw,", ("cron", "openclaw")),
    ],
)
def test_the_selection_keeps_order_and_duplicates(raw: str | None, selection: tuple[str, ...]) -> None:
    env = {} if raw is None else {"OPENCLAW_TOOLS_MCP_TOOLS": raw}
    assert resolve_selection(env) == selection


@pytest.mark.parametrize("raw", ["cron,bogus", " , ", "CRON", "automations"])
def test_a_bad_selection_names_the_two_ids(raw: str) -> None:
    with pytest.raises(LaunchError, match=f"^{SELECTION_ERROR}$"):
        resolve_selection({"OPENCLAW_TOOLS_MCP_TOOLS": raw})


@pytest.mark.parametrize(
    ("env", "argv", "message"),
    [
        ({}, [], "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY is required"),
        ({"OPENCLAW_TOOLS_MCP_TOOLS": "bogus"}, ["--openclaw-agent-id"],
         "--openclaw-agent-id requires one OpenClaw agent owner"),
        ({"OPENCLAW_TOOLS_MCP_TOOLS": "openclaw", "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_SURFACE": "web"}, [],
         'OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_SURFACE must be "cli" or "gateway"'),
        ({"OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:ops:main"}, ["--openclaw-agent-id", "main"], PAIRING_ERROR),
        ({"OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "main"}, [], PAIRING_ERROR),
        # the first failing tool decides: the surface of a leading openclaw before cron's missing key
        ({"OPENCLAW_TOOLS_MCP_TOOLS": "openclaw,cron", "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_SURFACE": "x"}, [],
         'OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_SURFACE must be "cli" or "gateway"'),
        ({"OPENCLAW_TOOLS_MCP_TOOLS": "cron,openclaw", "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_SURFACE": "x"}, [],
         "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY is required"),
    ],
)  # fmt: skip
def test_launch_errors_have_the_reference_texts(env: dict[str, str], argv: list[str], message: str) -> None:
    with pytest.raises(LaunchError) as caught:
        resolve_launch(argv, env)
    assert str(caught.value) == message


def test_an_openclaw_only_launch_never_checks_the_pairing() -> None:
    env = {"OPENCLAW_TOOLS_MCP_TOOLS": "openclaw", "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:ops:main"}
    launch = resolve_launch(["--openclaw-agent-id", "Main"], env)
    assert launch == Launch(("openclaw",), "main", "agent:ops:main", None, SystemAgentLaunch())
    assert resolve_launch(["--openclaw-agent-id", "main"], {"OPENCLAW_TOOLS_MCP_TOOLS": "openclaw"}).session_key is None


def test_cron_is_bound_to_the_keys_owner_and_the_approval_state_is_read() -> None:
    env = {
        **KEY,
        "OPENCLAW_TOOLS_MCP_TOOLS": "cron,openclaw",
        "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_SURFACE": " gateway ",
        "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_APPROVAL_ARMED": " operator-only ",
        "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_PROPOSAL": " abc ",
    }
    launch = resolve_launch([], env)
    assert launch.automations_agent_id == "main" and launch.agent_id is None
    assert launch.system_agent == SystemAgentLaunch("gateway", armed=False, operator_only=True, proposal="abc")
    armed = resolve_launch([], {**env, "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_APPROVAL_ARMED": "1"}).system_agent
    assert armed is not None and armed.armed and not armed.operator_only


@pytest.mark.parametrize(
    ("case", "entry"),
    [
        ("A", automations_entry({})),
        ("A", automations_entry({"cron": {"triggers": {"enabled": True}}})),
        ("B", automations_entry({"cron": {"triggers": {"enabled": False}}})),
        ("C", system_agent_entry()),
    ],
)
def test_the_catalog_matches_the_reference_fingerprints(case: str, entry: dict[str, Any]) -> None:
    assert list(entry) == ["name", "description", "inputSchema"]
    assert _fingerprint(entry) == FINGERPRINTS[case]


def test_catalog_entries_are_fresh_copies() -> None:
    entry = system_agent_entry()
    entry["inputSchema"]["properties"].clear()
    assert _fingerprint(system_agent_entry()) == FINGERPRINTS["C"]


def test_the_fixed_texts_match_the_reference_dump_fingerprint() -> None:
    dump = {label: {"content": [{"type": "text", "text": text}]} for label, text in OPENCLAW_TEXTS.items()}
    digest = hashlib.sha256(_canonical(dump).encode()).hexdigest()
    assert digest == TEXTS_FINGERPRINT


GROUP = "agent:main:telegram:group:-100123"


def _groups(tools: dict[str, Any], group: str = "-100123") -> dict[str, Any]:
    return {"channels": {"telegram": {"groups": {group: {"tools": tools}}}}}


@pytest.mark.parametrize(
    ("config", "key", "served"),
    [
        ({"tools": {"deny": ["automations", "openclaw"], "profile": "minimal"}}, "agent:main:main",
         ["automations", "openclaw"]),
        (_groups({"deny": ["cron"]}), GROUP, ["openclaw"]),
        (_groups({"deny": ["automations"]}, "*"), GROUP, ["openclaw"]),
        (_groups({"allow": ["openclaw"]}), GROUP, ["openclaw"]),
        (_groups({"deny": ["group:automation"]}), GROUP, []),
        (_groups({"deny": ["openclaw"]}), "agent:main:telegram:group:-100123:topic:7", ["automations"]),
        (_groups({"deny": ["openclaw"]}), "agent:main:telegram:group:-100123:thread:9", ["automations"]),
        (_groups({"deny": ["openclaw"]}), "agent:main:slack:group:-100123", ["automations", "openclaw"]),
        (_groups({"deny": ["openclaw"]}), "agent:main:telegram:direct:-100123", ["automations", "openclaw"]),
        ({}, "agent:main:subagent:abc", []),
        ({"tools": {"subagents": {"tools": {"allow": ["*"]}}}}, "agent:main:subagent:abc", []),
    ],
)  # fmt: skip
def test_requester_policies_filter_as_the_reference(config: dict[str, Any], key: str, served: list[str]) -> None:
    policies = requester_tool_policies(config, key)
    assert [name for name in ("automations", "openclaw") if allowed_by_policies(name, policies)] == served
