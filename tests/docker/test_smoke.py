"""The docker smoke (tests/docker/smoke.py) in host mode, exactly as a person runs it: one subprocess
``python -m tests.docker.smoke`` that seeds and starts its own real Gateway, drives our ``openclaw mcp serve``
and must exit 0 with every named check passed and ``OK`` last. (The container mode is the same driver inside
the smoke image: ``python -m tests.docker.smoke --container``, see README.md here; it needs a Docker engine.)
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docker.gateway_harness import Reference
from tests.docker.smoke import CHECKS

pytestmark = [pytest.mark.docker, pytest.mark.reference]

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 900


def run_smoke() -> tuple[int, str]:
    """Run the host-mode smoke in its own process group; past the deadline it is asked to stop (SIGTERM: it
    stops its Gateway and bridge), then its group is killed."""
    env = {key: value for key, value in os.environ.items() if key != "OPENCLAW_SMOKE_OPENCLAW"}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.docker.smoke"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGTERM)
        try:
            output, _ = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
        pytest.fail(f"the smoke did not finish within {TIMEOUT_S} s:\n{output[-8000:]}", pytrace=False)
    return process.returncode, output


def test_the_host_mode_smoke_passes_every_named_check_and_ends_with_ok(reference: Reference) -> None:
    code, output = run_smoke()
    assert code == 0, f"the smoke failed (exit {code}):\n{output[-12000:]}"
    lines = output.rstrip("\n").splitlines()
    assert lines[-1] == "OK", output[-4000:]
    start = max(index for index, line in enumerate(lines) if line == "{")
    summary = json.loads("\n".join(lines[start:-1]))
    assert summary["ok"] is True and summary["mode"] == "host"
    assert [(check["name"], check["status"]) for check in summary["checks"]] == [(name, "pass") for name in CHECKS]
