"""Shared support of the fault suite: the registry CLI as a real process on an isolated state tree, and the
checks every fault must pass ("one line and a non-zero exit, never a traceback")."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CLI",
    "FRAME_TAIL",
    "ROOT",
    "Tree",
    "assert_no_traceback",
    "failure_reason",
]

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main", "mcp"]

FRAME_HEAD = "[openclaw] The CLI command failed."
FRAME_TAIL = [
    "[openclaw] Debug: set OPENCLAW_DEBUG=1 to include the stack trace.",
    "[openclaw] Try: openclaw doctor",
    "[openclaw] Help: openclaw --help",
]


@dataclass(frozen=True)
class Tree:
    """An isolated OpenClaw home: ``root/state`` (``OPENCLAW_STATE_DIR``), the config at ``config`` and
    ``root/home`` (``HOME``)."""

    root: Path
    config: Path

    @classmethod
    def make(cls, root: Path, config: Path | None = None) -> Tree:
        (root / "home").mkdir(parents=True, exist_ok=True)
        return cls(root, config if config is not None else root / "openclaw.json")

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def db(self) -> Path:
        return self.state / "state" / "openclaw.sqlite"

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.root / "home"),
            "OPENCLAW_STATE_DIR": str(self.state),
            "OPENCLAW_CONFIG_PATH": str(self.config),
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(ROOT),
        }
        env.update(extra)
        return env

    def popen(self, *argv: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*CLI, *argv],
            env=self.env(),
            cwd=self.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*CLI, *argv],
            env=self.env(),
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def assert_no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    assert 'File "' not in stderr, stderr


def failure_reason(result: subprocess.CompletedProcess[str]) -> str:
    """The one-line reason of a failed command: exit non-zero, no traceback, and stderr either a single line
    or the reference's uncaught-error frame (spec cli-registry §3.0.5) around one ``Reason:`` line."""
    assert result.returncode != 0, (result.returncode, result.stdout, result.stderr)
    assert_no_traceback(result.stderr)
    lines = result.stderr.splitlines()
    if lines and lines[0] == FRAME_HEAD:
        assert len(lines) == 5, result.stderr
        assert lines[1].startswith("[openclaw] Reason: "), result.stderr
        assert lines[2:] == FRAME_TAIL, result.stderr
        return lines[1].removeprefix("[openclaw] Reason: ")
    assert len(lines) == 1, result.stderr
    return lines[0]
