"""The ``openclaw`` tool's pure rules: operations, argument errors, the hash, navigation texts and the
proposal/approval state machine (spec openclaw-tools.md §7.1, §7.2, §7.4)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openclaw_mcp.domain.openclaw_tools.system_agent import (
    SystemAgentInputError,
    classify,
    operation_hash,
)
from openclaw_mcp.domain.openclaw_tools.system_agent_reads import (
    create_agent_refusal,
    format_config_get,
    format_config_validation,
    format_gateway_status,
    gateway_probe_target,
    redact_config,
)
from openclaw_mcp.domain.openclaw_tools.system_agent_replies import ApprovalState
from tests.fixtures.openclaw_tools_texts import (
    ACTIONS,
    OPENCLAW_TEXTS,
    approval_step,
    navigation_text,
    parse_operation,
    propose,
)

HASH = "2f749cc46c8e86a00d2521485e0c67992802abed34a3074e5850da515741b7f6"
MODEL_OP = {"kind": "set-default-model", "model": "openai/gpt-5"}
SHA = "ab" * 32


@pytest.mark.parametrize(
    ("arguments", "operation"),
    [
        ({"action": "status"}, {"kind": "status"}),
        ({"action": "models"}, {"kind": "models"}),
        ({"action": "agents"}, {"kind": "agents"}),
        ({"action": "channels"}, {"kind": "channel-list"}),
        ({"action": "channel_info", "channel": " Telegram "}, {"kind": "channel-info", "channel": "telegram"}),
        ({"action": "audit"}, {"kind": "audit"}),
        ({"action": "validate_config"}, {"kind": "config-validate"}),
        ({"action": "doctor"}, {"kind": "doctor"}),
        ({"action": "config_get", "path": " gateway.port "}, {"kind": "config-get", "path": "gateway.port"}),
        ({"action": "config_schema", "path": "  "}, {"kind": "config-schema"}),
        ({"action": "config_schema", "path": "gateway"}, {"kind": "config-schema", "path": "gateway"}),
        ({"action": "gateway_status"}, {"kind": "gateway-status"}),
        ({"action": "plugin_list"}, {"kind": "plugin-list"}),
        ({"action": "plugin_search", "query": " voice "}, {"kind": "plugin-search", "query": "voice"}),
        ({"action": "connect_channel", "channel": "Slack"}, {"kind": "channel-setup", "channel": "slack"}),
        ({"action": "configure_skills"}, {"kind": "skills-setup"}),
        ({"action": "configure_search"}, {"kind": "search-setup"}),
        ({"action": "configure_gateway"}, {"kind": "gateway-config-setup"}),
        ({"action": "import_memory"}, {"kind": "memory-import"}),
        ({"action": "configure_model_provider", "workspace": "/w"}, {"kind": "model-setup", "workspace": "/w"}),
        ({"action": "manage_model_accounts"}, {"kind": "model-accounts"}),
        ({"action": "open_agent", "agent_id": "ops", "workspace": ""}, {"kind": "open-tui", "agentId": "ops"}),
        ({"action": "open_setup"}, {"kind": "open-setup", "target": "guided"}),
        (
            {"action": "open_setup", "target": "channels", "channel": " Slack "},
            {"kind": "open-setup", "target": "channels", "channel": "slack"},
        ),
        ({"action": "setup", "model": "a/b", "workspace": " "}, {"kind": "setup", "model": "a/b"}),
        (
            {"action": "set_default_model", "model": "a/b", "agentId": "ops"},
            {"kind": "set-default-model", "model": "a/b", "agentId": "ops"},
        ),
        ({"action": "config_set", "path": "a.b", "value": "1"}, {"kind": "config-set", "path": "a.b", "value": "1"}),
        (
            {"action": "config_set_ref", "path": "a.b", "env_var": "KEY"},
            {"kind": "config-set-ref", "path": "a.b", "source": "env", "id": "KEY"},
        ),
        (
            {"action": "create_agent", "agentId": "ops", "name": " Ops ", "role": "writer", "purpose": ""},
            {"kind": "create-agent", "agentId": "ops", "name": "Ops", "role": "writer"},
        ),
        (
            {"action": "create_team", "coordinator_id": "boss", "prefix": "t", "workspaceRoot": "/r"},
            {"kind": "create-team", "coordinatorId": "boss", "prefix": "t", "workspaceRoot": "/r"},
        ),
        ({"action": "gateway_start"}, {"kind": "gateway-start"}),
        ({"action": "gateway_stop"}, {"kind": "gateway-stop"}),
        ({"action": "gateway_restart"}, {"kind": "gateway-restart"}),
        ({"action": "plugin_install", "spec": "clawhub:voice"}, {"kind": "plugin-install", "spec": "clawhub:voice"}),
        (
            {"action": "plugin_activate_artifact", "path": "/p/x.tar.gz", "sha256": SHA.upper()},
            {"kind": "plugin-activate-artifact", "path": "/p/x.tar.gz", "sha256": SHA},
        ),
        ({"action": "plugin_uninstall", "plugin_id": "voice"}, {"kind": "plugin-uninstall", "pluginId": "voice"}),
    ],
)
def test_each_action_becomes_its_operation(arguments: dict[str, Any], operation: dict[str, str]) -> None:
    assert parse_operation(arguments) == operation


def test_the_catalog_has_the_34_actions_and_each_parses() -> None:
    assert len(ACTIONS) == len(set(ACTIONS)) == 34
    filled = {"channel": "c", "path": "/p/x.tgz", "query": "q", "spec": "clawhub:x", "pluginId": "p"}
    filled |= {"sha256": SHA, "model": "m", "value": "v", "envVar": "E", "agentId": "a"}
    for action in ACTIONS:
        parse_operation({"action": action, **filled})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "action required"),
        ({"action": 5}, "action required"),
        ({"action": "  "}, "action required"),
        ({"action": "zzz "}, 'openclaw: unknown action "zzz"'),
        ({"action": "config_get"}, 'openclaw: "path" is required for this action'),
        ({"action": "config_get", "path": " "}, 'openclaw: "path" is required for this action'),
        ({"action": "channel_info"}, 'openclaw: "channel" is required for this action'),
        ({"action": "config_set_ref", "path": "a"}, 'openclaw: "envVar" is required for this action'),
        ({"action": "open_setup", "target": "x"}, 'openclaw: unknown setup target "x"'),
        ({"action": "open_setup", "target": " Channels "}, 'openclaw: unknown setup target "Channels"'),
        (
            {"action": "create_agent", "agentId": "a", "role": None},
            "openclaw: unknown role; choose coordinator, researcher, writer, reviewer",
        ),
        (
            {"action": "create_agent", "agentId": "a", "role": "Writer"},
            "openclaw: unknown role; choose coordinator, researcher, writer, reviewer",
        ),
        (
            {"action": "plugin_install", "spec": "file:./x"},
            "openclaw: OpenClaw plugin install accepts npm or ClawHub package specs only.",
        ),
        (
            {"action": "plugin_install", "spec": "a b"},
            "openclaw: OpenClaw plugin install accepts one npm or ClawHub package spec.",
        ),
        (
            {"action": "plugin_install", "spec": "lodash"},
            "openclaw: OpenClaw installs only ClawHub, bundled, or official-catalog plugins. Use `openclaw plugins "
            "install <spec>` in a trusted shell to review an arbitrary executable source.",
        ),
    ],
)
def test_argument_errors_carry_the_reference_texts(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(SystemAgentInputError) as caught:
        parse_operation(arguments)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("path", "sha256"),
    [
        ("rel/x.tgz", SHA),
        ("/p/x.zip", SHA),
        ("/p/x.tgz.bak", SHA),
        ("/p/x.tgz", "ab"),
        ("/" + "a" * 2045 + ".tgz", SHA),
    ],
)
def test_plugin_activate_artifact_needs_an_absolute_archive_and_a_sha256(path: str, sha256: str) -> None:
    with pytest.raises(SystemAgentInputError, match=r"requires an absolute packed \.tgz path"):
        parse_operation({"action": "plugin_activate_artifact", "path": path, "sha256": sha256})


def test_operation_hash_is_the_sorted_compact_json_sha256() -> None:
    assert operation_hash(MODEL_OP) == HASH
    assert operation_hash({"model": "openai/gpt-5", "kind": "set-default-model"}) == HASH
    import hashlib

    op = {"kind": "config-set", "path": "a", "value": "é\n\u2028"}
    expected = json.dumps(op, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert operation_hash(op) == hashlib.sha256(expected.encode()).hexdigest()


def test_classes_of_operations() -> None:
    assert classify({"kind": "status"}) == "read"
    assert classify({"kind": "open-tui"}) == "navigation"
    assert classify({"kind": "gateway-restart"}) == "persistent"
    assert classify({"kind": "create-agent", "agentId": "ops"}) == "persistent"
    assert classify({"kind": "create-agent", "agentId": " OpenClaw "}) == "read"
    assert classify({"kind": "create-agent", "agentId": "ops", "model": "a/b"}) == "read"
    assert create_agent_refusal({"kind": "create-agent", "agentId": "Crestodian"}).startswith(
        'Agent id "crestodian" is reserved for the system agent.'
    )
    assert create_agent_refusal({"kind": "create-agent", "agentId": "x", "model": "m"}).startswith(
        "OpenClaw cannot save an explicit per-agent model"
    )


def _navigation_arguments(label: str) -> dict[str, Any]:
    parts = label.split(":")[1:]
    arguments: dict[str, Any] = {"action": parts[0]}
    if parts[0] == "connect_channel":
        arguments["channel"] = parts[1]
    if parts[0] == "open_setup" and len(parts) > 1:
        arguments["target"] = parts[1]
        if len(parts) > 2:
            arguments["channel"] = parts[2]
    return arguments


NAVIGATION_LABELS = [label for label in OPENCLAW_TEXTS if not label.endswith(("proposal", "call", "operation"))]


@pytest.mark.parametrize("label", NAVIGATION_LABELS)
def test_navigation_texts_reproduce_the_dump(label: str) -> None:
    operation = parse_operation(_navigation_arguments(label))
    assert classify(operation) == "navigation"
    text = navigation_text(operation, operator_only=label.startswith("operator-only:"))
    assert text == OPENCLAW_TEXTS[label]


def test_navigation_templates_take_the_channel() -> None:
    op = parse_operation({"action": "connect_channel", "channel": "Discord"})
    assert navigation_text(op, operator_only=False) == OPENCLAW_TEXTS["plain:connect_channel:Telegram"].replace(
        "telegram", "discord"
    )
    op = parse_operation({"action": "open_setup", "target": "channels", "channel": "IRC"})
    assert navigation_text(op, operator_only=False).startswith("directive: the host now opens channel setup for irc.")


def test_proposals_reproduce_the_dump() -> None:
    plain = approval_step(ApprovalState(), MODEL_OP, approved=True)  # approved without armed: only proposes
    assert (plain.kind, plain.text, plain.state.proposal) == (
        "needs-approval",
        OPENCLAW_TEXTS["plain:first-proposal"],
        HASH,
    )
    again = approval_step(plain.state, MODEL_OP, approved=False)
    assert again.text == OPENCLAW_TEXTS["plain:second-call"] and again.state == plain.state
    other = approval_step(again.state, {"kind": "gateway-restart"}, approved=False)
    assert (other.kind, other.text) == ("conflict", OPENCLAW_TEXTS["plain:other-operation"])
    assert other.state.proposal == HASH and other.needs_approval

    op_only = approval_step(ApprovalState(operator_only=True), MODEL_OP, approved=False)
    assert op_only.text == OPENCLAW_TEXTS["operator-only:first-proposal"]
    op_other = approval_step(op_only.state, {"kind": "gateway-restart"}, approved=False)
    assert op_other.text == OPENCLAW_TEXTS["operator-only:other-operation"]


def test_armed_approval_accepts_the_staged_operation_once() -> None:
    armed = ApprovalState(proposal=HASH, armed=True)
    accepted = approval_step(armed, MODEL_OP, approved=True)
    assert (accepted.kind, accepted.text) == ("approved", OPENCLAW_TEXTS["armed:first-proposal"])
    assert accepted.state.proposal is None and not accepted.needs_approval
    second = approval_step(accepted.state, MODEL_OP, approved=True)
    assert (second.kind, second.text) == ("mismatch", OPENCLAW_TEXTS["armed:second-call"])


@pytest.mark.parametrize(
    ("operation", "approved"), [(MODEL_OP, False), ({"kind": "gateway-stop"}, True), ({"kind": "gateway-stop"}, False)]
)
def test_armed_mismatch_voids_the_approval(operation: dict[str, str], approved: bool) -> None:
    step = approval_step(ApprovalState(proposal=HASH, armed=True), operation, approved=approved)
    assert (step.kind, step.text) == ("mismatch", OPENCLAW_TEXTS["armed:other-operation"])
    assert step.state == ApprovalState(proposal=None, armed=True)


def test_artifacts_are_reviewed_before_they_are_proposed() -> None:
    artifact = {"kind": "plugin-activate-artifact", "path": "/p/x.tgz", "sha256": SHA}
    step = approval_step(ApprovalState(), artifact, approved=False)
    assert (step.kind, step.text, step.state) == ("review", "", ApprovalState())
    proposed = propose(step.state, artifact, {"pluginId": "x", "files": 2})
    head, review, tail = proposed.text.split("\n")
    assert head == f"needs-approval:{operation_hash(artifact)}"
    assert review == 'Reviewed plugin artifact (metadata, not instructions): {"pluginId":"x","files":2}'
    assert tail == OPENCLAW_TEXTS["plain:first-proposal"].split("\n", 1)[1]
    late = propose(ApprovalState(proposal=HASH), artifact, {"pluginId": "x"})
    assert (
        late.text
        == f"proposal-conflict:{HASH}\nA different operation is awaiting approval. This artifact was not proposed."
    )
    assert late.state.proposal == HASH


def test_config_get_redacts_and_truncates() -> None:
    document = {
        "gateway": {"auth": {"mode": "token", "token": "secret-value"}, "port": 1},
        "env": {"vars": {"FOO": "bar", "OPENAI_API_KEY": "sk-x"}},
        "mcp": {"servers": {"a": {"command": "x", "env": {"K": "v"}, "url": "https://u:p@h/"}}},
        "big": ["x" * 100] * 30,
    }
    redacted = redact_config(document)
    assert redacted["gateway"]["auth"]["token"] == "<redacted>"
    assert redacted["env"]["vars"] == {"FOO": "bar", "OPENAI_API_KEY": "<redacted>"}
    assert redacted["mcp"]["servers"]["a"]["env"] == {"K": "<redacted>"}
    assert redacted["mcp"]["servers"]["a"]["url"] == "<redacted>"
    assert format_config_get(document, "gateway.auth") == (
        'gateway.auth = {\n  "mode": "token",\n  "token": "<redacted>"\n}'
    )
    assert format_config_get(document, "gateway.port") == "gateway.port = 1"
    assert (
        format_config_get(document, "nope.x") == "nope.x: not set. Use `config schema nope.x` to see what is allowed."
    )
    big = format_config_get(document, "big")
    assert big.endswith("\n… (truncated)") and len(big) == len("big = ") + 2000 + len("\n… (truncated)")
    with pytest.raises(ValueError, match=r"Invalid path \(empty segment\): \."):
        format_config_get(document, ".")


def test_validation_and_gateway_status_lines() -> None:
    assert format_config_validation("~/c.json", False, []) == "Config missing: ~/c.json"
    assert format_config_validation("~/c.json", True, []) == "Config valid: ~/c.json"
    assert format_config_validation("~/c.json", True, [("a.b", "bad"), ("", 'Unrecognized key: "x"')]) == (
        'Config invalid: ~/c.json\n  - a.b: bad\n  - Unrecognized key: "x"'
    )
    target = gateway_probe_target({"gateway": {"port": 4567}}, {}, "/c.json")
    assert (target.url, target.source, target.http_url) == (
        "ws://127.0.0.1:4567",
        "local loopback",
        "http://127.0.0.1:4567",
    )
    assert format_gateway_status(target, "fetch failed", False) == (
        "Gateway: not reachable\nURL: ws://127.0.0.1:4567\nSource: local loopback\nNote: fetch failed"
    )
    assert format_gateway_status(target, None, True).startswith("Gateway: reachable\n")
    tls = gateway_probe_target({"gateway": {"port": 1, "tls": {"enabled": True}}}, {}, "/c.json")
    assert tls.http_url == "https://127.0.0.1:1"
