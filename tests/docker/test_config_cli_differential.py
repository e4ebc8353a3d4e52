"""Differential: our ``openclaw config get|set|unset|validate`` (the ``mcp`` section) and ``openclaw doctor``
(MCP repairs) against the reference's (OpenClaw 2026.9.6).

Each case is one config (or none) and one command, run by both CLIs on their own isolated state dir (same
layout, so the outputs are equal once the state dir is replaced by ``<STATE>``). For ``config`` cases stdout,
stderr, the exit code and the resulting config file must be equal. For ``doctor`` only the MCP part is
compared: the reference's doctor also runs many other checks and rewrites other sections (skills, wizard,
agents), prints inside a framed layout and takes ≈20 s, so its ``mcp`` block, the ``.bak`` and the change
lines are compared. The reference's diagnostic noise (``[sqlite/transaction] slow …``) is dropped; its state
database and journal key (spec D6, D10) are not compared. The reference runs in a module-scoped fixture, a
few cases at a time (25 reference runs in all).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.docker.gateway_harness import Reference, isolated_env

pytestmark = [pytest.mark.reference]

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 180
OURS = (
    "import os, sys\n"
    "from openclaw_mcp.entrypoints.cli.console import Console\n"
    "if sys.argv[1] == 'config':\n"
    "    from openclaw_mcp.entrypoints.cli.config_cli import config_main as run\n"
    "else:\n"
    "    from openclaw_mcp.entrypoints.cli.doctor_cli import doctor_main as run\n"
    "console = Console()\n"
    "code = run(sys.argv[2:], os.environ, console)\n"
    "console.flush()\n"
    "sys.exit(code)\n"
)
_NOISE = re.compile(r"\[(?:sqlite/transaction|state/sqlite|state/db)\]")
_BOX = re.compile(r"^[│◇┌└├╮╯─\s]+|[│╮╯─\s]+$")

OK = {"mcp": {"servers": {"a": {"command": "x"}}}}
TWO = {"mcp": {"servers": {"a": {"command": "x"}, "b": {"command": "y"}}}}
BAD = '{"mcp":{"servers":{"a":{"command":"x","type":"stdio","disabled":true}, "b":{"command":5}}}}'
SECRETS = {
    "mcp": {
        "apps": {"enabled": True},
        "sessionIdleTtlMs": 5,
        "servers": {
            "a": {
                "zeta": 1,
                "url": "https://h.example/",
                "command": "c",
                "apiKey": "k",
                "env": {"E": "", "F": "${MISSING_X}", "G": 5, "H": "v"},
                "headers": {"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz"},
                "oauth": {"scope": "s"},
                "args": ["--token", "abc"],
            },
            "b.c": {"url": "https://u:pw@h.example/x?token=abc"},
        },
    }
}
LEGACY = {
    "mcp": {
        "servers": {
            "a": {"command": "echo", "type": "stdio", "disabled": True},
            "b": {
                "url": "https://h.example/mcp",
                "type": "http",
                "connectTimeout": 5,
                "workingDirectory": "/tmp",
                "ssl_verify": False,
                "codex": {"default_tools_approval_mode": "auto"},
            },
            "c": {
                "command": "x",
                "timeout": 7,
                "supports_parallel_tool_calls": True,
                "client_cert": "/c",
                "client_key": "/k",
                "connect_timeout": 3,
                "type": "sse",
                "disabled": False,
            },
        }
    }
}
STILL_INVALID = {"mcp": {"servers": {"a": {"command": "x", "disabled": True}, "b": {"command": 5}}}}


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    argv: tuple[str, ...]
    config: Any = None


CONFIG_CASES: list[Case] = [
    Case("get-unset", ("config", "get", "mcp.apps.enabled")),
    Case("get-unknown-json", ("config", "get", "--json", "mcp.foo")),
    Case("get-missing-argument", ("config", "get")),
    Case("set-creates-file", ("config", "set", "mcp.apps.enabled", "true", "--strict-json")),
    Case("set-server-field", ("config", "set", "mcp.servers.a.command", "echo"), OK),
    Case("set-unchanged", ("config", "set", "mcp.servers.a.command", "x"), OK),
    Case("set-invalid-value", ("config", "set", "mcp.apps.enabled", '"x"', "--strict-json"), OK),
    Case("set-bad-json", ("config", "set", "mcp.apps.enabled", "{bad", "--strict-json"), OK),
    Case("set-json5-object-invalid", ("config", "set", "mcp.servers.a", '{command:"y",args:[1]}'), OK),
    Case("set-infinity", ("config", "set", "mcp.sessionIdleTtlMs", "Infinity"), OK),
    Case("set-bad-path", ("config", "set", "mcp..x", "1"), OK),
    Case("set-invalid-config", ("config", "set", "mcp.apps.enabled", "true"), BAD),
    Case("get-redacted-server", ("config", "get", "mcp.servers.a"), SECRETS),
    Case("get-mcp-order", ("config", "get", "mcp"), SECRETS),
    Case("get-invalid-config", ("config", "get", "mcp.servers.a"), BAD),
    Case("get-invalid-config-json", ("config", "get", "--json", "mcp.servers.a"), BAD),
    Case("unset-server", ("config", "unset", "mcp.servers.a"), TWO),
    Case("unset-missing", ("config", "unset", "mcp.servers.b"), OK),
    Case("validate-valid", ("config", "validate"), OK),
    Case("validate-valid-json", ("config", "validate", "--json"), OK),
    Case("validate-invalid", ("config", "validate"), BAD),
    Case("validate-invalid-json", ("config", "validate", "--json"), BAD),
    Case("validate-missing", ("config", "validate")),
]
DOCTOR_CASES: list[Case] = [
    Case("doctor-fix-legacy", ("doctor", "--fix", "--non-interactive"), LEGACY),
    Case("doctor-fix-still-invalid", ("doctor", "--fix", "--non-interactive"), STILL_INVALID),
]


@dataclass(frozen=True, slots=True)
class Outcome:
    code: int
    stdout: str
    stderr: str
    config: str | None
    backup: bool


def _run(command: list[str], state: Path, config: Any, path: str | None) -> Outcome:
    state.mkdir(parents=True)
    target = state / "openclaw.json"
    if config is not None:
        target.write_text(config if isinstance(config, str) else json.dumps(config))
    env = isolated_env(state, path=path, extra={"PYTHONPATH": str(ROOT)})
    proc = subprocess.run(
        command, env=env, cwd=state, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, stdin=None
    )

    def norm(text: str) -> str:
        lines = [line for line in text.split("\n") if not _NOISE.search(line)]
        return "\n".join(lines).replace(str(state), "<STATE>")

    written = target.read_text().replace(str(state), "<STATE>") if target.exists() else None
    return Outcome(
        proc.returncode, norm(proc.stdout), norm(proc.stderr), written, (state / "openclaw.json.bak").exists()
    )


@pytest.fixture(scope="module")
def outcomes(reference: Reference) -> dict[str, tuple[Outcome, Outcome]]:
    cases = CONFIG_CASES + DOCTOR_CASES
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)

        def both(index: int, case: Case) -> tuple[Outcome, Outcome]:
            theirs = _run(reference.command(*case.argv), base / f"ref-{index}", case.config, reference.path_env)
            ours = _run([sys.executable, "-c", OURS, *case.argv], base / f"ours-{index}", case.config, None)
            return theirs, ours

        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda item: both(*item), enumerate(cases)))
    return {case.name: result for case, result in zip(cases, results, strict=True)}


@pytest.mark.parametrize("case", CONFIG_CASES, ids=[case.name for case in CONFIG_CASES])
def test_config_command_matches_the_reference(case: Case, outcomes: dict[str, tuple[Outcome, Outcome]]) -> None:
    theirs, ours = outcomes[case.name]
    assert ours == theirs


def _mcp(text: str | None) -> object:
    return json.loads(text).get("mcp") if text is not None else None


def _box_lines(stdout: str) -> list[str]:
    """The reference's framed doctor output as plain lines (frame characters and padding removed)."""
    return [_BOX.sub("", line) for line in stdout.split("\n")]


