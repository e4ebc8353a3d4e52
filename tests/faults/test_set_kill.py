"""``openclaw mcp set`` killed with SIGKILL at random moments (issue 14; spec cli-registry §1.5, D5).

After every kill the config is whole (the old or the new document, never empty, half or a mix), the lock a
dead writer may leave behind is taken over at once by the next ``set`` (its pid is dead), and the temporary
files it may leave are swept by that next write. ``OPENCLAW_FAULTS_FULL=1`` runs 100 kills instead of 15.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.faults._process import CLI, Tree, assert_no_traceback

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and the pid-based stale lock are POSIX")

KILLS = 100 if os.environ.get("OPENCLAW_FAULTS_FULL") == "1" else 15
KILLS_ON_LOCK = 3
SEED = 20260906
RECOVERY_SECONDS = 5.0
# What a finished run may leave in the config directory: the config and its backup ring (§1.5.6).
FINISHED_NAMES = re.compile(r"^openclaw\.json(?:\.bak(?:\.[1-4])?)?$")
# What a killed run may leave besides: its lock, its staged lock and its temporary files (swept later).
KILLED_NAMES = re.compile(
    r"^(?:openclaw\.json\.lock|openclaw\.json\.lock\.\d+\.[0-9a-f]{32}\.tmp"
    r"|\.openclaw\.json\.(?:write|bak)\.\d+\.[0-9a-f]{32}\.tmp)$"
)


def big_server(turn: int) -> dict[str, Any]:
    # ~60 kB: a write takes long enough to be hit, and the argument stays below Linux's 128 kB per-argv limit.
    return {"command": "uvx", "args": [f"turn-{turn}", "x" * 60_000]}


def with_server(config: dict[str, Any], name: str, server: dict[str, Any]) -> dict[str, Any]:
    servers = dict(config.get("mcp", {}).get("servers", {}))
    servers[name] = server
    return {**config, "mcp": {**config.get("mcp", {}), "servers": servers}}


def servers_of(text: str) -> dict[str, Any]:
    config = json.loads(text)
    assert isinstance(config, dict)
    servers = config["mcp"]["servers"]
    assert isinstance(servers, dict)
    return servers


class Writer:
    """The config of ``tree`` and what the CLI may turn it into."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.directory = tree.config.parent

    def text(self) -> str:
        return self.tree.config.read_text(encoding="utf-8")

    def names(self) -> set[str]:
        return set(os.listdir(self.directory))

    def assert_whole(self, before: str, expected_new: dict[str, Any], finished: bool) -> bool:
        """The file is ``before`` or the new document; returns whether it changed."""
        after = self.text()
        assert after, "the config file is empty"
        parsed = json.loads(after)  # raises on a half-written file
        if finished:
            assert parsed == expected_new
        else:
            assert after == before or parsed == expected_new, after[:200]
        return after != before

    def recover(self, name: str) -> None:
        """The next ``set`` succeeds at once (stale lock taken over) and leaves no leftovers behind."""
        before = json.loads(self.text())
        started = time.monotonic()
        done = self.tree.run("set", name, '{"command":"ok"}', timeout=60)
        elapsed = time.monotonic() - started
        assert done.returncode == 0, done.stderr
        assert_no_traceback(done.stderr)
        assert elapsed < RECOVERY_SECONDS, f"the next set took {elapsed:.2f} s (stuck lock?)"
        assert json.loads(self.text()) == with_server(before, name, {"command": "ok"})
        leftovers = sorted(n for n in self.names() if not FINISHED_NAMES.match(n))
        assert leftovers == [], leftovers


def spawn_set(tree: Tree, name: str, server: dict[str, Any]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "set", name, json.dumps(server)],
        env=tree.env(),
        cwd=tree.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill(process: subprocess.Popen[str]) -> bool:
    """SIGKILL ``process`` (reaped, so its pid is dead); whether it had already finished successfully."""
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    _, err = process.communicate(timeout=30)
    if process.returncode == 0:
        return True
    assert process.returncode == -signal.SIGKILL, (process.returncode, err)
    return False


@pytest.fixture
def writer(tmp_path: Path) -> Writer:
    tree = Tree.make(tmp_path, tmp_path / "cfg" / "openclaw.json")
    tree.config.parent.mkdir(mode=0o700)
    tree.config.write_text(json.dumps({"gateway": {"port": 18789}}))
    # A first write adds what every write keeps (``meta``, plugin defaults): later writes change only servers.
    seeded = tree.run("set", "keep", '{"command":"k"}')
    assert seeded.returncode == 0, seeded.stderr
    return Writer(tree)


def calibrate(writer: Writer) -> float:
    """Seconds one uninterrupted ``set`` of the big server takes here (the kill delays span 0 to 1.2× it)."""
    before = json.loads(writer.text())
    started = time.monotonic()
    process = spawn_set(writer.tree, "big", big_server(-1))
    _, err = process.communicate(timeout=60)
    elapsed = time.monotonic() - started
    assert process.returncode == 0, err
    assert json.loads(writer.text()) == with_server(before, "big", big_server(-1))
    return elapsed


def test_sigkill_at_random_moments_of_set_leaves_a_whole_config_and_no_stuck_lock(writer: Writer) -> None:
    moments = random.Random(SEED)
    span = calibrate(writer) * 1.2
    outcomes = {"untouched": 0, "written": 0, "finished": 0}
    for turn in range(KILLS):
        before = writer.text()
        expected = with_server(json.loads(before), "big", big_server(turn))
        process = spawn_set(writer.tree, "big", big_server(turn))
        time.sleep(moments.uniform(0.0, span))
        finished = kill(process)
        changed = writer.assert_whole(before, expected, finished)
        outcomes["finished" if finished else "written" if changed else "untouched"] += 1
        leftovers = sorted(n for n in writer.names() if not (FINISHED_NAMES.match(n) or KILLED_NAMES.match(n)))
        assert leftovers == [], leftovers
        writer.recover(f"after{turn}")
    assert outcomes["untouched"] + outcomes["written"] > 0, (span, outcomes)  # some runs were really killed
    listed = writer.tree.run("list", "--json")
    assert (listed.returncode, listed.stderr) == (0, "")
    servers = json.loads(listed.stdout)
    assert sorted(servers) == sorted(["keep", "big", *(f"after{turn}" for turn in range(KILLS))])
    assert servers["keep"] == {"command": "k"}
    assert servers["big"] == servers_of(writer.text())["big"]
    assert servers["big"]["args"][0] in {f"turn-{turn}" for turn in range(-1, KILLS)}


def test_a_set_killed_while_holding_the_lock_leaves_a_lock_the_next_set_takes_over(writer: Writer) -> None:
    lock = writer.tree.config.with_name("openclaw.json.lock")
    locks_left = 0
    for turn in range(KILLS_ON_LOCK):
        before = writer.text()
        expected = with_server(json.loads(before), "big", big_server(turn))
        process = spawn_set(writer.tree, "big", big_server(turn))
        deadline = time.monotonic() + 30
        while not lock.exists() and process.poll() is None:
            assert time.monotonic() < deadline, "set never took the lock"
            time.sleep(0.0005)
        finished = kill(process)
        writer.assert_whole(before, expected, finished)
        locks_left += lock.exists()
        writer.recover(f"locked{turn}")
    assert locks_left >= 1  # the stale-lock path was exercised
