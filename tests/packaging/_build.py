"""What the packaging tests share: building the wheel of this checkout (no dependencies, no isolated build: the
locked hatchling of the venv)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_wheel(out: Path, timeout_s: float) -> Path:
    """Build ``openclaw_mcp-*.whl`` into ``out`` and return its path."""
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(out)]
    built = subprocess.run([*command, str(ROOT)], capture_output=True, text=True, timeout=timeout_s, check=False)
    assert built.returncode == 0, built.stderr
    (wheel,) = out.glob("openclaw_mcp-*.whl")
    return wheel