def test_doctor_fix_migrates_the_mcp_section_like_the_reference(outcomes: dict[str, tuple[Outcome, Outcome]]) -> None:
    theirs, ours = outcomes["doctor-fix-legacy"]
    assert (ours.code, theirs.code) == (0, 0)
    assert ours.stderr == ""
    assert _mcp(ours.config) == _mcp(theirs.config)
    assert list(json.loads(ours.config or "{}")["mcp"]["servers"]["b"]) == list(
        json.loads(theirs.config or "{}")["mcp"]["servers"]["b"]
    )
    assert ours.backup and theirs.backup
    plain = _box_lines(theirs.stdout)
    ours_lines = ours.stdout.split("\n")
    assert ours_lines[0] == "Migrated legacy config keys in the active openclaw.json:"
    changes = [line for line in ours_lines if line.startswith("- ")]
    assert len(changes) == 8
    assert all(change in plain for change in changes)


def test_doctor_fix_writes_nothing_while_other_issues_remain(outcomes: dict[str, tuple[Outcome, Outcome]]) -> None:
    theirs, ours = outcomes["doctor-fix-still-invalid"]
    assert (ours.code, theirs.code) == (1, 1)
    assert ours.config == theirs.config == json.dumps(STILL_INVALID)
    assert not ours.backup and not theirs.backup
    assert ours.stdout.split("\n")[-2] == "Doctor finished, but config fixes were not applied."
    assert "Doctor finished, but config fixes were not applied." in _box_lines(theirs.stdout)
