"""``openclaw-tools`` against the spec's own acceptance script (issue 19; spec openclaw-tools.md §10, §11) and
its generated texts against the installed reference.

* ``check/openclaw-tools/acceptance.py --server <ours>``: all 18 tests (fake Gateways on loopback, fresh state
  per server run); the reference passes the same 18.
* ``scripts/gen_openclaw_tools_texts.py --check``: the descriptions, schemas and fixed texts in the package data
  ``openclaw_mcp/entrypoints/openclaw_tools/data/reference_texts.json`` equal a fresh ``dump_tools.py`` of the
  reference.

Test 7 against the real Gateway is in test_gateway_caller_real.py (it shares that module's Gateway).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docker.gateway_harness import Reference
from tests.fixtures.reference_cases import CHECK as REFERENCE_CHECK

ROOT = Path(__file__).resolve().parents[2]
CHECK = REFERENCE_CHECK / "openclaw-tools"
OURS = shlex.join([sys.executable, "-m", "openclaw_mcp.entrypoints.openclaw_tools"])
TIMEOUT_S = 600


def run_acceptance(*extra: str) -> subprocess.CompletedProcess[str]:
    """The spec's acceptance script against our server (run with this interpreter: it needs ``websockets``)."""
    command = [sys.executable, str(CHECK / "acceptance.py"), "--server", OURS, *extra]
    return subprocess.run(command, cwd=CHECK, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


def test_the_spec_acceptance_passes_all_18() -> None:
    done = run_acceptance()
    passed = [line for line in done.stdout.splitlines() if line.startswith("PASS ")]
    assert done.returncode == 0 and len(passed) == 18, done.stdout + done.stderr


@pytest.mark.reference
def test_the_generated_texts_match_a_fresh_dump_of_the_reference(reference: Reference) -> None:
    env = {**os.environ, "OPENCLAW_REFERENCE_DIR": str(reference.root), "PATH": reference.path_env}
    command = [sys.executable, str(ROOT / "scripts" / "gen_openclaw_tools_texts.py"), "--check"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
