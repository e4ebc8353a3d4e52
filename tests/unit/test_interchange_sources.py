"""Import sources beyond the plain JSON files: the migrate-claude plan (spec runtime-projection §9.1, §10 test
14), Hermes' ``config.yaml`` (§9.2), Claude Desktop; and export's OAuth token and ``--agent`` through the CLI
with a real SQLite OAuth store."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
import yaml

from openclaw_mcp.domain.interchange.hermes import import_hermes
from openclaw_mcp.domain.interchange.migrate_claude import claude_source_servers, migrate_claude_items, sanitize_item_id
from tests.unit.test_interchange_cli import make_state, oc, servers_of
from tests.unit.test_projection import stored_token


def test_14_a_name_in_two_claude_sources_is_a_conflict_in_both_items() -> None:
    project = {"mcpServers": {"a": {"command": "x", "timeout": 5, "type": "stdio"}}}
    desktop = {"mcpServers": {"a": {"command": "y"}}}
    items = migrate_claude_items(
        [
            ("project-mcp", claude_source_servers("project-mcp", project)),
            ("desktop", claude_source_servers("desktop", desktop)),
        ]
    )
    assert [item.name for item in items] == ["a", "a"]
    assert [item.conflict for item in items] == ['multiple Claude MCP sources define "a"'] * 2
    first = items[0]
    assert json.dumps(first.value, separators=(",", ":")) == '{"a":{"command":"x","type":"stdio"}}'
    assert first.id == "config:mcp-server:project-mcp:a"
    assert first.target == "mcp.servers.a"
    assert first.message == 'Import Claude MCP server "a" from project .mcp.json.'
    assert items[1].message == 'Import Claude MCP server "a" from Claude Desktop config.'


def test_migrate_claude_skips_blank_and_keyless_servers_and_reports_existing_targets() -> None:
    servers = {"  ": {"command": "x"}, "list": [], "empty": {"timeout": 3}, " Docs Server ": {"url": "https://d"}}
    whole = claude_source_servers("project-mcp", servers)  # no mcpServers key: the whole object
    items = migrate_claude_items([("project-mcp", whole)], existing={"Docs Server"})
    assert [(item.name, item.id, item.conflict) for item in items] == [
        ("Docs Server", "config:mcp-server:project-mcp:docs-server", "target exists")
    ]
    assert migrate_claude_items([("project-mcp", whole)], existing={"Docs Server"}, overwrite=True)[0].conflict is None
    claude_json = {"mcpServers": {"u": {"command": "u"}}, "projects": {"/p": {"mcpServers": {"p": {"command": "p"}}}}}
    assert list(claude_source_servers("user-claude-json", claude_json)) == ["u"]
    assert list(claude_source_servers("user-claude-json-project", claude_json, "/p")) == ["p"]
    assert sanitize_item_id("  --Ünïcode__Name!! ") == "n-code__name"


HERMES = """
mcp_servers:
  files:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]
    connect_timeout: 5
    timeout: 30
    tools:
      include: [read_file, "list_?"]
      resources: false
  remote:
    url: https://mcp.example.com/mcp
    ssl_verify: false
    auth: oauth
    oauth: {scope: "docs.read", clientSecret: "no"}
    sampling: {enabled: true}
  events:
    url: https://events.example.com/sse
    transport: sse
  nothing:
    enabled: true
"""


def test_hermes_servers_map_to_mcp_servers_with_manual_review_lines() -> None:
    result = import_hermes("/h/config.yaml", yaml.safe_load(HERMES))
    assert result.problems == []
    by_name = {server.name: server.server for server in result.servers}
    assert by_name["files"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"],
        "connectionTimeoutMs": 5000,
        "requestTimeoutMs": 30000,
        "toolFilter": {"include": ["read_file"], "exclude": ["resources_list", "resources_read"]},
    }
    assert by_name["remote"] == {
        "url": "https://mcp.example.com/mcp",
        "sslVerify": False,
        "transport": "streamable-http",
        "auth": "oauth",
        "oauth": {"scope": "docs.read"},
    }
    assert by_name["events"] == {"url": "https://events.example.com/sse", "transport": "sse"}
    assert "nothing" not in by_name
    kinds = sorted(line.split(":")[1] for line in result.manual)
    assert kinds == ["mcp-server-no-target", "mcp-server-sampling", "mcp-server-tool-pattern"]


def test_hermes_import_through_the_cli_reads_the_default_file(tmp_path: Path) -> None:
    state = make_state(tmp_path, {})
    hermes = state / "home" / ".hermes"
    hermes.mkdir()
    (hermes / "config.yaml").write_text(HERMES)
    result = oc(state, "import", "--from", "hermes")
    assert result.returncode == 0, result.stderr
    assert sorted(servers_of(state)) == ["events", "files", "remote"]
    assert "manual:mcp-server-sampling:remote" in result.stdout + result.stderr


def test_claude_desktop_import_reads_the_linux_default_location(tmp_path: Path) -> None:
    state = make_state(tmp_path, {})
    desktop = state / "home" / ".config" / "Claude"
    desktop.mkdir(parents=True)
    config = {"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs"], "env": {"ROOT": "/srv"}}}}
    (desktop / "claude_desktop_config.json").write_text(json.dumps(config))
    result = oc(state, "import", "--from", "claude-desktop")
    assert result.returncode == 0, result.stderr
    assert servers_of(state) == {"fs": {"command": "npx", "args": ["-y", "fs"], "env": {"ROOT": "/srv"}}}


TOKD = {"url": "https://tokd.example.com/mcp", "transport": "streamable-http", "auth": "oauth"}
TOKEN = "sek-oauth-at-7777"


@pytest.mark.parametrize("fmt", ["claude", "codex", "gemini", "cursor", "vscode"])
def test_a_stored_oauth_token_is_exported_only_with_include_secrets(tmp_path: Path, fmt: str) -> None:
    state = make_state(tmp_path, {"tokd": TOKD})

    async def seed() -> None:
        async with stored_token(state / "state", "tokd", TOKD["url"], TOKEN):
            pass

    anyio.run(seed)
    plain = oc(state, "export", "--format", fmt, "--output", str(tmp_path / "plain"))
    assert plain.returncode == 0, plain.stderr
    for text in ((tmp_path / "plain").read_text(), plain.stdout, plain.stderr):
        assert TOKEN not in text
    literal = oc(state, "export", "--format", fmt, "--output", str(tmp_path / "literal"), "--include-secrets")
    assert literal.returncode == 0, literal.stderr
    assert f"Bearer {TOKEN}" in (tmp_path / "literal").read_text()
    assert TOKEN not in literal.stdout + literal.stderr
    assert (tmp_path / "literal").stat().st_mode & 0o777 == 0o600


def test_export_for_an_agent_keeps_only_the_servers_codex_agents_allow(tmp_path: Path) -> None:
    servers = {
        "all": {"command": "a"},
        "ops-only": {"command": "o", "codex": {"agents": ["ops"]}},
        "research": {"command": "r", "codex": {"agents": [" Research "]}},  # trimmed, case-folded
    }
    state = make_state(tmp_path, servers)
    cases = (("ops", ["all", "ops-only"]), ("RESEARCH", ["all", "research"]), (None, ["all", "ops-only", "research"]))
    for agent, expected in cases:
        argv = ["export", "--format", "claude", "--output", "-"]
        if agent is not None:
            argv += ["--agent", agent]
        result = oc(state, *argv)
        assert result.returncode == 0, result.stderr
        assert sorted(json.loads(result.stdout)["mcpServers"]) == expected, agent
