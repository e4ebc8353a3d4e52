"""Differential: our ``openclaw-tools`` against the reference's ``dist/mcp/openclaw-tools-serve.js`` (OpenClaw
2026.9.6; spec openclaw-tools.md §3–§7), beyond the spec's acceptance script.

ONE process of each implementation (``cron,openclaw``, session ``agent:main:main``, the same config: a closed
loopback Gateway port with a token, a configured agent) gets the same ~110 ``tools/call`` requests in the same
order: ``automations`` argument reading and every local check (§5, §6.1, §6.2), the Gateway target errors
(§6.3), the identity-gated actions, and the ``openclaw`` tool's argument errors, navigation, proposals (the
approval state evolves in both alike) and read actions. Whole results are compared after replacing each
server's own state directory by ``<STATE>``. Not sent: the D-OT4 actions (``status``, ``doctor``,
``plugin_list``, ``plugin_search``) and the catalog-backed summaries this port does not reproduce
(``models``, ``channels``, ``channel_info``, ``audit``, ``config_schema``; README compatibility notes), and
``config_get`` of sections the reference fills with runtime defaults (``agents`` gains ``entries.main``: ours
shows the file as written).
"""

from __future__ import annotations

import json
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.docker.gateway_harness import Reference, isolated_env, open_mcp_client

pytestmark = [pytest.mark.reference, pytest.mark.asyncio]

OURS = [sys.executable, "-m", "openclaw_mcp.entrypoints.openclaw_tools"]
TIMEOUT_S = 180
HASH = "0" * 64
EVERY = {"kind": "every", "everyMs": 60000}
EVENT = {"kind": "systemEvent", "text": "ping"}

AUTOMATIONS: list[dict[str, Any]] = [
    {},
    {"action": ""},
    {"action": "  "},
    {"action": ["status"]},
    {"action": "STATUS"},
    {"action": "list", "limit": 0},
    {"action": "list", "limit": "5", "offset": "x"},
    {"action": "list", "limit": 1.5},
    {"action": "list", "limit": True},
    {"action": "list", "limit": 201},
    {"action": "list", "offset": 1.5},
    {"action": "list", "limit": 200, "offset": "0"},
    {"action": "get", "jobId": "  "},
    {"action": "get", "id": "j1"},
    {"action": "get", "job_id": "j1"},
    {"action": "remove"},
    {"action": "run"},
    {"action": "run", "jobId": "j1", "runMode": "bogus"},
    {"action": "runs"},
    {"action": "wake", "text": "  "},
    {"action": "wake", "text": "hi", "mode": "bogus"},
    {"action": "next_check"},
    {"action": "add", "job": {}},
    {"action": "add", "job": "nope"},
    {"action": "add", "job": {"schedule": EVERY, "payload": {"kind": "command", "argv": ["ls"]}}},
    {"action": "add", "job": {"schedule": {"kind": "on-exit"}, "payload": EVENT}},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT, "delivery": {"mode": "announce", "channel": " "}}},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT, "delivery": {"mode": "announce", "to": 5}}},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT, "delivery": {"failureDestination": {"to": ""}}}},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT, "pacing": "fast"}},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT, "pacing": {}}},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT, "pacing": {"min": "soon"}}},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT, "pacing": {"min": "10m", "max": "1m"}}},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT, "displayName": " "}},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT, "declarationKey": ""}},
    {
        "action": "add",
        "job": {
            "schedule": EVERY,
            "payload": {"kind": "agentTurn", "message": "hi"},
            "delivery": {"mode": "webhook", "to": "ftp://x"},
        },
    },
    {"action": "add", "message": "hi", "every": 60000},
    {"action": "add", "text": "hi", "cron": "0 * * * *"},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT}, "contextMessages": 11},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT}, "contextMessages": "x"},
    {"action": "update"},
    {"action": "update", "jobId": "j1"},
    {"action": "update", "jobId": "j1", "job": {"displayName": " "}},
    {"action": "update", "jobId": "j1", "job": {"payload": {"kind": "command", "argv": ["ls"]}}},
    {"action": "update", "jobId": "j1", "enabled": False},
    {"action": "status", "gatewayUrl": "not a url"},
    {"action": "status", "gatewayUrl": "http://127.0.0.1:1"},
    {"action": "status", "gatewayUrl": "ws://user:pw@127.0.0.1:1"},
    {"action": "status", "gatewayUrl": "ws://127.0.0.1:1/?x=1"},
    {"action": "status", "gatewayUrl": "ws://127.0.0.1:1#h"},
    {"action": "status", "gatewayUrl": "ws://127.0.0.1:1/path"},
    {"action": "status", "gatewayUrl": "wss://example.com"},
    {"action": "status", "gatewayUrl": "ws://localhost:1"},
    {"action": "status", "gatewayToken": "x"},
    {"action": "list", "gatewayToken": "x"},
    {"action": "list", "gatewayUrl": "ws://example.com:1"},
    {"action": "wake", "text": "hi", "gatewayUrl": "http://x"},
    {"action": "list", "includeDisabled": True, "limit": 5},
    {"action": "add", "job": {"schedule": EVERY, "payload": EVENT}},
    {"action": "remove", "id": "j1"},
    {"action": "run", "jobId": "j1", "runMode": "force"},
    {"action": "runs", "job_id": "j1"},
    {"action": "wake", "text": "hi", "mode": "now"},
]

