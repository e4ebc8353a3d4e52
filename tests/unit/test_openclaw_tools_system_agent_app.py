"""The ``openclaw`` tool end to end in process: a real config file, the in-memory health probe, and the httpx
probe against a loopback HTTP server (spec openclaw-tools.md §7, acceptance tests 13–15)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.filesystem.config_store import FileConfigStore
from openclaw_mcp.adapters.http.gateway_health import HttpxGatewayHealthProbe
from openclaw_mcp.adapters.memory.gateway_health import InMemoryGatewayHealthProbe
from openclaw_mcp.application.config_service import ConfigService
from openclaw_mcp.application.openclaw_tools._system_agent import ArtifactReviewError, SystemAgentTool
from openclaw_mcp.application.ports.gateway_health import GatewayHealthProbe
from openclaw_mcp.entrypoints.openclaw_tools.cli_reads import make_cli_text, run_cli_captured
from tests.fixtures.http_servers import LoopbackServer, closed_port
from tests.fixtures.openclaw_tools_texts import REFERENCE_TEXTS

pytestmark = pytest.mark.asyncio

HASH = "2f749cc46c8e86a00d2521485e0c67992802abed34a3074e5850da515741b7f6"
MODEL = {"action": "set_default_model", "model": "openai/gpt-5", "approved": True}


class _Cli:
    def __init__(self, code: int = 0, output: str = "cli text\n") -> None:
        self.code, self.output = code, output
        self.calls: list[list[str]] = []

    async def __call__(self, argv: Sequence[str]) -> tuple[int, str]:
        self.calls.append(list(argv))
        return self.code, self.output


def _tool(
    tmp_path: Path,
    config: Mapping[str, Any] | str | None = None,
    *,
    probe: GatewayHealthProbe | None = None,
    cli: _Cli | None = None,
    **options: Any,
) -> SystemAgentTool:
    path = tmp_path / "openclaw.json"
    if config is not None:
        path.write_text(config if isinstance(config, str) else json.dumps(config))
    env = {"HOME": str(tmp_path)}
    settings: dict[str, Any] = {"agent_id": None, "armed": False, "operator_only": False, "proposal": None}
    settings.update(options)
    return SystemAgentTool(
        texts=REFERENCE_TEXTS,
        surface="cli",
        config_loader=lambda: ConfigService(FileConfigStore(str(path)), env, SystemClock(), lambda _: None),
        health_probe=probe or InMemoryGatewayHealthProbe(),
        cli_text=cli or _Cli(),
        env=env,
        home=str(tmp_path),
        **settings,
    )


def _text(result: dict[str, Any]) -> str:
    (block,) = result["content"]
    assert block["type"] == "text"
    text: str = block["text"]
    return text


async def test_navigation_and_argument_errors(tmp_path: Path) -> None:
    tool = _tool(tmp_path)
    with anyio.fail_after(10):
        result = await tool.call({"action": "connect_channel", "channel": "Telegram"})
        assert "isError" not in result
        assert _text(result).startswith("directive: the host chat now starts the guided telegram setup")
        assert _text(await tool.call({"action": "open_agent"})).startswith("directive: the host now hands the user")
        bad = await tool.call({"action": "open_setup", "target": "x"})
        assert bad == {
            "content": [{"type": "text", "text": 'Tool error: openclaw: unknown setup target "x"'}],
            "isError": True,
        }
        assert _text(await tool.call({"action": "zzz"})) == 'Tool error: openclaw: unknown action "zzz"'
        assert _text(await tool.call(None)) == "Tool error: action required"
        assert (
            _text(await tool.call({"action": "config_get"}))
            == 'Tool error: openclaw: "path" is required for this action'
        )
        reserved = await tool.call({"action": "create_agent", "agentId": "openclaw"})
        assert reserved["isError"] is True
        assert (
            _text(reserved)
            == 'error: Agent id "openclaw" is reserved for the system agent. Choose a different agent id.'
        )
        model = await tool.call({"action": "create_agent", "agentId": "x", "model": "a/b"})
        assert model["isError"] is True and _text(model).startswith(
            "error: OpenClaw cannot save an explicit per-agent model"
        )


async def test_proposal_then_conflict(tmp_path: Path) -> None:
    tool = _tool(tmp_path)
    with anyio.fail_after(10):
        first = await tool.call(MODEL)
        assert "isError" not in first
        assert _text(first).startswith(f"needs-approval:{HASH}\nThis action changes state. The proposal is registered;")
        assert _text(await tool.call(MODEL)).startswith(f"needs-approval:{HASH}\n")
        conflict = _text(await tool.call({"action": "gateway_restart"}))
        assert conflict.startswith(f"proposal-conflict:{HASH}\nA different operation")
        assert tool.state.proposal == HASH


async def test_armed_approval_then_mismatch(tmp_path: Path) -> None:
    tool = _tool(tmp_path, armed=True, proposal=HASH)
    with anyio.fail_after(10):
        approved = _text(await tool.call(MODEL))
        assert approved.startswith("directive:approved-operation: the host accepted this exact approved action")
        assert _text(await tool.call(MODEL)).startswith(
            "approval-mismatch: this call is not the operation the user approved."
        )
        assert tool.state.proposal is None


async def test_operator_only_texts(tmp_path: Path) -> None:
    tool = _tool(tmp_path, operator_only=True)
    with anyio.fail_after(10):
        proposal = _text(await tool.call(MODEL))
        assert proposal.startswith(f"needs-approval:{HASH}\nThis action changes state. The host applies the requesting")
        handoff = _text(await tool.call({"action": "connect_channel", "channel": "x"}))
        assert handoff.startswith("Channel, model, and setup flows need a human operator")


async def test_plugin_artifacts_need_a_reviewer(tmp_path: Path) -> None:
    artifact = {"action": "plugin_activate_artifact", "path": "/p/x.tgz", "sha256": "a" * 64}
    with anyio.fail_after(10):
        refused = await _tool(tmp_path).call(artifact)
        assert refused["isError"] is True and _text(refused).startswith("Tool error: plugin_activate_artifact is not")

        async def review(path: str, sha256: str) -> Mapping[str, Any]:
            return {"pluginId": "x", "path": path}

        reviewed = _text(await _tool(tmp_path, artifact_reviewer=review).call(artifact))
        assert (
            '\nReviewed plugin artifact (metadata, not instructions): {"pluginId":"x","path":"/p/x.tgz"}\n' in reviewed
        )

        async def reject(path: str, sha256: str) -> Mapping[str, Any]:
            raise ArtifactReviewError("digest mismatch")

        failed = await _tool(tmp_path, artifact_reviewer=reject).call(artifact)
        assert (failed["isError"], _text(failed)) == (True, "Tool error: digest mismatch")


async def test_config_reads_on_a_real_file(tmp_path: Path) -> None:
    config = {
        "gateway": {"port": 45678, "auth": {"mode": "token", "token": "secret-value"}},
        "agents": {
            "defaults": {"model": "openai/gpt-5"},
            "list": [{"id": "main", "default": True}, {"id": "ops", "name": "Ops", "workspace": "~/ws"}],
        },
    }
    probe = InMemoryGatewayHealthProbe()
    tool = _tool(tmp_path, config, probe=probe)
    with anyio.fail_after(10):
        got = _text(await tool.call({"action": "config_get", "path": "gateway.auth"}))
        assert got.startswith("gateway.auth = {") and "secret-value" not in got and '"<redacted>"' in got
        unset = _text(await tool.call({"action": "config_get", "path": "nope.x"}))
        assert unset == "nope.x: not set. Use `config schema nope.x` to see what is allowed."
        bad = await tool.call({"action": "config_get", "path": "."})
        assert (bad["isError"], _text(bad)) == (True, "error: Invalid path (empty segment): .")
        assert _text(await tool.call({"action": "validate_config"})) == "Config valid: ~/openclaw.json"
        status = _text(await tool.call({"action": "gateway_status"}))
        assert status == "Gateway: not reachable\nURL: ws://127.0.0.1:45678\nSource: local loopback\nNote: fetch failed"
        assert probe.probes == [("http://127.0.0.1:45678", 0.9)]
        agents = _text(await tool.call({"action": "agents"}))
        assert (
            agents == "Agents:\n  - main | default | model=openai/gpt-5\n"
            "  - ops | name=Ops | model=openai/gpt-5 | workspace=~/ws"
        )
        assert _text(await tool.call({"action": "models"})).startswith(
            "Default model: openai/gpt-5\nCodex: not found\n"
        )
        assert _text(await tool.call({"action": "audit"})).startswith("Audit state: ")
        assert _text(await tool.call({"action": "channels"})).startswith("Channels: none configured\n")
        assert "Configured: no" in _text(await tool.call({"action": "channel_info", "channel": "Slack"}))


async def test_missing_and_reachable(tmp_path: Path) -> None:
    probe = InMemoryGatewayHealthProbe(healthy_urls={"http://127.0.0.1:18789"})
    tool = _tool(tmp_path, probe=probe)
    with anyio.fail_after(10):
        assert _text(await tool.call({"action": "validate_config"})) == "Config missing: ~/openclaw.json"
        assert _text(await tool.call({"action": "config_get", "path": "a"})) == "Config missing: ~/openclaw.json"
        status = _text(await tool.call({"action": "gateway_status"}))
        assert status == "Gateway: reachable\nURL: ws://127.0.0.1:18789\nSource: local loopback"
        assert _text(await tool.call({"action": "agents"})) == "Agents:\n  - main | default | model=not configured"


async def test_cli_reads_go_through_cli_text(tmp_path: Path) -> None:
    cli = _Cli()
    tool = _tool(tmp_path, cli=cli)
    with anyio.fail_after(10):
        for action in ("status", "doctor", "plugin_list"):
            assert _text(await tool.call({"action": action})) == "cli text"
        await tool.call({"action": "plugin_search", "query": "voice"})
        assert cli.calls == [["mcp", "status"], ["doctor"], ["plugins", "list"], ["plugins", "search", "voice"]]
        failing = await _tool(tmp_path, cli=_Cli(1, "boom\n")).call({"action": "status"})
        assert (failing["isError"], _text(failing)) == (True, "boom\nerror: openclaw operation exited with code 1")


async def test_in_process_cli_texts(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "OPENCLAW_STATE_DIR": str(tmp_path), "OPENCLAW_CONFIG_PATH": str(tmp_path / "c.json")}
    with anyio.fail_after(30):
        code, text = await make_cli_text(env)(["mcp", "status"])
    assert code == 0 and text.startswith("No MCP servers configured")
    code, text = run_cli_captured(["plugins", "search", "zz"], env)
    assert code == 0 and text.startswith("Plugin search (ClawHub) is not available in this port.")


async def test_httpx_probe_against_a_loopback_server() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        status = 200 if scope["path"] == "/healthz" else 404
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def missing(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 503, "headers": []})
            await send({"type": "http.response.body", "body": b""})

    probe = HttpxGatewayHealthProbe()
    with anyio.fail_after(20):
        async with LoopbackServer(lambda _: app) as server:
            assert await probe.healthy(server.origin, 0.9) is None
            assert [request.path for request in server.requests] == ["/healthz"]
        async with LoopbackServer(lambda _: missing) as server:
            assert await probe.healthy(server.origin, 0.9) == "Service Unavailable"
        with closed_port() as port:
            assert await probe.healthy(f"http://127.0.0.1:{port}", 0.9) == "fetch failed"
