"""Real clients read what ``openclaw mcp export`` writes (issue: one registry for every agent CLI).

Each test registers the same four servers with ``openclaw mcp set`` in an isolated state (``HOME``,
``OPENCLAW_STATE_DIR``, ``OPENCLAW_CONFIG_PATH``), exports them with ``--output`` to the file the client reads,
and has the client's own parser read it, offline (a dead proxy on 127.0.0.1:9 catches anything not loopback; no
login, no API key):

* Codex: ``codex mcp list --json`` with ``CODEX_HOME=<home>/.codex`` (``config.toml``); it does not connect, so
  the assertions are on the parsed transports.
* Claude Code: ``claude mcp list`` in the project holding ``.mcp.json``, approved by ``enableAllProjectMcpServers``
  in ``~/.claude/settings.json`` so it health-checks every server.
* Gemini CLI: ``gemini mcp list`` in the project holding ``.gemini/settings.json``, trusted by
  ``~/.gemini/trustedFolders.json`` (untrusted folders list every server as Disabled without connecting).

The stdio server ``files`` and the streamable-HTTP server ``docs`` are real loopback MCP servers that refuse a
wrong environment / wrong headers (see conftest.py), so Claude and Gemini reporting them connected proves they
resolved our ``${VAR}`` references to the secrets kept out of the file. ``events`` (SSE) and ``templated`` are
dead on purpose: only listed. Both clients exit 0 on a bad entry (skipped with a warning, or "Invalid
configuration"), so the output is also checked for their diagnostics.

Cursor and VS Code have no command that reads their files offline: ``.vscode/mcp.json`` is validated against
VS Code's own schema (schemas/vscode-mcp.schema.json, transcribed from microsoft/vscode), ``.cursor/mcp.json``
against the shape Cursor documents (schemas/cursor-mcp.schema.json; Cursor publishes none).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.clients.conftest import AgentClients, HttpMcpServer, digest
from tests.unit.test_interchange_cli import oc

TIMEOUT_S = 120
SECRET = "sek-client-9999"
TEAM = "core"
DEAD = "http://127.0.0.1:9"
SCHEMAS = Path(__file__).resolve().parent / "schemas"
OFFLINE = {
    "HTTPS_PROXY": f"{DEAD}",
    "HTTP_PROXY": f"{DEAD}",
    "https_proxy": f"{DEAD}",
    "http_proxy": f"{DEAD}",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}
QUIET = {
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "GEMINI_TELEMETRY_ENABLED": "false",
    "NO_BROWSER": "1",
}
# The variables `export` names for the secrets it keeps out of the files (it prints them): the client's
# environment supplies them.
CLIENT_ENV = {"FILES_PROOF": SECRET, "OPENCLAW_MCP_DOCS_TOKEN": SECRET, "OPENCLAW_MCP_DOCS_X_TEAM": TEAM}


@dataclass(frozen=True, slots=True)
class Project:
    state: Path
    http: HttpMcpServer
    stdio_args: list[str]

    @property
    def home(self) -> Path:
        return self.state / "home"

    @property
    def work(self) -> Path:
        return self.state / "work"


def servers(http: HttpMcpServer, stdio_script: Path) -> tuple[dict[str, Any], list[str]]:
    # The probe argument NAME=<sha256> is exported verbatim only because NAME does not read as a secret: an
    # argument such as FILES_TOKEN=<hex> is one the redactor hides, and export keeps it out of the files.
    stdio_args = [str(stdio_script), f"FILES_PROOF={digest(SECRET)}"]
    return {
        "files": {"command": sys.executable, "args": stdio_args, "env": {"FILES_PROOF": SECRET}},
        "docs": {
            "url": http.url,
            "transport": "streamable-http",
            "headers": {"Authorization": f"Bearer {SECRET}", "X-Team": TEAM},
            "requestTimeoutMs": 9000,
        },
        "events": {"url": f"{DEAD}/sse", "transport": "sse"},
        "templated": {"command": "/bin/true", "env": {"HOME_DIR": "${HOME}"}},
    }, stdio_args


NAMES = sorted(["files", "docs", "events", "templated"])


def exported(tmp_path: Path, http: HttpMcpServer, stdio_script: Path, fmt: str, relative: str) -> Project:
    state = tmp_path / "state"
    (state / "home").mkdir(parents=True)
    (state / "work").mkdir()
    registry, stdio_args = servers(http, stdio_script)
    for name, entry in registry.items():
        saved = oc(state, "set", name, json.dumps(entry))
        assert saved.returncode == 0, saved.stderr
    target = state / relative
    result = oc(state, "export", "--format", fmt, "--output", str(target), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert sorted(report["servers"]) == NAMES
    assert SECRET not in result.stdout + result.stderr
    assert SECRET not in target.read_text(encoding="utf-8")
    http.expected_headers = {"Authorization": f"Bearer {SECRET}", "X-Team": TEAM}
    return Project(state, http, stdio_args)


def run_client(
    clients: AgentClients, project: Project, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full = {
        "PATH": clients.path,
        "HOME": str(project.home),
        "CODEX_HOME": str(project.home / ".codex"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        **OFFLINE,
        **QUIET,
        **(env or {}),
    }
    return subprocess.run(
        [clients.command(argv[0]), *argv[1:]],
        env=full,
        cwd=project.work,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def by_name(lines: list[str], strip: str = "") -> dict[str, str]:
    found: dict[str, str] = {}
    for line in lines:
        name, colon, _ = line.lstrip(strip).partition(":")
        if colon and name.strip() in NAMES:
            found[name.strip()] = line
    return found


def test_codex_lists_every_exported_server_with_its_transport(
    agent_clients: AgentClients, tmp_path: Path, http_mcp_server: HttpMcpServer, stdio_mcp_server: Path
) -> None:
    project = exported(tmp_path, http_mcp_server, stdio_mcp_server, "codex", "home/.codex/config.toml")
    listed = run_client(agent_clients, project, "codex", "mcp", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    entries = {entry["name"]: entry for entry in json.loads(listed.stdout)}
    assert sorted(entries) == NAMES
    files = entries["files"]["transport"]
    assert (files["type"], files["command"], files["args"]) == ("stdio", sys.executable, project.stdio_args)
    assert files["env_vars"] == ["FILES_PROOF"]
    docs = entries["docs"]
    assert docs["transport"]["type"] == "streamable_http"
    assert docs["transport"]["url"] == http_mcp_server.url
    assert docs["transport"]["bearer_token_env_var"] == "OPENCLAW_MCP_DOCS_TOKEN"
    assert docs["transport"]["env_http_headers"] == {"X-Team": "OPENCLAW_MCP_DOCS_X_TEAM"}
    assert docs["tool_timeout_sec"] == 9
    assert entries["events"]["transport"]["type"] == "streamable_http"  # Codex has no SSE: a plain url
    assert entries["events"]["transport"]["url"] == f"{DEAD}/sse"
    assert entries["templated"]["transport"]["env_vars"] == ["HOME_DIR"]
    assert all(entry["enabled"] for entry in entries.values())
    table = run_client(agent_clients, project, "codex", "mcp", "list")
    assert table.returncode == 0, table.stderr
    for name in NAMES:
        assert any(line.split()[:1] == [name] for line in table.stdout.splitlines()), table.stdout


def test_claude_code_lists_and_connects_every_exported_server(
    agent_clients: AgentClients, tmp_path: Path, http_mcp_server: HttpMcpServer, stdio_mcp_server: Path
) -> None:
    project = exported(tmp_path, http_mcp_server, stdio_mcp_server, "claude", "work/.mcp.json")
    settings = project.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    listed = run_client(agent_clients, project, "claude", "mcp", "list", env=CLIENT_ENV)
    assert listed.returncode == 0, listed.stderr
    text = listed.stdout + listed.stderr
    for diagnostic in ("Skipped", "[Warning]", "[Error]", "Missing environment variables", "Pending approval"):
        assert diagnostic not in text, text
    lines = by_name(listed.stdout.splitlines())
    assert sorted(lines) == NAMES, text
    assert lines["files"].startswith(f"files: {sys.executable} {' '.join(project.stdio_args)} - ✔ Connected"), text
    assert lines["docs"].startswith(f"docs: {http_mcp_server.url} (HTTP) - ✔ Connected"), text
    assert lines["events"].startswith(f"events: {DEAD}/sse (SSE) - ✘ Failed to connect"), text
    assert lines["templated"].startswith("templated: /bin/true "), text
    assert http_mcp_server.seen and not http_mcp_server.rejected


def test_gemini_cli_lists_and_connects_every_exported_server(
    agent_clients: AgentClients, tmp_path: Path, http_mcp_server: HttpMcpServer, stdio_mcp_server: Path
) -> None:
    project = exported(tmp_path, http_mcp_server, stdio_mcp_server, "gemini", "work/.gemini/settings.json")
    trusted = project.home / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir(parents=True)
    trusted.write_text(json.dumps({str(project.work): "TRUST_FOLDER"}), encoding="utf-8")
    listed = run_client(agent_clients, project, "gemini", "mcp", "list", env=CLIENT_ENV)
    text = listed.stdout + listed.stderr  # the listing goes to stderr
    assert listed.returncode == 0, text
    for diagnostic in ("Invalid configuration", "Error in:", "untrusted", "Disabled"):
        assert diagnostic not in text, text
    lines = by_name(text.splitlines(), strip="○✓✗● ")
    assert sorted(lines) == NAMES, text
    assert f"✓ files: {sys.executable} {' '.join(project.stdio_args)} (stdio) - Connected" in lines["files"], text
    assert f"✓ docs: {http_mcp_server.url} (http) - Connected" in lines["docs"], text
    assert f"✗ events: {DEAD}/sse (sse) - Disconnected" in lines["events"], text
    assert "templated: /bin/true  (stdio)" in lines["templated"], text
    assert http_mcp_server.seen and not http_mcp_server.rejected


def schema(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(document)
    return document


@pytest.mark.parametrize(
    ("fmt", "relative", "schema_file", "key"),
    [
        ("vscode", "work/.vscode/mcp.json", "vscode-mcp.schema.json", "servers"),
        ("cursor", "work/.cursor/mcp.json", "cursor-mcp.schema.json", "mcpServers"),
    ],
)
def test_cursor_and_vscode_files_match_their_schemas(
    tmp_path: Path,
    http_mcp_server: HttpMcpServer,
    stdio_mcp_server: Path,
    fmt: str,
    relative: str,
    schema_file: str,
    key: str,
) -> None:
    project = exported(tmp_path, http_mcp_server, stdio_mcp_server, fmt, relative)
    document = json.loads((project.state / relative).read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(schema(schema_file)).validate(document)
    entries = document[key]
    assert sorted(entries) == NAMES
    assert entries["files"]["command"] == sys.executable
    assert entries["files"]["args"] == project.stdio_args
    assert entries["files"]["env"] == {"FILES_PROOF": "${env:FILES_PROOF}"}
    assert entries["docs"]["url"] == http_mcp_server.url
    assert entries["docs"]["headers"] == {
        "Authorization": "Bearer ${env:OPENCLAW_MCP_DOCS_TOKEN}",
        "X-Team": "${env:OPENCLAW_MCP_DOCS_X_TEAM}",
    }
    assert entries["events"]["type"] == "sse"


@pytest.mark.parametrize(
    ("schema_file", "document"),
    [
        ("vscode-mcp.schema.json", {"mcpServers": {}}),
        ("vscode-mcp.schema.json", {"servers": {"a": {"type": "stdio", "command": "x", "url": "http://h"}}}),
        ("vscode-mcp.schema.json", {"servers": {"a": {"type": "streamable-http", "url": "http://h"}}}),
        ("vscode-mcp.schema.json", {"servers": {"a": {"url": "ws://h"}}}),
        ("cursor-mcp.schema.json", {"servers": {}}),
        ("cursor-mcp.schema.json", {"mcpServers": {"a": {"command": "x", "transport": "stdio"}}}),
        ("cursor-mcp.schema.json", {"mcpServers": {"a": {"url": "http://h", "env": {}}}}),
    ],
)
def test_the_schemas_reject_what_the_clients_reject(schema_file: str, document: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(schema(schema_file)).validate(document)
