"""Issue 32 defect 3 with real clients: an argument export keeps out of the file (one the redactor hides, such
as ``FILES_TOKEN=<digest>``) becomes a ``${VAR}`` reference that Claude Code and Gemini CLI expand: the stdio
probe server only starts when its argument arrives intact, so "Connected" proves the reference resolved.
Codex expands nothing, so the server is refused there with one line naming it and ``--include-secrets``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.clients.conftest import AgentClients, digest
from tests.clients.test_real_clients import Project, by_name, run_client
from tests.unit.test_interchange_cli import oc

SECRET = "sek-arg-ref-4242"
ARG = f"FILES_TOKEN={digest(SECRET)}"
VARIABLE = "OPENCLAW_MCP_FILES_ARG_1"


def export(tmp_path: Path, stdio_script: Path, fmt: str, relative: str) -> tuple[Project, list[str]]:
    state = tmp_path / "state"
    (state / "home").mkdir(parents=True)
    (state / "work").mkdir()
    server = {"command": sys.executable, "args": [str(stdio_script), ARG], "env": {"FILES_TOKEN": SECRET}}
    assert oc(state, "set", "files", json.dumps(server)).returncode == 0
    result = oc(state, "export", "--format", fmt, "--output", str(state / relative), "--json")
    assert result.returncode == 0, result.stderr
    assert ARG not in (state / relative).read_text() and digest(SECRET) not in result.stdout + result.stderr
    warnings: list[str] = json.loads(result.stdout)["warnings"]
    return Project(state, None, [str(stdio_script), ARG]), warnings  # type: ignore[arg-type]


def test_claude_code_resolves_an_argument_reference(
    agent_clients: AgentClients, tmp_path: Path, stdio_mcp_server: Path
) -> None:
    project, _ = export(tmp_path, stdio_mcp_server, "claude", "work/.mcp.json")
    entry = json.loads((project.work / ".mcp.json").read_text())["mcpServers"]["files"]
    assert entry["args"] == [str(stdio_mcp_server), f"${{{VARIABLE}}}"]
    settings = project.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    listed = run_client(agent_clients, project, "claude", "mcp", "list", env={"FILES_TOKEN": SECRET, VARIABLE: ARG})
    assert listed.returncode == 0, listed.stderr
    line = by_name(listed.stdout.splitlines()).get("files", "")
    assert "✔ Connected" in line, listed.stdout + listed.stderr


def test_gemini_cli_resolves_an_argument_reference(
    agent_clients: AgentClients, tmp_path: Path, stdio_mcp_server: Path
) -> None:
    project, _ = export(tmp_path, stdio_mcp_server, "gemini", "work/.gemini/settings.json")
    trusted = project.home / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir(parents=True)
    trusted.write_text(json.dumps({str(project.work): "TRUST_FOLDER"}), encoding="utf-8")
    listed = run_client(agent_clients, project, "gemini", "mcp", "list", env={"FILES_TOKEN": SECRET, VARIABLE: ARG})
    text = listed.stdout + listed.stderr
    assert listed.returncode == 0, text
    line = by_name(text.splitlines(), strip="○✓✗● ").get("files", "")
    assert "Connected" in line and "Disconnected" not in line, text


def test_codex_refuses_the_server_with_one_line(tmp_path: Path, stdio_mcp_server: Path) -> None:
    project, warnings = export(tmp_path, stdio_mcp_server, "codex", "home/.codex/config.toml")
    assert "files" not in (project.home / ".codex" / "config.toml").read_text()
    refusals = [line for line in warnings if 'server "files"' in line]
    assert len(refusals) == 1 and "--include-secrets" in refusals[0], warnings
