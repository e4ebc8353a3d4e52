"""Issue 36: ``openclaw-plugin-tools`` and ``openclaw-tools`` answer ``--help``/``-h`` and unknown flags instead of
starting the server; the reference's launch errors stay as they were."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
PROGRAMS = ["openclaw-plugin-tools", "openclaw-tools"]


def _run(
    tmp_path: Path, program: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {**os.environ, "HOME": str(tmp_path), "OPENCLAW_STATE_DIR": str(tmp_path / "s")}
    base["OPENCLAW_CONFIG_PATH"] = str(tmp_path / "c.json")
    base.pop("OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY", None)
    argv = [str(BIN / program), *args]
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_prints_the_usage_and_exits_0(tmp_path: Path, program: str, flag: str) -> None:
    result = _run(tmp_path, program, flag)
    assert result.returncode == 0
    assert result.stdout.startswith("Usage: ") and f"{program} [--openclaw-agent-id <id>]" in result.stdout
    assert result.stderr == ""


def test_openclaw_tools_help_says_the_session_key_is_required_by_default(tmp_path: Path) -> None:
    text = _run(tmp_path, "openclaw-tools", "--help").stdout
    assert "The session key is required by default" in text
    assert "OPENCLAW_TOOLS_MCP_TOOLS=openclaw" in text


@pytest.mark.parametrize("program", PROGRAMS)
def test_an_unknown_flag_is_one_line_and_exit_2(tmp_path: Path, program: str) -> None:
    result = _run(tmp_path, program, "--verbose")
    assert result.returncode == 2
    assert result.stderr == f"{program}: unknown option '--verbose' (see {program} --help)\n"
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("program", "prefix"), [("openclaw-plugin-tools", "plugin-tools-serve"), ("openclaw-tools", "openclaw-tools-serve")]
)
def test_the_references_flag_error_still_wins(tmp_path: Path, program: str, prefix: str) -> None:
    result = _run(tmp_path, program, "--openclaw-agent-id", "--help")
    assert result.returncode == 1
    assert result.stderr == f"{prefix}: --openclaw-agent-id requires one OpenClaw agent owner\n"


def test_openclaw_tools_launch_error_is_unchanged(tmp_path: Path) -> None:
    result = _run(tmp_path, "openclaw-tools", "--openclaw-agent-id", "main", "positional")
    assert result.returncode == 1
    assert result.stderr == "openclaw-tools-serve: OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY is required\n"
