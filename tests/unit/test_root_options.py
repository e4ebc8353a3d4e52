"""The ``openclaw`` root options: the pure scan and profile paths, and the CLI end to end (``--profile``,
``--dev``, ``--container`` through a fake container runtime on ``PATH``, ``--log-level``, ``--no-color``,
``help``, ``--version``, command hints). Texts were observed with OpenClaw 2026.9.6; the differential test in
``tests/docker/test_root_options_differential.py`` compares a set of them with the installed reference."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from openclaw_mcp.entrypoints.cli.root_options import (
    RootOptionError,
    invalid_log_level_text,
    profile_env,
    scan_root_options,
)
from openclaw_mcp.entrypoints.command_hints import format_command_hints, hint_addition
from openclaw_mcp.entrypoints.runtime_api import SessionMcpRuntime

CLI = [sys.executable, "-m", "openclaw_mcp"]


def test_the_scan_takes_root_options_anywhere_before_a_double_dash() -> None:
    root = scan_root_options(["mcp", "list", "--profile", "work", "--no-color", "--log-level=debug", "--", "--dev"])
    assert root.argv == ("mcp", "list", "--", "--dev")
    assert (root.profile, root.no_color, root.log_level) == ("work", True, "debug")
    assert scan_root_options(["--dev", "mcp", "list"]).profile == "dev"
    assert scan_root_options(["--profile", "dev", "--dev"]).profile == "dev"
    container = scan_root_options(["--container=box", "--log-level", "info", "mcp", "list"])
    assert container.container == "box"
    assert container.without_container == ("--log-level", "info", "mcp", "list")


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["--profile"], "--profile requires a value"),
        (["--profile="], "--profile requires a value"),
        (["--profile", "-x"], "--profile requires a value"),
        (["--profile", "bad name"], 'Invalid --profile (use letters, numbers, "_", "-" only)'),
        (["--profile", "-" * 3], "--profile requires a value"),
        (["--dev", "--profile", "dev"], "Cannot combine --dev with --profile"),
        (["--profile", "work", "--dev"], "Cannot combine --dev with --profile"),
        (["mcp", "list", "--container"], "--container requires a value"),
    ],
)
def test_bad_root_options_have_the_reference_texts(argv: list[str], text: str) -> None:
    with pytest.raises(RootOptionError) as raised:
        scan_root_options(argv)
    assert str(raised.value) == text


def test_log_levels_are_the_reference_seven() -> None:
    assert all(invalid_log_level_text(level) is None for level in ("silent", "fatal", "warn", " trace "))
    assert invalid_log_level_text("DEBUG") == (
        "OpenClaw could not parse this command: option '--log-level <level>' argument 'DEBUG' is invalid. "
        "Invalid --log-level (use silent|fatal|error|warn|info|debug|trace)\nTry: openclaw --help"
    )


def test_profile_paths_follow_apply_cli_profile_env() -> None:
    assert profile_env("work", {}, "/h", "/cwd") == {
        "OPENCLAW_PROFILE": "work",
        "OPENCLAW_STATE_DIR": "/h/.openclaw-work",
        "OPENCLAW_CONFIG_PATH": "/h/.openclaw-work/openclaw.json",
    }
    assert profile_env("Default", {}, "/h", "/")["OPENCLAW_STATE_DIR"] == "/h/.openclaw"
    assert profile_env("dev", {}, "/h", "/")["OPENCLAW_GATEWAY_PORT"] == "19001"
    assert "OPENCLAW_GATEWAY_PORT" not in profile_env("dev", {"OPENCLAW_GATEWAY_PORT": "1"}, "/h", "/")
    kept = profile_env("work", {"OPENCLAW_STATE_DIR": "/srv/state"}, "/h", "/")  # an explicit state dir stays
    assert kept == {"OPENCLAW_PROFILE": "work", "OPENCLAW_CONFIG_PATH": "/srv/state/openclaw.json"}
    inherited = {"OPENCLAW_STATE_DIR": "~/.openclaw", "OPENCLAW_CONFIG_PATH": "/h/.openclaw/openclaw.json"}
    assert profile_env("work", inherited, "/h", "/")["OPENCLAW_CONFIG_PATH"] == "/h/.openclaw-work/openclaw.json"


def test_command_hints_name_the_profile_or_the_container() -> None:
    assert hint_addition({"OPENCLAW_PROFILE": "work"}) == "--profile work"
    assert hint_addition({"OPENCLAW_PROFILE": "default"}) is None
    assert hint_addition({"OPENCLAW_PROFILE": "w", "OPENCLAW_CONTAINER_HINT": "box"}) == "--container box"
    text = 'Run openclaw mcp list; Run "openclaw doctor --fix"; ~/.openclaw/openclaw.json; `openclaw config get`'
    assert format_command_hints(text, "--profile w") == (
        'Run openclaw --profile w mcp list; Run "openclaw --profile w doctor --fix"; ~/.openclaw/openclaw.json; '
        "`openclaw --profile w config get`"
    )


def _cli(*argv: str, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {key: value for key, value in os.environ.items() if not key.startswith("OPENCLAW_")}
    environ.update(HOME=str(home), **(env or {}))
    return subprocess.run([*CLI, *argv], env=environ, capture_output=True, text=True, timeout=60, check=False)


def test_profile_and_dev_move_the_config_for_every_command(tmp_path: Path) -> None:
    done = _cli("--profile", "work", "mcp", "set", "a", '{"command":"echo"}', home=tmp_path)
    assert done.stdout == f'Saved MCP server "a" to {tmp_path}/.openclaw-work/openclaw.json.\n'
    assert json.loads((tmp_path / ".openclaw-work" / "openclaw.json").read_text())["mcp"]["servers"] == {
        "a": {"command": "echo"}
    }
    assert _cli("mcp", "list", "--json", "--profile=work", home=tmp_path).stdout.count('"a"') == 1
    done = _cli("--dev", "mcp", "show", "nosuch", home=tmp_path)
    assert done.returncode == 1
    assert done.stderr == (
        f'No MCP server named "nosuch" in {tmp_path}/.openclaw-dev/openclaw.json. '
        "Run openclaw --profile dev mcp list to see configured servers.\n"
    )
    assert not (tmp_path / ".openclaw").exists()


def test_the_library_takes_a_profile(tmp_path: Path) -> None:
    (tmp_path / ".openclaw-work").mkdir()
    servers = {"mcp": {"servers": {"memo": {"command": "echo"}}}}
    (tmp_path / ".openclaw-work" / "openclaw.json").write_text(json.dumps(servers))
    runtime = SessionMcpRuntime.from_openclaw_config({"HOME": str(tmp_path)}, profile="work")
    assert list(runtime.session.config.servers) == ["memo"]
    with pytest.raises(ValueError, match="Invalid profile"):
        SessionMcpRuntime.from_openclaw_config({"HOME": str(tmp_path)}, profile="../x")


def test_root_errors_exit_2_with_the_openclaw_prefix(tmp_path: Path) -> None:
    done = _cli("--profile", "work", "--container", "box", "mcp", "list", home=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "[openclaw] --container cannot be combined with --profile/--dev\n",
    )
    done = _cli("--profile", "a b", "mcp", "list", home=tmp_path)
    assert (done.returncode, done.stderr) == (2, '[openclaw] Invalid --profile (use letters, numbers, "_", "-" only)\n')
    done = _cli("--log-level", "loud", "mcp", "list", home=tmp_path)
    assert done.returncode == 1 and "Invalid --log-level (use silent|fatal|error|warn|info|debug|trace)" in done.stderr


def _fake_runtime(bin_dir: Path, name: str, running: str) -> Path:
    """A ``docker``/``podman`` stand-in: ``inspect`` answers whether ``running`` runs, ``exec`` records its argv and
    the environment it got, then exits 7."""
    log = bin_dir / f"{name}.log"
    script = bin_dir / name
    script.write_text(
        f"""#!{sys.executable}
