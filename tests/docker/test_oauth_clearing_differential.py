"""Differential: the OAuth clearing sequence of tool-policy-and-lifecycle §4.5 (steps 0–8) run by the
reference's CLI (OpenClaw 2026.9.6) and by ours, each on its own isolated state dir: every command's exit
code and output, every ``mcp_oauth_stores`` row (``store_key``, ``store_json``), the pending rows and the
``authStatus`` of ``status --json`` must be equal after every step (≈2 min for the reference's 17 runs)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.docker.gateway_harness import Reference, isolated_env
from tests.oauth_clearing_steps import Transcript, run_steps

pytestmark = [pytest.mark.reference]

ROOT = Path(__file__).resolve().parents[2]
OURS = [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main"]
TIMEOUT_S = 120


def _transcript(command: Sequence[str], path: str | None) -> Transcript:
    with tempfile.TemporaryDirectory(prefix="oc-clear-") as tmp:
        state = Path(tmp)
        env = isolated_env(state, path=path)

        def run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [*command, *argv], env=env, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
            )

        return run_steps(run, state)


def test_the_clearing_sequence_equals_the_reference(reference: Reference) -> None:
    theirs = _transcript(reference.command(), reference.path_env)
    ours = _transcript(OURS, None)
    for mine, expected in zip(ours, theirs, strict=True):
        assert mine == expected, f"step {expected['step']}"
