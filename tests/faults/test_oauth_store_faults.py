"""A broken OAuth store ``<state>/state/openclaw.sqlite`` (issue 14; spec cli-registry §3.3, §3.11, §7.1,
§7.6, §3.0.5): corrupt, locked by another process, read-only.

``status`` (with and without ``--json``) only reads the store; ``logout`` must write it. Whatever the fault,
a command prints one reason (the reference's uncaught-error frame around a single ``Reason:`` line), never a
traceback; a command that cannot do its job exits non-zero; and the database file is byte-identical
afterwards.

Read-only has two meanings here. A store this process cannot write stays unwritable: ``status`` still reads
it (also in a directory where no ``-wal``/``-shm`` can be created), ``logout`` fails. Root ignores file
modes, so that case is made with ``chattr +i`` and runs only as root. A store the user owns but has
chmodded read-only (0444 file, 0555 directory) is made owner-only again (0600, 0700) before it is opened —
what the reference does (``ensureOpenClawStatePermissions``) — so ``logout`` succeeds there.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.faults._process import ROOT, Tree, failure_reason

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes and users")

URL = "https://mcp.example.com/mcp"
STORE_KEY = "docs-9cb3522dd977d04a"  # spec cli-registry §9.6 case 52
TOKENS = {"tokens": {"access_token": "fault-suite-token", "token_type": "Bearer"}}
LEASE_BUSY = f"failed to acquire state lease core:mcp-oauth/{STORE_KEY}: store unavailable (sqlite-busy)"
LEASE_STORAGE = f"failed to acquire state lease core:mcp-oauth/{STORE_KEY}: store unavailable (storage-error)"
UNAVAILABLE = "MCP OAuth store unavailable: "
COMMANDS = {"status --json": ("status", "--json"), "status": ("status",), "logout": ("logout", "docs")}
_K = TypeVar("_K")

HOLDER = """
import sqlite3, sys

conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.read()  # until the test closes stdin
conn.execute("ROLLBACK")
conn.close()
"""


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def seed(tree: Tree) -> None:
    """An OAuth HTTP server ``docs`` and a store holding tokens for it (``status`` shows ``authorized``)."""
    configured = tree.run("set", "docs", json.dumps({"url": URL, "auth": "oauth"}))
    assert configured.returncode == 0, configured.stderr
    created = tree.run("logout", "docs")  # creates the database the way the CLI does (WAL, 0600, 0700)
    assert created.returncode == 0, created.stderr
    conn = sqlite3.connect(tree.db, isolation_level=None)
    try:
        conn.execute("UPDATE mcp_oauth_stores SET store_json = ? WHERE store_key = ?", (json.dumps(TOKENS), STORE_KEY))
    finally:
        conn.close()  # the last connection: checkpointed, no -wal left
    assert not Path(f"{tree.db}-wal").exists()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    tree = Tree.make(tmp_path_factory.mktemp("template"))
    seed(tree)
    return tree


def clone(template: Tree, root: Path) -> Tree:
    """A fresh tree holding a copy of the seeded config and database (seeding costs two CLI runs)."""
    tree = Tree.make(root)
    shutil.copyfile(template.config, tree.config)
    os.chmod(tree.config, 0o600)
    tree.db.parent.mkdir(mode=0o700, parents=True)
    os.chmod(tree.state, 0o700)
    shutil.copyfile(template.db, tree.db)
    os.chmod(tree.db, 0o600)
    return tree


@pytest.fixture
def tree(template: Tree, tmp_path: Path) -> Tree:
    return clone(template, tmp_path)


Result = subprocess.CompletedProcess[str]


def assert_authorized(status_json: Result, status_text: Result) -> None:
    assert (status_json.returncode, status_json.stderr) == (0, ""), status_json.stderr
    (entry,) = json.loads(status_json.stdout)["servers"]
    assert entry["authStatus"]["state"] == "authorized"
    assert entry["authStatus"]["hasTokens"] is True
    assert (status_text.returncode, status_text.stderr) == (0, ""), status_text.stderr
    assert status_text.stdout.splitlines()[1].endswith(" oauth authorized"), status_text.stdout


def assert_failed_json(result: subprocess.CompletedProcess[str], prefix: str) -> str:
    reason = failure_reason(result)
    assert reason.startswith(prefix), reason
    assert json.loads(result.stdout) == {"ok": False, "error": {"type": "cli_error", "message": reason}}
    return reason


def run_all(tree: Tree) -> dict[str, Result]:
    """``status --json``, ``status`` and ``logout docs``, run side by side."""
    return finish({name: tree.popen(*argv) for name, argv in COMMANDS.items()})


def finish(running: dict[_K, subprocess.Popen[str]]) -> dict[_K, Result]:
    results: dict[_K, Result] = {}
    for key, process in running.items():
        out, err = process.communicate(timeout=60)
        results[key] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    return results


# --- corrupt ------------------------------------------------------------------------------------------------


def corrupt(good: bytes, kind: str) -> bytes:
    noise = random.Random(kind)
    if kind == "garbage":
        return bytes(noise.randrange(256) for _ in range(len(good)))
    if kind == "header-then-garbage":
        return good[:100] + bytes(noise.randrange(256) for _ in range(len(good) - 100))
    if kind == "truncated":
        return good[: len(good) // 2]
    assert kind == "empty-pages"
    return good[:4096] + b"\x00" * (len(good) - 4096)


@pytest.mark.parametrize("kind", ["garbage", "header-then-garbage", "truncated", "empty-pages"])
def test_a_corrupt_store_fails_each_command_with_one_line_and_stays_byte_identical(tree: Tree, kind: str) -> None:
    tree.db.write_bytes(corrupt(tree.db.read_bytes(), kind))
    before = digest(tree.db)
    results = run_all(tree)
    assert_failed_json(results["status --json"], UNAVAILABLE)
    assert failure_reason(results["status"]).startswith(UNAVAILABLE)
    assert results["status"].stdout == ""
    assert failure_reason(results["logout"]) == LEASE_STORAGE
    assert results["logout"].stdout == ""
    assert digest(tree.db) == before


# --- locked -------------------------------------------------------------------------------------------------


def hold_exclusive(db: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline() == "held\n", holder.stderr.read() if holder.stderr else ""
    return holder


def release(holder: subprocess.Popen[str]) -> None:
    _, err = holder.communicate("", timeout=30)
    assert holder.returncode == 0, err


def test_a_store_locked_longer_than_the_busy_timeout_fails_writes_but_not_wal_reads(
    template: Tree, tmp_path: Path
) -> None:
    """Another process holds ``BEGIN EXCLUSIVE`` past our 5 s busy timeout. In WAL mode (the CLI's own
    database) readers are not blocked, so ``status`` answers; in rollback-journal mode (a database journaled
    by someone else) they are, and every command fails with one line."""
    wal = clone(template, tmp_path / "wal")
    rollback = clone(template, tmp_path / "rollback")
    conn = sqlite3.connect(rollback.db, isolation_level=None)
    try:
        assert conn.execute("PRAGMA journal_mode = DELETE").fetchone() == ("delete",)
    finally:
        conn.close()
    before = {tree: digest(tree.db) for tree in (wal, rollback)}
    holders = [hold_exclusive(tree.db) for tree in (wal, rollback)]
    try:
        started = time.monotonic()
        results = finish(
            {(tree, name): tree.popen(*argv) for tree in (wal, rollback) for name, argv in COMMANDS.items()}
        )
        elapsed = time.monotonic() - started
    finally:
        for holder in holders:
            release(holder)

    assert_authorized(results[(wal, "status --json")], results[(wal, "status")])
    assert failure_reason(results[(wal, "logout")]) == LEASE_BUSY

    assert_failed_json(results[(rollback, "status --json")], f"{UNAVAILABLE}database is locked")
    assert failure_reason(results[(rollback, "status")]) == f"{UNAVAILABLE}database is locked"
    assert failure_reason(results[(rollback, "logout")]) == LEASE_BUSY
    assert elapsed >= 4.5  # the writers really waited for the busy timeout before giving up

    assert {tree: digest(tree.db) for tree in (wal, rollback)} == before
    after = run_all(wal)  # and once the lock is gone everything works again
    assert_authorized(after["status --json"], after["status"])
    assert after["logout"].returncode == 0, after["logout"].stderr


# --- read-only ----------------------------------------------------------------------------------------------


def chattr(flag: str, *paths: Path) -> None:
    subprocess.run(["chattr", flag, *map(str, paths)], check=True, capture_output=True)


@pytest.fixture
def immutable(tree: Tree) -> Iterator[list[Path]]:
    """Paths to make immutable (``chattr +i``: not even root may write, rename or chmod them); restored after."""
    if os.geteuid() != 0:
        pytest.skip("needs root for chattr +i; a non-root user cannot make a file it cannot write back")
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed")
    probe = tree.root / "chattr-probe"
    probe.write_text("")
    try:
        chattr("+i", probe)
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"chattr +i unsupported here: {exc.stderr.decode(errors='replace').strip()}")
    chattr("-i", probe)
    paths: list[Path] = []
    try:
        yield paths
    finally:
        if paths:
            chattr("-i", *paths)


@pytest.mark.parametrize("frozen", ["file", "directory", "both"])
def test_a_store_this_process_cannot_write_is_read_but_never_written(
    tree: Tree, immutable: list[Path], frozen: str
) -> None:
    """Root ignores file modes, so "read-only" is made with ``chattr +i`` here: the database file (its
    directory writable), its directory (no ``-wal``/``-shm`` can be created) or both."""
    if frozen in ("file", "both"):
        immutable.append(tree.db)
    if frozen in ("directory", "both"):
        immutable.append(tree.db.parent)
    chattr("+i", *immutable)
    before = digest(tree.db)
    modes = (mode(tree.db), mode(tree.db.parent))

    results = run_all(tree)

    assert_authorized(results["status --json"], results["status"])
    assert failure_reason(results["logout"]) == LEASE_STORAGE
    assert results["logout"].stdout == ""
    assert digest(tree.db) == before
    assert (mode(tree.db), mode(tree.db.parent)) == modes


@pytest.mark.parametrize(
    ("file_mode", "dir_mode"),
    [(0o444, 0o700), (0o600, 0o555), (0o444, 0o555)],
    ids=["file-0444", "dir-0555", "both"],
)
def test_a_read_only_store_of_its_owner_is_read_as_is_and_made_owner_only_by_logout(
    tree: Tree, file_mode: int, dir_mode: int
) -> None:
    """The owner's own ``chmod``: reads leave the modes alone; ``logout`` restores 0600/0700 before opening
    the database, like the reference, and succeeds. (As root the modes do not bind at all, so there this
    checks only that nothing breaks and nothing but ``logout`` changes the modes.)"""
    os.chmod(tree.db, file_mode)
    os.chmod(tree.db.parent, dir_mode)
    before = digest(tree.db)
    try:
        reads = finish({name: tree.popen(*COMMANDS[name]) for name in ("status --json", "status")})
        assert_authorized(reads["status --json"], reads["status"])
        assert digest(tree.db) == before
        assert (mode(tree.db), mode(tree.db.parent)) == (file_mode, dir_mode)  # reads never change modes

        logout = tree.run("logout", "docs")
        assert (logout.returncode, logout.stdout, logout.stderr) == (
            0,
            'MCP OAuth credentials cleared for "docs".\n',
            "",
        )
        assert (mode(tree.db), mode(tree.db.parent)) == (0o600, 0o700)
        cleared: Any = json.loads(tree.run("status", "--json").stdout)
        assert cleared["servers"][0]["authStatus"]["state"] == "unauthenticated"
    finally:
        os.chmod(tree.db.parent, 0o700)  # so that pytest can clean up
