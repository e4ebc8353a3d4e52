"""Issue 32 defect 4: hostile foreign files cost bounded time and memory and fail with one line.

A few hundred bytes of YAML with nested aliases under ``env``, ``args`` or ``headers`` used to expand ×10 per
level while the import walked it (8 s and 440 MB for 408 bytes); recursive anchors hung; deep nesting in YAML or
JSON crashed with a ``RecursionError``. Every case runs ``openclaw mcp import --dry-run`` as a real process
whose own peak RSS and wall time are measured (``wait4``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = [str(ROOT / ".venv" / "bin" / "openclaw"), "mcp"]
WALL_S = 6.0
RSS_KB = 160_000


@dataclass(frozen=True, slots=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    max_rss_kb: int


def run_import(tmp_path: Path, source: str, name: str, body: str, *extra: str) -> Run:
    (tmp_path / "home").mkdir(parents=True, exist_ok=True)
    config = tmp_path / "openclaw.json"
    if not config.exists():
        config.write_text(json.dumps({"mcp": {"servers": {"keep": {"command": "k"}}}}))
    path = tmp_path / name
    path.write_text(body)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "OPENCLAW_STATE_DIR": str(tmp_path),
        "OPENCLAW_CONFIG_PATH": str(config),
        "LANG": "C.UTF-8",
    }
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        started = time.monotonic()
        rss_file = tmp_path / "maxrss"
        command = [*CLI, "import", "--from", source, str(path), *extra]
        process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, str(rss_file), *command],
            env=env,
            cwd=tmp_path,
            stdout=stdout,
            stderr=stderr,
        )
        try:
            process.wait(timeout=60)  # a hang fails below instead of blocking the run
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        elapsed = time.monotonic() - started
    return Run(process.returncode, out.read_text(), err.read_text(), elapsed, int(rss_file.read_text() or 0))


_LAUNCHER = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
open(sys.argv[1], "w").write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""
"""Runs the command from a small process and reports the command's own peak RSS: Linux keeps a process's peak
across ``exec``, so a child forked straight from this (large, long-lived) test process would report the test
process's size."""


def assert_one_line_refusal(run: Run, path_fragment: str, reason: str) -> None:
    assert run.returncode == 1, (run.returncode, run.stdout[-500:], run.stderr[-500:])
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line and line != "import: nothing written."]
    assert len(lines) == 1, run.stderr[-2000:]
    assert lines[0].startswith("import: ") and path_fragment in lines[0] and reason in lines[0], lines[0]
    assert run.seconds < WALL_S, run.seconds
    assert run.max_rss_kb < RSS_KB, run.max_rss_kb


def _billion_laughs(depth: int, leaf: str = "xxxxxxxxxx") -> tuple[str, str]:
    """YAML anchors ``a``…: each level a list of ten aliases of the previous one; returns (body, last)."""
    body = "a: &a [" + ", ".join([leaf] * 10) + "]\n"
    previous = "a"
    for name in "bcdefghij"[: depth - 1]:
        body += f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]\n"
        previous = name
    return body, previous


def _mapping_laughs(depth: int) -> tuple[str, str]:
    body = "a: &a {" + ", ".join(f"k{i}: v" for i in range(10)) + "}\n"
    previous = "a"
    for name in "bcdefghij"[: depth - 1]:
        body += f"{name}: &{name} {{" + ", ".join(f"k{i}: *{previous}" for i in range(10)) + "}\n"
        previous = name
    return body, previous


@pytest.mark.parametrize("key", ["args", "env", "headers"])
def test_nested_yaml_aliases_under_a_server_section_are_refused_quickly(tmp_path: Path, key: str) -> None:
    body, last = _billion_laughs(7)
    head = "    url: https://h.example/mcp\n" if key == "headers" else "    command: x\n"
    run = run_import(
        tmp_path, "hermes", "config.yaml", f"{body}mcp_servers:\n  s:\n{head}    {key}: *{last}\n", "--dry-run"
    )
    assert_one_line_refusal(run, "config.yaml", "alias")


