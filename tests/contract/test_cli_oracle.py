"""The registry CLI against the reference's recorded behaviour, run with the oracle's own runner: the
public differential cases of ``tests/reference_cases/oracle/cli`` and this project's own cases in ``oracle_cases/``
(recorded from OpenClaw 2026.9.6 with ``run_oracle.py --record``), except those in ``PENDING``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.reference_cases import ORACLE_CLI

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ORACLE_CLI
# Cases that cannot pass yet, with the reason (empty: every recorded case passes).
PENDING: dict[str, str] = {}
CLI = Path(sys.executable).parent / "openclaw"


OWN = Path(__file__).resolve().parent / "oracle_cases"


def _offline_cases() -> list[tuple[Path, str]]:
    cases = []
    for folder in (ORACLE / "public", OWN):
        for path in sorted(folder.glob("*.json")):
            if path.stem not in PENDING:
                cases.append((folder, path.stem))
    return cases


@pytest.mark.parametrize(("folder", "case"), [pytest.param(f, c, id=c) for f, c in _offline_cases()])
def test_matches_the_reference_on_oracle_case(folder: Path, case: str) -> None:
    argv = [sys.executable, str(ORACLE / "run_oracle.py"), "--impl", str(CLI), "--only", case]
    argv += ["--cases", str(folder), "--max-diff-lines", "80"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