import json, os, sys
if sys.argv[1] == "inspect":
    print("true" if sys.argv[-1] == {running!r} else "false")
    sys.exit(0 if sys.argv[-1] == {running!r} else 1)
with open({str(log)!r}, "w") as handle:
    json.dump({{"argv": sys.argv[1:], "container": os.environ.get("OPENCLAW_CONTAINER"),
               "profile": os.environ.get("OPENCLAW_PROFILE")}}, handle)
sys.exit(7)
"""
    )
    script.chmod(0o755)
    return log


def test_container_reruns_the_argv_through_the_running_runtime(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = _fake_runtime(bin_dir, "docker", "box")
    _fake_runtime(bin_dir, "podman", "other")
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    done = _cli("mcp", "list", "--container", "box", "--json", home=tmp_path, env={"PATH": path})
    assert done.returncode == 7, done.stderr
    recorded = json.loads(log.read_text())
    assert recorded["argv"] == [
        "exec",
        "-i",
        "-e",
        "OPENCLAW_CONTAINER_HINT=box",
        "-e",
        "OPENCLAW_CLI_CONTAINER_BYPASS=1",
        "box",
        "openclaw",
        "mcp",
        "list",
        "--json",
    ]
    assert recorded["container"] == ""
    env_form = _cli("mcp", "list", home=tmp_path, env={"PATH": path, "OPENCLAW_CONTAINER": "box"})
    assert env_form.returncode == 7
    missing = _cli("--container", "nope", "mcp", "list", home=tmp_path, env={"PATH": path})
    assert missing.returncode == 1
    assert missing.stderr.splitlines()[:2] == [
        "[openclaw] The CLI command failed.",
        '[openclaw] Reason: No running container matched "nope" under podman or docker.',
    ]
    bypass = _cli(
        "mcp", "list", "--container", "box", home=tmp_path, env={"PATH": path, "OPENCLAW_CLI_CONTAINER_BYPASS": "1"}
    )
    assert bypass.returncode == 0 and "No OpenClaw-managed MCP servers" in bypass.stdout


def test_help_version_colour_and_log_level_are_accepted(tmp_path: Path) -> None:
    assert _cli("--version", home=tmp_path).stdout == "OpenClaw 2026.9.6 (openclaw-mcp 0.1.0)\n"
    assert _cli("help", "mcp", "list", home=tmp_path).stdout == _cli("mcp", "list", "--help", home=tmp_path).stdout
    assert _cli("help", "help", home=tmp_path).stdout == _cli("--help", home=tmp_path).stdout
    root = _cli("help", home=tmp_path)
    assert root.returncode == 0 and "--profile <name>" in root.stdout and "mcp *" in root.stdout
    unknown = _cli("help", "nosuch", home=tmp_path)
    assert (unknown.returncode, unknown.stderr.splitlines()[0]) == (1, 'OpenClaw does not know the command "nosuch".')
    listed = _cli("--no-color", "mcp", "list", "--log-level", "debug", "--no-color", home=tmp_path)
    assert listed.returncode == 0 and listed.stdout.startswith("No OpenClaw-managed MCP servers configured")
    assert _cli("gateway", "status", home=tmp_path).stderr.endswith('"gateway" needs the full OpenClaw CLI.\n')
