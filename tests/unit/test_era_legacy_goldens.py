"""Invariant L of the protocol eras (spec protocol-eras §0, §5.0; acceptance A5, A6, A7, A17): replayed with the
current code, every legacy case gives the bytes recorded at 549a118, before the era changes — the probe's and
``doctor --probe``'s wire, stdout, stderr and exit code against dual-era SDK servers (stdio, HTTP), a TS-1.30-like
HTTP server, our ``openclaw-tools``, the reference's ``openclaw-plugin-tools``, ``initialize`` errors that must not
trigger the fallback, and the raw transcripts of our tools servers on legacy connections."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docker.gateway_harness import find_reference, running_under_ci
from tests.fixtures import era_wire as ew
from tests.fixtures.era.record_goldens import Recorder  # the goldens' own recorder, pointed at this checkout

ROOT = Path(__file__).resolve().parents[2]
STEPS = {
    "a5": "the probe against dual-era and legacy-only servers",
    "a6": "the probe and doctor against openclaw-tools and the reference's plugin tools",
    "a7": "initialize errors that are not a 2026 refusal",
    "a17": "our tools servers on legacy connections",
}


@pytest.mark.parametrize("step", sorted(STEPS), ids=sorted(STEPS))
def test_the_legacy_bytes_are_unchanged(step: str, tmp_path: Path) -> None:
    reference = find_reference()
    if step == "a6" and reference is None and running_under_ci():
        pytest.fail("the reference OpenClaw 2026.9.6 is not installed (scripts/install_reference.sh)")
    recorder = Recorder(ROOT, tmp_path, reference.root if reference is not None else None)
    getattr(recorder, step)()
    produced = sorted(path.name for path in tmp_path.iterdir() if path.name != "legacy-manifest.json")
    assert produced, STEPS[step]
    for name in produced:
        assert (tmp_path / name).read_text(encoding="utf-8") == ew.golden_path(name).read_text(encoding="utf-8"), name
