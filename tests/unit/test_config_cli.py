"""``openclaw config get/set/unset/validate`` (the ``mcp`` section) and ``openclaw doctor`` (MCP repairs):
our implementation on temp homes, called directly (``config_main`` / ``doctor_main``) and once as a process."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.domain.config_paths import (
    PathError,
    apply_hint,
    changed_leaf_paths,
    format_path,
    mcp_view,
    migrate_legacy_mcp,
    parse_path,
    parse_set_value,
)
from openclaw_mcp.domain.shell_quoting import posix_quote as quote_cli_arg
from openclaw_mcp.entrypoints.cli.config_cli import config_main
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.doctor_cli import doctor_main


class Home:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.dir = root / ".openclaw"
        self.dir.mkdir()
        self.config = self.dir / "openclaw.json"
        self.env = {"HOME": str(root)}

    def write(self, document: Any) -> None:
        self.config.write_text(document if isinstance(document, str) else json.dumps(document))

    def read(self) -> Any:
        return json.loads(self.config.read_text())

    def run(self, *argv: str, doctor: bool = False) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        console = Console(out, err)
        code = (doctor_main if doctor else config_main)(list(argv), self.env, console)
        return code, out.getvalue(), err.getvalue()


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


LEGACY: dict[str, Any] = {
    "mcp": {
        "servers": {
            "a": {"command": "echo", "type": "stdio", "disabled": True},
            "b": {
                "url": "https://h.example/mcp",
                "type": "http",
                "connectTimeout": 5,
                "workingDirectory": "/tmp",
                "ssl_verify": False,
                "codex": {"default_tools_approval_mode": "auto"},
            },
        }
    },
    "skills": {"entries": {"x": {"enabled": True}}},
}


# -- paths ------------------------------------------------------------------------------------------


def test_paths_parse_dots_brackets_and_quoted_keys() -> None:
    assert parse_path("mcp.servers.a.command").tokens == ("mcp", "servers", "a", "command")
    assert parse_path('mcp.servers["a.b"].url').tokens == ("mcp", "servers", "a.b", "url")
    assert parse_path("mcp.servers['x y'].args[0]").tokens == ("mcp", "servers", "x y", "args", 0)
    assert parse_path(r"mcp.servers.a\.b").tokens == ("mcp", "servers", "a.b")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("mcp..x", "Invalid path (empty segment): mcp..x"),
        ("mcp.servers.__proto__", "Invalid path segment: __proto__"),
        ("mcp[", 'Invalid path (missing "]"): mcp['),
        ("mcp[]", 'Invalid path (empty "[]"): mcp[]'),
        ("  ", "Path is empty."),
    ],
)
def test_bad_paths_are_refused_with_the_reference_message(raw: str, message: str) -> None:
    with pytest.raises(PathError, match=None) as caught:
        parse_path(raw)
    assert str(caught.value) == message


def test_paths_are_formatted_and_quoted_like_the_reference() -> None:
    assert format_path(("mcp", "servers", "a.b", "args", "0"), {"mcp": {"servers": {"a.b": {"args": ["x"]}}}}) == (
        'mcp.servers["a.b"].args[0]'
    )
    assert quote_cli_arg("mcp.servers.a") == "mcp.servers.a"
    assert quote_cli_arg("mcp.servers[a]") == "'mcp.servers[a]'"


def test_set_values_parse_as_json5_then_raw_text_or_strictly() -> None:
    assert parse_set_value("true", strict=False) is True
    assert parse_set_value("{a:1}", strict=False) == {"a": 1}
    assert parse_set_value("hello", strict=False) == "hello"
    with pytest.raises(ValueError, match=r'Could not parse "x" as JSON for --strict-json\. Unexpected token'):
        parse_set_value("x", strict=True)
    with pytest.raises(ValueError, match="Value must be a finite number, got Infinity"):
        parse_set_value("Infinity", strict=False)


def test_the_get_view_orders_keys_by_schema_and_redacts_secrets() -> None:
    mcp = {
        "apps": {"enabled": True},
        "servers": {
            "a": {
                "zeta": 1,
                "url": "https://u:pw@h.example/x",
                "command": "c",
                "apiKey": "k",
                "env": {"E": "", "F": "${MISSING}", "G": 5, "H": "v"},
                "headers": {"Authorization": "Bearer x"},
                "args": ["--token", "abc"],
            }
        },
        "sessionIdleTtlMs": 5,
    }
    view = mcp_view(mcp)
    assert isinstance(view, dict)
    assert list(view) == ["sessionIdleTtlMs", "servers", "apps"]
    server = view["servers"]["a"]
    assert list(server) == ["command", "args", "env", "url", "headers", "zeta", "apiKey"]
    assert server["env"] == {"E": "", "F": "${MISSING}", "G": "__OPENCLAW_REDACTED__", "H": "__OPENCLAW_REDACTED__"}
    assert server["url"] == server["apiKey"] == server["headers"]["Authorization"] == "__OPENCLAW_REDACTED__"
    assert server["args"] == ["--token", "abc"]


def test_the_apply_hint_follows_the_reload_plan() -> None:
    assert apply_hint(["mcp.apps.enabled"], reload_off=False) == "Restart the gateway to apply."
    assert apply_hint(["mcp.apps.sandboxOrigin"], reload_off=False).startswith("Change will apply")
    assert apply_hint(["mcp.servers.a.command"], reload_off=True) == "Restart the gateway to apply."
    assert apply_hint([], reload_off=False) == "No gateway restart needed."
    assert changed_leaf_paths({"servers": {"a": {"x": 1}}}, {}) == ["mcp.servers.a.x"]


def test_the_legacy_migration_rewrites_only_mcp_servers_in_the_reference_order() -> None:
    after, changes = migrate_legacy_mcp(LEGACY)
    assert changes == [
        "Moved mcp.servers.a.disabled true → enabled false.",
        "Moved mcp.servers.b.connectTimeout → connectionTimeoutMs (5000 ms).",
        "Canonicalized legacy aliases in mcp.servers.b.",
        'Removed mcp.servers.a.type "stdio".',
    ]
    assert after["mcp"]["servers"]["a"] == {"command": "echo", "enabled": False}
    assert list(after["mcp"]["servers"]["b"].items()) == [
        ("url", "https://h.example/mcp"),
        ("codex", {"defaultToolsApprovalMode": "auto"}),
        ("connectionTimeoutMs", 5000),
        ("transport", "streamable-http"),
        ("cwd", "/tmp"),
        ("sslVerify", False),
    ]
    assert after["skills"] == LEGACY["skills"]
    assert LEGACY["mcp"]["servers"]["a"]["disabled"] is True  # the input is not changed


# -- config get / set / unset -------------------------------------------------------------------------


def test_get_of_an_unset_path_names_the_set_command(home: Home) -> None:
    code, out, err = home.run("get", "mcp.apps.enabled")
    assert (code, out) == (1, "")
    assert err == (
        "Config path is valid but unset: mcp.apps.enabled. The runtime default applies until you set an authored "
        "value with openclaw config set mcp.apps.enabled <value>.\n"
    )
    code, out, _ = home.run("get", "--json", "mcp.foo")
    assert code == 1
    assert json.loads(out)["error"]["message"].startswith("Unknown config path: mcp.foo.")


def test_set_creates_the_file_and_get_reads_it_back(home: Home) -> None:
    code, out, err = home.run("set", "mcp.apps.enabled", "true", "--strict-json")
    assert (code, out, err) == (0, "Updated mcp.apps.enabled. Restart the gateway to apply.\n", "")
    written = home.read()
    assert written["mcp"] == {"apps": {"enabled": True}}
    assert "plugins" in written and written["meta"]["lastTouchedVersion"] == "2026.9.6"
    assert home.run("get", "mcp.apps.enabled") == (0, "true\n", "")
    assert home.run("get", "--json", "mcp.apps") == (0, '{\n  "enabled": true\n}\n', "")


def test_set_of_a_server_field_and_an_unchanged_value(home: Home) -> None:
    home.write({"mcp": {"servers": {"a": {"command": "x"}}}})
    assert home.run("set", "mcp.servers.a.command", "x") == (0, "No change\n", "")
    assert not (home.dir / "openclaw.json.bak").exists()
    code, out, _ = home.run("set", "mcp.servers.a.args", '["--x"]')
    assert (code, out) == (0, "Updated mcp.servers.a.args. Change will apply without restarting the gateway.\n")
    assert home.read()["mcp"]["servers"]["a"] == {"command": "x", "args": ["--x"]}
    assert (home.dir / "openclaw.json.bak").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ("set", "mcp.apps.enabled", '"x"', "--strict-json"),
            "Config validation failed: mcp.apps.enabled: Invalid input: expected boolean, received string "
            "(allowed: true, false)",
        ),
        (
            ("set", "mcp.servers.a", "{command:'y',args:[1]}"),
            "Config validation failed: mcp.servers.a.args.0: Invalid input: expected string, received number",
        ),
        (("set", "gateway.port", "1"), 'openclaw-mcp manages only the mcp section; "gateway.port" is outside it.'),
        (("unset", "agents"), 'openclaw-mcp manages only the mcp section; "agents" is outside it.'),
        (
            ("unset", "mcp.servers.b"),
            "Config path not found: mcp.servers.b. Nothing was changed. Run openclaw config get <path> first if you "
            "are unsure of the path.",
        ),
        (("set", "mcp.servers.a"), "config set mode error: value/json mode requires <value>."),
        (("set", "--dry-run", "mcp.x", "1"), 'openclaw-mcp does not support "--dry-run" for openclaw config set.'),
    ],
)
def test_refused_edits_print_one_line_and_write_nothing(home: Home, argv: tuple[str, ...], message: str) -> None:
    home.write({"mcp": {"servers": {"a": {"command": "x"}}}})
    before = home.config.read_text()
    assert home.run(*argv) == (1, "", message + "\n")
    assert home.config.read_text() == before
    assert sorted(p.name for p in home.dir.iterdir()) == ["openclaw.json"]


def test_unset_removes_the_path(home: Home) -> None:
    home.write({"mcp": {"servers": {"a": {"command": "x"}, "b": {"command": "y"}}}})
    code, out, _ = home.run("unset", "mcp.servers.a")
    assert (code, out) == (0, "Removed mcp.servers.a. Change will apply without restarting the gateway.\n")
    assert home.read()["mcp"] == {"servers": {"b": {"command": "y"}}}


def test_an_invalid_config_blocks_set_with_the_guard_block_and_get_with_its_short_form(home: Home) -> None:
    home.write({"mcp": {"servers": {"a": {"command": "x", "disabled": True}}}})
    code, _, err = home.run("set", "mcp.apps.enabled", "true")
    assert code == 1
    assert err.startswith("OpenClaw config is invalid\nFile: ~/.openclaw/openclaw.json\nProblem:\n")
    assert "Legacy config keys detected:" in err
    code, _, err = home.run("get", "mcp")
    assert code == 1
    assert err.splitlines()[0] == "OpenClaw config is invalid: ~/.openclaw/openclaw.json"
    assert err.splitlines()[-1] == "Run `openclaw doctor --fix` to repair, then retry."


def test_usage_errors_of_get_also_print_the_envelope(home: Home) -> None:
    code, out, err = home.run("get")
    assert (code, err) == (1, 'Missing required argument "path".\nTry: openclaw config get --help\n')
    assert json.loads(out)["error"]["message"] == 'Missing required argument "path".\nTry: openclaw config get --help'
    assert home.run("frob") == (
        1,
        "",
        'OpenClaw config has no command "frob".\nTry: openclaw config --help\nDocs: https://docs.openclaw.ai/cli\n',
    )


def test_read_only_mode_refuses_writes(home: Home) -> None:
    home.env["OPENCLAW_CONFIG_READONLY"] = "1"
    code, _, err = home.run("set", "mcp.apps.enabled", "true")
    assert code == 1
    assert err.startswith("Config is externally managed (`OPENCLAW_CONFIG_READONLY=1`)")
    assert not home.config.exists()


# -- config validate ----------------------------------------------------------------------------------


def test_validate_reports_missing_valid_and_invalid_configs(home: Home) -> None:
    assert home.run("validate") == (
        1,
        "",
        "Config file not found: ~/.openclaw/openclaw.json\nCreate one with openclaw onboard or run openclaw "
        "doctor --fix.\n",
    )
    code, out, _ = home.run("validate", "--json")
    assert code == 1 and json.loads(out)["error"]["message"] == "file not found"
    home.write({"mcp": {"servers": {"a": {"command": "x"}}}})
    assert home.run("validate") == (0, "Config valid: ~/.openclaw/openclaw.json\n", "")
    assert home.run("validate", "--json")[1] == (f'{{"valid":true,"path":"{home.config}","warnings":[]}}\n')
    home.write('{"mcp":{"servers":{"b":{"command":5}}}}')
    code, out, err = home.run("validate")
    assert (code, out) == (1, "")
    assert err.splitlines()[1] == (
        "  × openclaw.json:1 — mcp.servers.b.command: Invalid input: expected string, received number"
    )


# -- doctor -------------------------------------------------------------------------------------------


def test_doctor_fix_migrates_legacy_keys_keeps_a_backup_and_leaves_other_sections(home: Home) -> None:
    home.write(LEGACY)
    code, out, err = home.run("--fix", doctor=True)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "Migrated legacy config keys in the active openclaw.json:",
        "- Moved mcp.servers.a.disabled true → enabled false.",
        "- Moved mcp.servers.b.connectTimeout → connectionTimeoutMs (5000 ms).",
        "- Canonicalized legacy aliases in mcp.servers.b.",
        '- Removed mcp.servers.a.type "stdio".',
        "Updated config: ~/.openclaw/openclaw.json",
        "  Backup: ~/.openclaw/openclaw.json.bak",
    ]
    written = home.read()
    assert written["mcp"]["servers"]["a"] == {"command": "echo", "enabled": False}
    assert written["skills"] == LEGACY["skills"]
    assert json.loads((home.dir / "openclaw.json.bak").read_text()) == LEGACY
    assert home.run("validate")[0] == 0
    assert home.run("--fix", doctor=True) == (
        0,
        "No legacy MCP config keys to migrate in ~/.openclaw/openclaw.json.\n",
        "",
    )


def test_doctor_writes_nothing_while_other_issues_remain(home: Home) -> None:
    home.write({"mcp": {"servers": {"a": {"command": "x", "disabled": True}, "b": {"command": 5}}}})
    before = home.config.read_text()
    code, out, err = home.run(doctor=True)
    assert code == 0
    assert "Doctor changes preview:\n- Moved mcp.servers.a.disabled true → enabled false.\n" in out
    assert err.splitlines()[0] == f"Invalid config at {home.config}:"
    code, out, _ = home.run("--fix", doctor=True)
    assert code == 1
    assert "- mcp.servers.b.command: Invalid input: expected string, received number" in out.splitlines()
    assert out.splitlines()[-1] == "Doctor finished, but config fixes were not applied."
    assert home.config.read_text() == before
    assert not (home.dir / "openclaw.json.bak").exists()


def test_doctor_refuses_options_it_does_not_provide(home: Home) -> None:
    assert home.run("--json", doctor=True) == (1, "", 'openclaw-mcp does not support "--json" for openclaw doctor.\n')
    assert home.run("--bogus", doctor=True) == (
        1,
        "",
        'OpenClaw does not recognize option "--bogus".\nTry: openclaw doctor --help\n',
    )


def test_config_main_runs_in_a_process_without_a_traceback(home: Home) -> None:
    code = (
        "import os, sys\n"
        "from openclaw_mcp.entrypoints.cli.config_cli import config_main\n"
        "from openclaw_mcp.entrypoints.cli.console import Console\n"
        "sys.exit(config_main(sys.argv[1:], os.environ, Console()))\n"
    )
    home.write("{")
    result = subprocess.run(
        [sys.executable, "-c", code, "set", "mcp.apps.enabled", "true"],
        env={**home.env, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "JSON5 parse failed" in result.stderr
