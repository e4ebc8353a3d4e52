"""The registry CLI as real processes on a temp state dir: concurrency, crash safety, bad input, secrets."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main", "mcp"]


def _env(state: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
    }
    env.update(extra)
    return env


def oc(state: Path, *argv: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *argv],
        env=_env(state, **extra),
        cwd=state,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def state(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path


def write_config(state: Path, config: Any) -> Path:
    path = state / "openclaw.json"
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def test_twenty_concurrent_set_processes_all_land_in_a_valid_file(state: Path) -> None:
    write_config(state, {"gateway": {"port": 18789}})
    procs = [
        subprocess.Popen(
            [*CLI, "set", f"s{i}", json.dumps({"command": "uvx", "args": [f"a{i}"]})],
            env=_env(state),
            cwd=state,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(20)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 20, results
    config = json.loads((state / "openclaw.json").read_text())
    assert sorted(config["mcp"]["servers"]) == sorted(f"s{i}" for i in range(20))
    assert config["gateway"] == {"port": 18789}
    assert not (state / "openclaw.json.lock").exists()


def test_a_writer_killed_mid_write_leaves_the_old_or_the_new_file(state: Path) -> None:
    big = {"command": "uvx", "args": ["x" * 1000] * 100}
    write_config(state, {"mcp": {"servers": {"keep": {"command": "k"}}}})
    valid_texts = set()
    for attempt in range(6):
        before = (state / "openclaw.json").read_text()
        valid_texts.add(before)
        proc = subprocess.Popen(
            [*CLI, "set", f"big{attempt}", json.dumps(big)],
            env=_env(state),
            cwd=state,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.05 + 0.04 * attempt)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        after = (state / "openclaw.json").read_text()
        config = json.loads(after)  # never half-written
        assert config["mcp"]["servers"]["keep"] == {"command": "k"}
        assert after == before or f"big{attempt}" in config["mcp"]["servers"]
    # a lock left by a killed writer does not block the next one (its pid is dead)
    done = oc(state, "set", "after", '{"command":"y"}')
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("argv", "stderr"),
    [
        (["set", "b", "[1,2]"], "MCP server config must be a JSON object.\n"),
        (
            ["set", "b", "{bad"],
            "Invalid JSON: SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2)\n",
        ),
        (["show", "missing"], None),
        (["unset", "missing"], None),
        (["tools", "missing", "--include", "a"], None),
        (["configure", "missing", "--parallel"], None),
    ],
)
def test_bad_input_gets_one_line_exit_1_and_leaves_the_file_untouched(
    state: Path, argv: list[str], stderr: str | None
) -> None:
    path = write_config(state, {"mcp": {"servers": {"docs": {"command": "uvx"}}}})
    before = path.read_bytes()
    result = oc(state, *argv)
    assert result.returncode == 1
    assert result.stdout == ""
    expected = stderr or (
        f'No MCP server named "missing" in {path}. Run openclaw mcp list to see configured servers.\n'
    )
    assert result.stderr == expected
    assert path.read_bytes() == before


def test_malformed_json5_is_reported_without_a_traceback_and_never_rewritten(state: Path) -> None:
    path = state / "openclaw.json"
    path.write_text('{"mcp":{"servers":{"a":{"command":"x"},}\n')
    before = path.read_bytes()
    for argv in (["list"], ["set", "b", '{"command":"y"}'], ["unset", "a"], ["status", "--json"]):
        result = oc(state, *argv)
        assert result.returncode == 1
        assert "Traceback" not in result.stderr
        assert "JSON5 parse failed: SyntaxError: JSON5: invalid end of input at 2:1" in result.stderr
    assert path.read_bytes() == before


SECRETS = ["s3cretpass", "tok-123456", "k1value", "zzsig", "c0de42"]


def test_no_command_prints_url_userinfo_or_credential_query_values(state: Path) -> None:
    url = "https://alice:s3cretpass@mcp.example.com/mcp?token=tok-123456&api_key=k1value&X-Amz-Signature=zzsig&code=c0de42"
    write_config(state, {"mcp": {"servers": {"docs": {"url": url}, "sse": {"url": url, "transport": "sse"}}}})
    outputs = []
    for argv in (
        ["list"],
        ["status"],
        ["status", "--verbose"],
        ["status", "--json"],
        ["status", "-v", "--json"],
    ):
        result = oc(state, *argv)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout + result.stderr)
    for text in outputs:
        for secret in SECRETS:
            assert secret not in text


def test_readonly_mode_refuses_writes(state: Path) -> None:
    path = write_config(state, {"mcp": {"servers": {}}})
    before = path.read_bytes()
    result = oc(state, "set", "b", '{"command":"y"}', OPENCLAW_CONFIG_READONLY="1")
    assert result.returncode == 1
    assert result.stderr.startswith("Config is externally managed (`OPENCLAW_CONFIG_READONLY=1`)")
    assert path.read_bytes() == before