OPENCLAW: list[dict[str, Any]] = [
    {},
    {"action": 5},
    {"action": "zzz"},
    {"action": "config_get"},
    {"action": "config_get", "path": "gateway.auth"},
    {"action": "config_get", "path": "gateway.port"},
    {"action": "config_get", "path": "nope.x"},
    {"action": "validate_config"},
    {"action": "agents"},
    {"action": "gateway_status"},
    {"action": "channel_info"},
    {"action": "plugin_search"},
    {"action": "connect_channel"},
    {"action": "connect_channel", "channel": " Discord "},
    {"action": "configure_skills"},
    {"action": "configure_search"},
    {"action": "configure_gateway"},
    {"action": "import_memory"},
    {"action": "configure_model_provider", "workspace": "/w"},
    {"action": "manage_model_accounts"},
    {"action": "open_agent", "agentId": "main"},
    {"action": "open_setup", "target": "classic"},
    {"action": "open_setup", "target": "channels", "channel": "Matrix"},
    {"action": "open_setup", "target": "search"},
    {"action": "open_setup", "target": "gateway"},
    {"action": "open_setup", "target": "bogus"},
    {"action": "set_default_model"},
    {"action": "config_set", "path": "gateway.port"},
    {"action": "config_set_ref", "path": "gateway.auth.token"},
    {"action": "create_agent"},
    {"action": "create_agent", "agentId": "OpenClaw"},
    {"action": "create_agent", "agentId": "helper", "model": "openai/gpt-5"},
    {"action": "create_agent", "agentId": "helper", "role": "boss"},
    {"action": "plugin_install"},
    {"action": "plugin_install", "spec": "file:/tmp/x"},
    {"action": "plugin_uninstall"},
    {"action": "plugin_activate_artifact", "path": "x.tgz", "sha256": HASH},
    {"action": "plugin_activate_artifact", "path": "/tmp/x.tgz", "sha256": "nope"},
    {"action": "set_default_model", "model": "openai/gpt-5", "agentId": "main"},
    {"action": "set_default_model", "model": "openai/gpt-5", "agentId": "main", "approved": True},
    {"action": "gateway_restart"},
    {"action": "create_team", "prefix": "t"},
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _run(command: list[str], state: Path, config: dict[str, Any], path: str | None) -> list[Any]:
    state.mkdir(parents=True)
    (state / "openclaw.json").write_text(json.dumps(config))
    extra = {"OPENCLAW_TOOLS_MCP_TOOLS": "cron,openclaw", "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:main"}
    env = isolated_env(state, path=path, extra=extra)
    answers: list[Any] = []
    async with open_mcp_client(command, env, cwd=state, name=command[-1]) as client:
        await client.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "diff", "version": "0"}},
        )
        for tool, calls in (("automations", AUTOMATIONS), ("openclaw", OPENCLAW)):
            for arguments in calls:
                answers.append(await client.call(tool, arguments))
    text = (
        json.dumps(answers, ensure_ascii=False).replace(str(state.resolve()), "<STATE>").replace(str(state), "<STATE>")
    )
    result: list[Any] = json.loads(text)
    return result


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


async def test_ours_answers_as_the_reference(reference: Reference) -> None:
    serve = reference.root / "node_modules" / "openclaw" / "dist" / "mcp" / "openclaw-tools-serve.js"
    config = {
        "gateway": {"port": _free_port(), "auth": {"mode": "token", "token": "tok-secret"}},
        "agents": {"defaults": {"model": {"primary": "openai/gpt-5"}}},
    }
    with tempfile.TemporaryDirectory() as tmp, anyio.fail_after(TIMEOUT_S):
        theirs = await _run([str(reference.node), str(serve)], Path(tmp, "reference"), config, reference.path_env)
        ours = await _run(OURS, Path(tmp, "ours"), config, None)
    labels = [f"automations {json.dumps(a)}" for a in AUTOMATIONS] + [f"openclaw {json.dumps(a)}" for a in OPENCLAW]
    differences = [
        f"{label}\n  reference: {_shown(want)}\n  ours:      {_shown(got)}"
        for label, want, got in zip(labels, theirs, ours, strict=True)
        if want != got
    ]
    assert not differences, f"{len(differences)} of {len(labels)} calls differ:\n" + "\n".join(differences)
