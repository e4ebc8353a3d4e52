"""The registry CLI against the reference's recorded behaviour: the public differential cases of
``../shared/oracle/cli`` whose commands need no live MCP server, run with the oracle's own runner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT.parent / "shared" / "oracle" / "cli"
OFFLINE = {"list", "show", "status", "set", "unset", "tools", "configure", "reload"}
CLI = Path(sys.executable).parent / "openclaw"


def _offline_cases() -> list[str]:
    if not ORACLE.is_dir():
        return []
    names = []
    for path in sorted((ORACLE / "public").glob("*.json")):
        case = json.loads(path.read_text())
        if all(step["argv"][0] in OFFLINE for step in case["steps"]):
            names.append(path.stem)
    return names


@pytest.mark.skipif(not ORACLE.is_dir(), reason="../shared/oracle is not beside this checkout")
@pytest.mark.parametrize("case", _offline_cases())
def test_matches_the_reference_on_oracle_case(case: str) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ORACLE / "run_oracle.py"),
            "--impl",
            str(CLI),
            "--only",
            case,
            "--cases",
            str(ORACLE / "public"),
            "--max-diff-lines",
            "80",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
