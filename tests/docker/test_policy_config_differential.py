"""Differential: our registry CLI against the reference's (OpenClaw 2026.9.6) on configs with malformed or
well-formed tool-policy fields (``tools``, ``agents.entries.<id>.tools``, their ``sandbox.tools``).

Each case is one config and one ``openclaw mcp`` command, run by both CLIs on their own isolated state dir
(same layout, so the paths in the output are equal once the state dir is replaced by ``<STATE>``); stdout,
stderr and the exit code must be equal, and neither may change the config file. Each case packs several
issues into one config so that the reference runs only a few times (≈3 s per run). The reference runs in
a module-scoped fixture, sequentially.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.domain.validation import ROOT_KEYS
from tests.docker.gateway_harness import Reference, isolated_env

pytestmark = [pytest.mark.reference]

ROOT = Path(__file__).resolve().parents[2]
OURS = [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main"]
TIMEOUT_S = 120
SERVERS = {"servers": {"docs": {"command": "uvx", "args": ["context7-mcp"]}}}
ROOT_VALUES: dict[str, Any] = {  # a value the reference accepts for each root key that is not an object
    "$schema": "https://example.com/openclaw.schema.json",
    "worktreeRoot": "/srv/worktrees",
    "worktreeAcceleration": False,
    "bindings": [],
}


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    config: Any
    argv: tuple[str, ...] = ("list",)
    pending: str = ""


CASES: list[Case] = [
    Case(
        "tools-fields",
        {"tools": {"profile": "bogus", "allow": "read", "alsoAllow": [""], "deny": {}}, "mcp": {"servers": {}}},
    ),
    Case("tools-elements", {"tools": {"profile": 5, "allow": [1], "deny": [None, "x", True]}}),
    Case("tools-not-an-object", {"tools": "x", "mcp": SERVERS}),
    Case(
        "agent-fields",
        {
            "agents": {
                "entries": {
                    "main": {
                        "tools": {
                            "profile": "Coding",
                            "allow": "read",
                            "alsoAllow": [""],
                            "deny": {},
                            "sandbox": {"tools": {"deny": 5}},
                        }
                    }
                }
            }
        },
    ),
    Case("agent-elements", {"agents": {"entries": {"main": {"tools": {"allow": [1], "alsoAllow": ["x"]}}}}}),
    Case(
        "agent-tools-not-an-object",
        {"agents": {"entries": {"main": {"tools": "x"}, "ops": "x"}, "ownership": "explicit"}},
    ),
    Case("invalid-agent-id", {"agents": {"entries": {"bad id!": {"tools": {"allow": "x"}}}}}),
    Case("agent-blocked-key", {"agents": {"entries": {"main": {"constructor": 1, "tools": {"allow": "x"}}}}}),
    Case(
        "sandbox-fields",
        {"tools": {"sandbox": {"tools": {"allow": "read", "alsoAllow": [2], "deny": {}, "extra": 1}, "other": 1}}},
    ),
    Case("sandbox-conflict", {"tools": {"sandbox": {"tools": {"allow": ["a"], "alsoAllow": ["b"]}}}}),
    Case(
        "schema-order-and-mcp",
        {
            "mcp": {"servers": {"a": {"command": 5}}},
            "tools": {"allow": "x"},
            "agents": {"entries": {"main": {"tools": {"deny": "x"}}}},
        },
    ),
    Case(
        "json-envelope-multiline",
        {"tools": {"profile": "bogus", "sandbox": {"tools": {"deny": [1]}}}, "mcp": SERVERS},
        ("list", "--json"),
    ),
    Case("doctor", {"agents": {"entries": {"main": {"tools": {"profile": "nope"}}}}, "mcp": SERVERS}, ("doctor",)),
    Case(
        "valid-policy",
        {
            "tools": {
                "profile": "coding",
                "allow": [],
                "alsoAllow": ["bundle-mcp", ""],
                "deny": ["exec"],
                "sandbox": {"tools": {"alsoAllow": ["group:plugins"]}},
            },
            "agents": {"entries": {"main": {"tools": {"profile": "minimal", "alsoAllow": ["docs__*"]}}}},
            "mcp": SERVERS,
        },
        ("list", "--json"),
    ),
    Case(
        "tools-and-agent-conflicts",
        {
            "tools": {"allow": ["a"], "alsoAllow": ["b"]},
            "agents": {"entries": {"main": {"tools": {"allow": ["a"], "alsoAllow": ["b"]}}}},
        },
    ),
    # the root is a strict object (issue 14 item 4): unknown keys reject the whole config, after the other issues
    Case("root-unknown-keys", {"big": "x", "zzz": 1, "tools": {"profile": "bogus"}, "mcp": SERVERS}),
    Case("root-unknown-key-set", {"big": {"a": 1}, "mcp": {}}, ("set", "x", '{"command":"y"}')),
    Case("root-every-known-key", {**{key: ROOT_VALUES.get(key, {}) for key in ROOT_KEYS}, "mcp": SERVERS}),
]
VALID = frozenset({"valid-policy", "root-every-known-key"})


@dataclass(frozen=True, slots=True)
class Outcome:
    code: int
    stdout: str
    stderr: str
    file_kept: bool


def _run(command: list[str], state: Path, config: Any, env_extra: dict[str, str], path: str | None) -> Outcome:
    state.mkdir()
    text = json.dumps(config, indent=2) + "\n"
    config_path = state / "openclaw.json"
    config_path.write_text(text, encoding="utf-8")
    env = isolated_env(state, path=path, extra=env_extra)
    proc = subprocess.run(command, env=env, cwd=state, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    kept = config_path.read_text(encoding="utf-8") == text
    return Outcome(
        proc.returncode, proc.stdout.replace(str(state), "<STATE>"), proc.stderr.replace(str(state), "<STATE>"), kept
    )


@pytest.fixture(scope="module")
def outcomes(reference: Reference) -> dict[str, tuple[Outcome, Outcome]]:
    """Every case through both CLIs (the reference sequentially: it is the slow side)."""
    results: dict[str, tuple[Outcome, Outcome]] = {}
    with tempfile.TemporaryDirectory(prefix="policy-diff-") as tmp:
        base = Path(tmp)
        for index, case in enumerate(CASES):
            ref = _run(reference.command("mcp", *case.argv), base / f"ref-{index}", case.config, {}, reference.path_env)
            ours = _run(
                [*OURS, "mcp", *case.argv], base / f"ours-{index}", case.config, {"PYTHONPATH": str(ROOT)}, None
            )
            results[case.name] = (ref, ours)
    return results


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            case, id=case.name, marks=[pytest.mark.xfail(reason=case.pending, strict=True)] if case.pending else []
        )
        for case in CASES
    ],
)
def test_policy_config_output_matches_the_reference(case: Case, outcomes: dict[str, tuple[Outcome, Outcome]]) -> None:
    ref, ours = outcomes[case.name]
    assert ref.file_kept and ours.file_kept
    assert (ours.code, ours.stdout, ours.stderr) == (ref.code, ref.stdout, ref.stderr)


def test_the_reference_rejects_every_malformed_case_and_accepts_the_valid_one(
    outcomes: dict[str, tuple[Outcome, Outcome]],
) -> None:
    codes = {name: ref.code for name, (ref, _) in outcomes.items()}
    assert codes == {case.name: 0 if case.name in VALID else 1 for case in CASES}