@pytest.mark.parametrize("key", ["env", "headers", "tools", "timeout"])
def test_nested_yaml_mapping_aliases_are_refused_quickly(tmp_path: Path, key: str) -> None:
    body, last = _mapping_laughs(6)
    run = run_import(
        tmp_path,
        "hermes",
        "config.yaml",
        f"{body}mcp_servers:\n  s:\n    command: x\n    {key}: *{last}\n",
        "--dry-run",
    )
    assert_one_line_refusal(run, "config.yaml", "alias")


def test_aliases_outside_the_servers_are_refused_before_any_walk(tmp_path: Path) -> None:
    body, last = _billion_laughs(8)
    run = run_import(tmp_path, "hermes", "config.yaml", f"{body}other: *{last}\nmcp_servers: {{}}\n", "--dry-run")
    assert_one_line_refusal(run, "config.yaml", "alias")


def test_a_recursive_yaml_anchor_is_refused_instead_of_hanging(tmp_path: Path) -> None:
    body = "mcp_servers:\n  s:\n    command: x\n    env: &r {A: *r}\n"
    run = run_import(tmp_path, "hermes", "config.yaml", body, "--dry-run")
    assert_one_line_refusal(run, "config.yaml", "alias")


@pytest.mark.parametrize(
    ("source", "name", "body"),
    [
        ("hermes", "config.yaml", "mcp_servers:\n  s:\n    command: x\n    args: " + "[" * 20000 + "]" * 20000 + "\n"),
        ("hermes", "config.yaml", "mcp_servers:\n  s:\n    command: x\n    env: " + "{a: " * 5000 + "1" + "}" * 5000),
        ("claude", ".mcp.json", '{"mcpServers": {"s": {"command": "x", "args": ' + "[" * 20000 + "]" * 20000 + "}}}"),
        ("gemini", "settings.json", '{"other": ' + '{"a": ' * 20000 + "1" + "}" * 20000 + ', "mcpServers": {}}'),
        ("vscode", "mcp.json", "{servers: {s: {command: 'x', env: " + "{a: " * 20000 + "1" + "}" * 20000 + "}}}"),
        ("codex", "config.toml", '[mcp_servers.s]\ncommand = "x"\nargs = ' + "[" * 20000 + "]" * 20000 + "\n"),
    ],
    ids=["yaml-list", "yaml-map", "json", "json-elsewhere", "jsonc", "toml"],
)
def test_deep_nesting_is_one_line_not_a_recursion_error(tmp_path: Path, source: str, name: str, body: str) -> None:
    run = run_import(tmp_path, source, name, body, "--dry-run")
    assert_one_line_refusal(run, name, "")


def test_a_wrongly_typed_section_is_refused_before_anything_walks_it(tmp_path: Path) -> None:
    body = "mcp_servers:\n  s:\n    command: x\n    env: {A: [1, 2, {b: c}]}\n"
    run = run_import(tmp_path, "hermes", "config.yaml", body, "--dry-run")
    assert_one_line_refusal(run, "mcp_servers.s", "env")


def test_ordinary_yaml_anchors_and_merge_keys_still_import(tmp_path: Path) -> None:
    body = (
        "defaults: &defaults\n  command: npx\n  env: &env {LOG: debug}\n"
        "mcp_servers:\n  a:\n    <<: *defaults\n    args: [one]\n  b:\n    <<: *defaults\n    env: *env\n"
    )
    run = run_import(tmp_path, "hermes", "config.yaml", body)
    assert run.returncode == 0, run.stderr
    servers = json.loads((tmp_path / "openclaw.json").read_text())["mcp"]["servers"]
    assert servers["a"] == {"command": "npx", "env": {"LOG": "debug"}, "args": ["one"]}
    assert servers["b"] == {"command": "npx", "env": {"LOG": "debug"}}
