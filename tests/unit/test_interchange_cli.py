"""``openclaw mcp export`` / ``import`` as real processes on an isolated HOME, state dir and config."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = [str(ROOT / ".venv" / "bin" / "openclaw"), "mcp"]
FORMATS = ("claude", "codex", "gemini", "cursor", "vscode")
SECRETS = ("sek-env-1111", "sek-hdr-2222", "sek-user-3333", "sek-query-4444", "sek-other-5555")


def oc(state: Path, *argv: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "CODEX_HOME": str(state / "home" / ".codex"),
        "LANG": "C.UTF-8",
    }
    env.update(extra)
    work = state / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run([*CLI, *argv], env=env, cwd=work, capture_output=True, text=True, timeout=60, check=False)


def make_state(root: Path, servers: dict[str, Any] | None = None) -> Path:
    (root / "home").mkdir(parents=True)
    if servers is not None:
        (root / "openclaw.json").write_text(json.dumps({"mcp": {"servers": servers}}, indent=2) + "\n")
    return root


def servers_of(state: Path) -> dict[str, Any]:
    return json.loads((state / "openclaw.json").read_text())["mcp"]["servers"]  # type: ignore[no-any-return]


PLANTED = {
    "local": {"command": "node", "args": ["s.js"], "env": {"API_KEY": SECRETS[0]}},
    "remote": {
        "url": f"https://bob:{SECRETS[2]}@api.example/mcp?token={SECRETS[3]}&page=1",
        "transport": "streamable-http",
        "headers": {"Authorization": f"Bearer {SECRETS[1]}", "X-Other": SECRETS[4]},
    },
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_planted_secret_reaches_an_exported_file_without_include_secrets(tmp_path: Path, fmt: str) -> None:
    state = make_state(tmp_path, PLANTED)
    out = tmp_path / "out" / "file"
    result = oc(state, "export", "--format", fmt, "--output", str(out), "--json")
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    for secret in SECRETS:
        assert secret not in text
        assert secret not in result.stdout
    report = json.loads(result.stdout)
    names = {variable["name"] for variable in report["variables"]}
    assert {"API_KEY", "OPENCLAW_MCP_REMOTE_TOKEN", "OPENCLAW_MCP_REMOTE_X_OTHER"} <= names
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


@pytest.mark.parametrize("fmt", FORMATS)
def test_include_secrets_writes_them_in_a_0600_file_and_backup(tmp_path: Path, fmt: str) -> None:
    state = make_state(tmp_path, PLANTED)
    out = tmp_path / "out.file"
    out.write_text("" if fmt == "codex" else "{}")
    result = oc(state, "export", "--format", fmt, "--output", str(out), "--include-secrets")
    assert result.returncode == 0, result.stderr
    assert SECRETS[0] in out.read_text() and SECRETS[1] in out.read_text()
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(f"{out}.bak").stat().st_mode) == 0o600


ROUND_TRIP = {
    "local": {"command": "node", "args": ["s.js"], "env": {"API_KEY": "v1"}},
    "remote": {
        "url": "https://api.example/mcp",
        "transport": "streamable-http",
        "headers": {"Authorization": "Bearer t0k"},
    },
}


@pytest.mark.parametrize("secrets", [True, False], ids=["include-secrets", "references"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_export_then_import_yields_the_same_servers(tmp_path: Path, fmt: str, secrets: bool) -> None:
    source = make_state(tmp_path / "a", ROUND_TRIP)
    out = tmp_path / "exported"
    flags = ["--include-secrets"] if secrets else []
    assert oc(source, "export", "--format", fmt, "--output", str(out), *flags).returncode == 0
    target = make_state(tmp_path / "b")
    result = oc(target, "import", "--from", fmt, str(out))
    assert result.returncode == 0, result.stderr
    expected = json.loads(json.dumps(ROUND_TRIP))
    if not secrets:
        expected["local"]["env"] = {"API_KEY": "${API_KEY}"}
        expected["remote"]["headers"] = {"Authorization": "Bearer ${OPENCLAW_MCP_REMOTE_TOKEN}"}
    assert servers_of(target) == expected


def test_codex_merge_keeps_other_tables_and_comments_and_makes_a_backup(tmp_path: Path) -> None:
    state = make_state(tmp_path, {"local": {"command": "node", "enabled": False}})
    config = tmp_path / "home" / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    before = (
        '# my settings\nmodel = "o3"  # keep\n\n[mcp_servers.other]\ncommand = "x"\n\n'
        '[mcp_servers.local]\ncommand = "old"\n\n[profiles.fast]\nmodel = "mini"\n'
    )
    config.write_text(before)
    result = oc(state, "export", "--format", "codex")
    assert result.returncode == 0, result.stderr
    text = config.read_text()
    assert "# my settings" in text and 'model = "o3"  # keep' in text and "[profiles.fast]" in text
    assert "[mcp_servers.other]" in text and 'command = "old"' not in text
    assert "enabled = false" in text
    assert Path(f"{config}.bak").read_text() == before


def test_json_merge_keeps_unrelated_keys_and_vscode_says_comments_were_lost(tmp_path: Path) -> None:
    state = make_state(tmp_path, {"local": {"command": "node"}})
    target = tmp_path / "work" / ".vscode" / "mcp.json"
    target.parent.mkdir(parents=True)
    target.write_text(
        '// mine\n{"inputs": [{"id": "k", "type": "promptString"}],'
        ' "servers": {"keep": {"type": "stdio", "command": "k"},},}'
    )
    result = oc(state, "export", "--format", "vscode")
    assert result.returncode == 0, result.stderr
    data = json.loads(target.read_text())
    assert data["inputs"] == [{"id": "k", "type": "promptString"}]
    assert set(data["servers"]) == {"keep", "local"}
    assert "Comments" in result.stdout
    assert Path(f"{target}.bak").exists()


@pytest.mark.parametrize(
    ("fmt", "name", "text", "expected"),
    [
        (
            "claude",
            ".mcp.json",
            '{"mcpServers": {"foo": {"type": "weird", "url": "https://x"}}}',
            'mcpServers.foo: unknown transport "weird"',
        ),
        ("claude", ".mcp.json", '{"mcpServers": {"foo": {"args": ["a"]}}}', "mcpServers.foo: needs a command or a url"),
        ("cursor", "mcp.json", '{"mcpServers": {"foo": {"command": 3}}}', "mcpServers.foo: command must be a string"),
        (
            "vscode",
            "mcp.json",
            "{servers: {foo: {command: 'x', args: 'no'}}}",
            "servers.foo: args must be an array of strings",
        ),
        ("gemini", "settings.json", "{broken", "invalid JSON"),
        ("codex", "config.toml", "[mcp_servers.foo\n", "invalid TOML"),
        (
            "codex",
            "config.toml",
            '[mcp_servers.foo]\ncommand = "x"\nstartup_timeout_sec = "slow"\n',
            "mcp_servers.foo: startup_timeout_sec must be a number",
        ),
        ("hermes", "config.yaml", "mcp_servers: [unclosed\n", "invalid YAML"),
        ("claude", ".mcp.json", '{"mcpServers": {"foo": {"url": "ftp://x"}}}', "mcpServers.foo: mcp.servers.foo.url"),
    ],
)
def test_malformed_foreign_files_fail_with_one_line_each_and_write_nothing(
    tmp_path: Path, fmt: str, name: str, text: str, expected: str
) -> None:
    state = make_state(tmp_path, {"keep": {"command": "k"}})
    before = (state / "openclaw.json").read_bytes()
    source = tmp_path / name
    source.write_text(text)
    result = oc(state, "import", "--from", fmt, str(source))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = [
        line
        for line in result.stderr.splitlines()
        if line.startswith("import: ") and line != "import: nothing written."
    ]
    assert len(lines) == 1 and lines[0].startswith(f"import: {source}: ") and expected in lines[0], result.stderr
    assert (state / "openclaw.json").read_bytes() == before


def test_dry_run_writes_nothing_and_conflicts_are_skipped_unless_overwrite(tmp_path: Path) -> None:
    state = make_state(tmp_path, {"keep": {"command": "k"}})
    before = (state / "openclaw.json").read_bytes()
    source = tmp_path / ".mcp.json"
    source.write_text(
        json.dumps({"mcpServers": {"keep": {"command": "new"}, "fresh": {"type": "stdio", "command": "f"}}})
    )
    dry = oc(state, "import", "--from", "claude", str(source), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert (state / "openclaw.json").read_bytes() == before
    assert 'Skipped "keep": target exists.' in dry.stdout and "fresh" in dry.stdout
    real = oc(state, "import", "--from", "claude", str(source))
    assert real.returncode == 0
    assert servers_of(state) == {"keep": {"command": "k"}, "fresh": {"command": "f"}}
    over = oc(state, "import", "--from", "claude", str(source), "--overwrite", "--json")
    assert json.loads(over.stdout)["imported"] == ["keep", "fresh"]
    assert servers_of(state)["keep"] == {"command": "new"}


def test_claude_default_sources_report_names_defined_twice(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"dup": {"command": "a"}, "p": {"command": "p"}}})
    )
    (tmp_path / "home" / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {"dup": {"command": "b"}},
                "projects": {str(tmp_path / "work"): {"mcpServers": {"q": {"command": "q", "extra": 1}}}},
            }
        )
    )
    result = oc(state, "import", "--from", "claude")
    assert result.returncode == 0, result.stderr
    assert 'Skipped "dup": multiple Claude MCP sources define "dup".' in result.stdout
    assert servers_of(state) == {"p": {"command": "p"}, "q": {"command": "q"}}


def test_export_to_stdout_and_both_commands_have_help_but_stay_out_of_the_group_help(tmp_path: Path) -> None:
    state = make_state(tmp_path, {"local": {"command": "node"}})
    result = oc(state, "export", "--format", "claude", "--output", "-")
    assert json.loads(result.stdout) == {"mcpServers": {"local": {"type": "stdio", "command": "node"}}}
    assert not (tmp_path / "work" / ".mcp.json").exists()
    listing = oc(state, "--help").stdout  # the group help stays the reference's (ours-only commands are hidden)
    assert "export " not in listing and "import " not in listing
    assert "--include-secrets" in oc(state, "export", "--help").stdout
    assert "--overwrite" in oc(state, "import", "--help").stdout
    missing = oc(state, "export")
    assert missing.returncode == 1 and "export: --format is required" in missing.stderr
