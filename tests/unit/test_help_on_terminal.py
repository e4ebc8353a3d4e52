"""Issue 36: ``openclaw mcp --help`` stays the reference's text for scripts and adds one line naming this port's own
commands only when stdout is a terminal (a real pty here)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from openclaw_mcp.entrypoints.cli.help_text import HelpRequest, own_commands_line, render_help

CLI = Path(sys.executable).parent / "openclaw"
LINE = (
    "Also (openclaw-mcp, not in OpenClaw 2026.9.6): audit, export, import, pin, review, ui."
    " Run openclaw mcp <command> --help."
)


def _env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "HOME": str(tmp_path), "OPENCLAW_STATE_DIR": str(tmp_path / "s")}
    env["OPENCLAW_CONFIG_PATH"] = str(tmp_path / "c.json")
    return env


def test_own_commands_line_names_the_hidden_commands() -> None:
    assert own_commands_line() == LINE


def test_piped_help_is_the_references_text(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(CLI), "mcp", "--help"], capture_output=True, text=True, env=_env(tmp_path), check=False
    )
    assert result.returncode == 0
    assert result.stdout == render_help(HelpRequest(None, True)) + "\n"
    assert "openclaw-mcp" not in result.stdout


def test_help_on_a_terminal_adds_the_line(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [str(CLI), "mcp", "--help"], stdout=follower, stderr=subprocess.DEVNULL, env=_env(tmp_path)
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        assert process.wait(timeout=30) == 0
    finally:
        os.close(leader)
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    assert text == render_help(HelpRequest(None, True)) + "\n" + LINE + "\n"
