"""Concurrent writers of the config (issue 14; spec cli-registry §1.5.1, D5): many ``openclaw mcp set``
processes at once, and reference-style writers holding the sidecar lock ``<CFG>.lock`` meanwhile.

The reference-style writer takes the lock with :func:`adapters.filesystem._lock.acquire_sidecar_lock` (the
reference's format and rules), holds it ~500 ms while it adds a server of its own with an atomic rename, and
releases it. ``set`` processes started while it holds the lock wait for it, and nobody's server is lost.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.faults._process import ROOT, Tree, assert_no_traceback

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the sidecar lock's stale rules are POSIX")

SETS = 20
HOLD_SECONDS = 0.5

REFERENCE_WRITER = """
import hashlib, json, os, random, sys, time

import anyio

from openclaw_mcp.adapters.filesystem._lock import LockPolicy, acquire_sidecar_lock, blocking_sleep

target, name, hold, held_marker = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]


def digest() -> str:
    with open(target, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


async def main() -> None:
    requested = time.time()
    lock = await acquire_sidecar_lock(target, LockPolicy(), random.Random(), blocking_sleep)
    acquired = time.time()
    with open(held_marker, "w"):
        pass
    at_start = digest()
    time.sleep(hold)
    before_write = digest()
    with open(target, encoding="utf-8") as handle:
        config = json.load(handle)
    config.setdefault("mcp", {}).setdefault("servers", {})[name] = {"command": "reference", "args": [name]}
    staged = f"{target}.{name}.staged"
    with open(staged, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(config, indent=2) + "\\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(staged, 0o600)
    os.replace(staged, target)
    released = time.time()
    lock.release()
    report = {"requested": requested, "acquired": acquired, "released": released}
    report["untouched_while_held"] = at_start == before_write
    print(json.dumps(report), flush=True)


anyio.run(main)
"""


def stdio_server(index: int) -> str:
    return json.dumps({"command": "uvx", "args": [f"pkg-{index}"]})


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    tree = Tree.make(tmp_path)
    tree.config.write_text(json.dumps({"gateway": {"port": 18789}}, indent=2) + "\n")
    return tree


class Finished:
    """Waits for processes in threads and records the wall-clock moment each one exited."""

    def __init__(self) -> None:
        self.results: dict[str, tuple[int, str, str, float]] = {}
        self._threads: list[threading.Thread] = []

    def watch(self, key: str, process: subprocess.Popen[str]) -> None:
        def wait() -> None:
            out, err = process.communicate(timeout=120)
            self.results[key] = (process.returncode, out, err, time.time())

        thread = threading.Thread(target=wait, daemon=True)
        thread.start()
        self._threads.append(thread)

    def join(self) -> None:
        for thread in self._threads:
            thread.join(timeout=150)
        assert all(not thread.is_alive() for thread in self._threads), "a process did not finish"


def assert_success(results: dict[str, tuple[int, str, str, float]], tree: Tree) -> None:
    failures = {key: (code, err) for key, (code, _, err, _) in results.items() if code != 0}
    assert failures == {}
    for key, (_, out, err, _) in results.items():
        assert_no_traceback(err)
        if key.startswith("set:"):
            name = key.removeprefix("set:")
            assert out == f'Saved MCP server "{name}" to {tree.config}.\n'
            assert err == ""


def final_servers(tree: Tree) -> dict[str, Any]:
    config = json.loads(tree.config.read_text(encoding="utf-8"))  # a whole document
    assert config["gateway"] == {"port": 18789}
    leftovers = sorted(p.name for p in tree.root.iterdir() if p.name.startswith(("openclaw.json.", ".openclaw.json")))
    assert [n for n in leftovers if not n.startswith("openclaw.json.bak")] == []  # no lock, no temp file
    servers = config["mcp"]["servers"]
    assert isinstance(servers, dict)
    return servers


def test_twenty_concurrent_sets_each_exit_zero_and_all_servers_land(tree: Tree) -> None:
    finished = Finished()
    for index in range(SETS):
        finished.watch(f"set:s{index}", tree.popen("set", f"s{index}", stdio_server(index)))
    finished.join()
    assert_success(finished.results, tree)
    servers = final_servers(tree)
    assert sorted(servers) == sorted(f"s{index}" for index in range(SETS))
    assert all(servers[f"s{index}"] == json.loads(stdio_server(index)) for index in range(SETS))
    listed = tree.run("list", "--json")
    assert (listed.returncode, listed.stderr) == (0, "")
    assert json.loads(listed.stdout) == servers


def reference_writer(tree: Tree, name: str, marker: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", REFERENCE_WRITER, str(tree.config), name, str(HOLD_SECONDS), str(marker)],
        env=tree.env(),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_sets_wait_for_reference_style_lock_holders_and_no_server_is_lost(tree: Tree) -> None:
    finished = Finished()
    first_marker = tree.root / "ref0.held"
    finished.watch("ref:ref0", reference_writer(tree, "ref0", first_marker))
    deadline = time.monotonic() + 30
    while not first_marker.exists():
        assert time.monotonic() < deadline, "the reference-style writer never took the lock"
        time.sleep(0.005)
    started = time.time()
    for index in range(10):
        finished.watch(f"set:s{index}", tree.popen("set", f"s{index}", stdio_server(index)))
        if index in (3, 6):  # more lock holders competing with the sets
            name = f"ref{index // 3}"
            finished.watch(f"ref:{name}", reference_writer(tree, name, tree.root / f"{name}.held"))
    finished.join()
    assert_success(finished.results, tree)

    reports = {key: json.loads(out) for key, (_, out, _, _) in finished.results.items() if key.startswith("ref:")}
    assert all(report["untouched_while_held"] for report in reports.values()), reports
    first_release = reports["ref:ref0"]["released"]
    set_exits = [moment for key, (_, _, _, moment) in finished.results.items() if key.startswith("set:")]
    assert min(set_exits) >= first_release, "a set finished while the lock was held"
    assert first_release - started >= HOLD_SECONDS * 0.5  # the sets really waited behind the holder
    holds = sorted((report["acquired"], report["released"]) for report in reports.values())
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(holds))  # never overlapped

    servers = final_servers(tree)
    assert sorted(servers) == sorted([*(f"s{index}" for index in range(10)), "ref0", "ref1", "ref2"])
    assert servers["ref1"] == {"command": "reference", "args": ["ref1"]}
