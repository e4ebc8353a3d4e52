"""Differential: the root options (``--profile``, ``--dev``, ``--container``, ``--log-level``, ``--no-color``,
``help``) of our ``openclaw`` against the reference's (OpenClaw 2026.9.6).

Each case runs both CLIs in a fresh home of its own (the profiles live under ``$HOME``), optionally seeded with a
config file; stdout, stderr and the exit code must be equal once the home is replaced by ``<HOME>``, and so must
every file the command left under the home. ``--version`` differs by design (README) and is not compared here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.docker.gateway_harness import Reference

pytestmark = [pytest.mark.reference]

OURS = [sys.executable, "-m", "openclaw_mcp"]
TIMEOUT_S = 120
SEED = {"mcp": {"servers": {"a": {"command": "echo"}}}}
SET = ("mcp", "set", "a", '{"command":"echo"}')


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    argv: tuple[str, ...]
    seed: tuple[str, ...] = ()
    """Config files (relative to the home) seeded with :data:`SEED`."""
    env: dict[str, str] = field(default_factory=dict)
    """Extra environment; ``{HOME}`` is replaced by the case's home."""


CASES = [
    Case("profile-set", ("--profile", "work", *SET)),
    Case("dev-set", ("--dev", *SET)),
    Case("profile-after-command", ("mcp", "list", "--profile", "work"), seed=(".openclaw-work/openclaw.json",)),
    Case(
        "profile-inside-group", ("mcp", "--profile=work", "show", "a", "--json"), seed=(".openclaw-work/openclaw.json",)
    ),
    Case("profile-default", ("--profile", "Default", "mcp", "list"), seed=(".openclaw/openclaw.json",)),
    Case("profile-missing-value", ("--profile",)),
    Case("profile-option-as-value", ("--profile", "-x", "mcp", "list")),
    Case("profile-bad-name", ("--profile", "bad name", "mcp", "list")),
    Case("dev-then-profile", ("--dev", "--profile", "dev", "mcp", "list")),
    Case("profile-dev-then-dev", ("--profile", "dev", "--dev", "mcp", "list"), seed=(".openclaw-dev/openclaw.json",)),
    Case("profile-keeps-explicit-state", ("--profile", "work", *SET), env={"OPENCLAW_STATE_DIR": "{HOME}/custom"}),
    Case(
        "profile-replaces-inherited-config",
        ("--profile", "work", "mcp", "list"),
        seed=(".openclaw/openclaw.json",),
        env={"OPENCLAW_CONFIG_PATH": "{HOME}/.openclaw/openclaw.json"},
    ),
    Case("container-none-running", ("--container", "openclaw-mcp-test-nope", "mcp", "list")),
    Case("container-missing-value", ("mcp", "list", "--container")),
    Case("container-env", ("mcp", "list"), env={"OPENCLAW_CONTAINER": "openclaw-mcp-test-nope"}),
    Case("container-with-profile", ("--profile", "work", "--container=x", "mcp", "list")),
    Case("log-level-bad", ("--log-level", "bogus", "mcp", "list")),
    # with a config (and so a state database) an explicit --log-level makes the reference print its own
    # `[state/sqlite] …` subsystem lines on stdout, which have no counterpart here: compared without one
    Case("log-level-and-no-color", ("mcp", "list", "--log-level=error", "--no-color")),
    Case("log-level-debug-empty", ("--log-level", "debug", "mcp", "list")),  # with a state db it logs its own lines
    Case("help-mcp", ("help", "mcp")),
    Case("help-mcp-show", ("help", "mcp", "show")),
    Case("help-unknown", ("help", "nosuch")),
    Case("mcp-dev-list", ("mcp", "--dev", "list"), seed=(".openclaw-dev/openclaw.json",)),
    Case("double-dash-ends-root-options", ("mcp", "list", "--", "--profile", "x")),
    Case("last-profile-wins", ("--profile=work", "--profile=other", "mcp", "list")),
    Case("empty-log-level", ("--log-level=", "mcp", "list")),
    Case("empty-container", ("--container=", "mcp", "list")),
]


def _run(command: list[str], home: Path, case: Case, path: str) -> tuple[int, str, str, dict[str, str]]:
    for relative in case.seed:
        target = home / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(SEED, indent=2) + "\n", encoding="utf-8")
    env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", "TZ": "UTC"}
    env.update({key: value.replace("{HOME}", str(home)) for key, value in case.env.items()})
    done = subprocess.run(
        [*command, *case.argv], env=env, cwd=home, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )
    files = {}
    for file in sorted(home.rglob("openclaw.json")):
        document = json.loads(file.read_text(encoding="utf-8"))
        document.pop("meta", None)  # the reference stamps its version and a time into meta
        files[file.relative_to(home).as_posix()] = json.dumps(document, sort_keys=True)
    shown = (done.stdout.replace(str(home), "<HOME>"), done.stderr.replace(str(home), "<HOME>"))
    return done.returncode, shown[0], shown[1], files


@pytest.fixture(scope="module")
def reference_results(reference: Reference) -> dict[str, tuple[int, str, str, dict[str, str]]]:
    results = {}
    for case in CASES:
        with tempfile.TemporaryDirectory(prefix="oc-root-ref-") as home:
            results[case.name] = _run(reference.command(), Path(home), case, reference.path_env)
    return results


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_root_options_match_the_reference(
    case: Case, reference_results: dict[str, tuple[int, str, str, dict[str, str]]]
) -> None:
    with tempfile.TemporaryDirectory(prefix="oc-root-ours-") as home:
        ours = _run(OURS, Path(home), case, os.environ.get("PATH", "/usr/bin:/bin"))
    assert ours == reference_results[case.name]
