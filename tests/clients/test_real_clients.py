"""Real clients read what ``openclaw mcp export`` writes (issue: one registry for every agent CLI).

Codex (``codex mcp list --json`` with a temporary ``CODEX_HOME``), Claude Code (``claude mcp list`` in the
project holding the exported ``.mcp.json``) and the Gemini CLI (``gemini mcp list`` in the project holding
``.gemini/settings.json``) each run offline with a temporary ``HOME`` (a dead proxy makes sure nothing goes to
the network) and must list every exported server, with our transports and variable references. Cursor and VS
Code have no offline command that reads their files and their JSON schemas are not published as files, so
``.cursor/mcp.json`` and ``.vscode/mcp.json`` are validated against schemas written here from the two
clients' configuration references (the fields each documents, nothing more allowed).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.clients.conftest import AgentClients
from tests.unit.test_interchange_cli import make_state, oc

TIMEOUT_S = 120
SECRET = "sek-client-9999"
SERVERS: dict[str, Any] = {
    "files": {"command": "/bin/true", "args": ["--root", "/srv"], "env": {"FILES_TOKEN": SECRET}},
    "docs": {
        "url": "http://127.0.0.1:9/mcp",
        "transport": "streamable-http",
        "headers": {"Authorization": f"Bearer {SECRET}", "X-Team": "core"},
        "requestTimeoutMs": 9000,
    },
    "events": {"url": "http://127.0.0.1:9/sse", "transport": "sse"},
    "templated": {"command": "/bin/true", "env": {"HOME_DIR": "${HOME}"}},
}
OFFLINE = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}


def run_client(clients: AgentClients, state: Path, *argv: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": clients.path,
        "HOME": str(state / "home"),
        "CODEX_HOME": str(state / "home" / ".codex"),
        "LANG": "C.UTF-8",
        "DISABLE_AUTOUPDATER": "1",
        "CI": "1",
        **OFFLINE,
        **extra,
    }
    return subprocess.run(
        [clients.command(argv[0]), *argv[1:]],
        env=env,
        cwd=state / "work",
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def exported(tmp_path: Path, fmt: str) -> Path:
    state = make_state(tmp_path, SERVERS)
    result = oc(state, "export", "--format", fmt)
    assert result.returncode == 0, result.stderr
    assert SECRET not in result.stdout + result.stderr
    return state


def test_codex_lists_every_exported_server_with_its_transport(agent_clients: AgentClients, tmp_path: Path) -> None:
    state = exported(tmp_path, "codex")
    config = state / "home" / ".codex" / "config.toml"
    assert SECRET not in config.read_text()
    listed = run_client(agent_clients, state, "codex", "mcp", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    by_name = {entry["name"]: entry for entry in json.loads(listed.stdout)}
    assert sorted(by_name) == sorted(SERVERS)
    files = by_name["files"]["transport"]
    assert (files["type"], files["command"], files["args"]) == ("stdio", "/bin/true", ["--root", "/srv"])
    assert files["env_vars"] == ["FILES_TOKEN"]
    docs = by_name["docs"]
    assert docs["transport"]["type"] == "streamable_http"
    assert docs["transport"]["url"] == "http://127.0.0.1:9/mcp"
    assert docs["transport"]["bearer_token_env_var"] == "OPENCLAW_MCP_DOCS_TOKEN"
    assert docs["transport"]["env_http_headers"] == {"X-Team": "OPENCLAW_MCP_DOCS_X_TEAM"}
    assert docs["tool_timeout_sec"] == 9
    assert by_name["events"]["transport"]["type"] == "streamable_http"  # Codex has no SSE: a plain url
    assert all(entry["enabled"] for entry in by_name.values())


def test_claude_code_lists_every_exported_server(agent_clients: AgentClients, tmp_path: Path) -> None:
    state = exported(tmp_path, "claude")
    assert SECRET not in (state / "work" / ".mcp.json").read_text()
    listed = run_client(
        agent_clients, state, "claude", "mcp", "list", FILES_TOKEN="x", OPENCLAW_MCP_DOCS_TOKEN="y",
        OPENCLAW_MCP_DOCS_X_TEAM="z",
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    text = listed.stdout + listed.stderr
    assert "[Error]" not in text and "Missing environment variables" not in text, text
    lines = {line.split(":", 1)[0]: line for line in listed.stdout.splitlines() if ":" in line}
    assert lines["files"].startswith("files: /bin/true --root /srv")
    assert lines["docs"].startswith("docs: http://127.0.0.1:9/mcp (HTTP)")
    assert lines["events"].startswith("events: http://127.0.0.1:9/sse (SSE)")
    assert "templated" in lines


def test_gemini_cli_lists_every_exported_server(agent_clients: AgentClients, tmp_path: Path) -> None:
    state = exported(tmp_path, "gemini")
    assert SECRET not in (state / "work" / ".gemini" / "settings.json").read_text()
    listed = run_client(agent_clients, state, "gemini", "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    output = (listed.stdout + listed.stderr).splitlines()  # the listing goes to stderr
    lines = {line.split(":", 1)[0].lstrip("○✓✗● ").strip(): line for line in output if ":" in line}
    assert "files: /bin/true --root /srv (stdio)" in lines["files"]
    assert "docs: http://127.0.0.1:9/mcp (http)" in lines["docs"]
    assert "events: http://127.0.0.1:9/sse (sse)" in lines["events"]
    assert "templated" in lines


_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
_STDIO = {"command": {"type": "string", "minLength": 1}, "args": {"type": "array", "items": {"type": "string"}},
          "env": _STRINGS, "envFile": {"type": "string"}}  # fmt: skip
_REMOTE = {"url": {"type": "string", "minLength": 1}, "headers": _STRINGS}
VSCODE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["servers"],
    "additionalProperties": False,
    "properties": {
        "inputs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["type", "id"],
                "properties": {
                    "type": {"enum": ["promptString", "pickString"]},
                    "id": {"type": "string"},
                    "description": {"type": "string"},
                    "password": {"type": "boolean"},
                },
            },
        },
        "servers": {
            "type": "object",
            "additionalProperties": {
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["type", "command"],
                        "additionalProperties": False,
                        "properties": {"type": {"const": "stdio"}, **_STDIO},
                    },
                    {
                        "type": "object",
                        "required": ["type", "url"],
                        "additionalProperties": False,
                        "properties": {"type": {"enum": ["http", "sse"]}, **_REMOTE},
                    },
                ]
            },
        },
    },
}
CURSOR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["mcpServers"],
    "properties": {
        "mcpServers": {
            "type": "object",
            "additionalProperties": {
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["command"],
                        "additionalProperties": False,
                        "properties": {"type": {"const": "stdio"}, **_STDIO},
                    },
                    {
                        "type": "object",
                        "required": ["url"],
                        "additionalProperties": False,
                        "properties": {"type": {"enum": ["http", "sse"]}, **_REMOTE},
                    },
                ]
            },
        }
    },
}


@pytest.mark.parametrize(
    ("fmt", "relative", "schema", "syntax"),
    [
        ("vscode", ".vscode/mcp.json", VSCODE_SCHEMA, "${env:"),
        ("cursor", ".cursor/mcp.json", CURSOR_SCHEMA, "${env:"),
    ],
)
def test_cursor_and_vscode_files_match_the_documented_shapes(
    tmp_path: Path, fmt: str, relative: str, schema: dict[str, Any], syntax: str
) -> None:
    state = exported(tmp_path, fmt)
    text = (state / "work" / relative).read_text()
    assert SECRET not in text
    document = json.loads(text)
    jsonschema.validate(document, schema)
    servers = document["servers" if fmt == "vscode" else "mcpServers"]
    assert sorted(servers) == sorted(SERVERS)
    assert servers["files"]["env"]["FILES_TOKEN"] == syntax + "FILES_TOKEN}"
