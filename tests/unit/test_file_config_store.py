"""``FileConfigStore`` behaviour beyond the port contract: modes, the backup ring, the sidecar lock
(format, staleness, takeover, waiting, timeout), error translation, and robustness across processes
and against ``SIGKILL``.
"""

from __future__ import annotations

import errno
import json
import os
import random
import re
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process

from openclaw_mcp.adapters.filesystem import FileConfigStore, config_store
from openclaw_mcp.adapters.filesystem._lock import LockPolicy, process_start_time
from openclaw_mcp.application.errors import ConfigLockTimeout, ConfigStoreError

pytestmark = pytest.mark.asyncio

REPO_ROOT = Path(__file__).resolve().parents[2]
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and signals")
LINUX_ONLY = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def lock_text(owner: dict[str, object]) -> str:
    """A lock file as the reference writes it: two-space JSON, then a line of tabs and spaces."""
    return json.dumps(owner, indent=2) + "\n" + "\t" * 8 + "\t \t " * 32 + "\n"


def impatient(path: Path) -> FileConfigStore:
    """A store that gives up on a held lock after one short wait."""
    return FileConfigStore(str(path), lock_retries=1, lock_min_delay=0.001, lock_max_delay=0.01)


async def write(store: FileConfigStore, text: str) -> None:
    async with store.edit() as edit:
        await edit.replace(text)


async def dead_pid() -> int:
    process = await anyio.open_process([sys.executable, "-c", "pass"])
    await process.wait()
    return process.pid


def leftovers(directory: Path, name: str = "openclaw.json") -> list[str]:
    """Files in ``directory`` other than the config, its backups and rejected payloads."""
    allowed = re.compile(rf"^{re.escape(name)}(\.bak(\.[1-4])?|\.rejected\..+)?$")
    return sorted(entry for entry in os.listdir(directory) if not allowed.match(entry))


# --- modes and backups ------------------------------------------------------------------------------------


@POSIX_ONLY
async def test_the_config_and_its_backups_are_private_and_created_directories_are_0700(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a" / "b" / "openclaw.json"
    store = FileConfigStore(str(path))
    with anyio.fail_after(5):
        await write(store, "one\n")
        (tmp_path / "a" / "b" / "openclaw.json.bak").write_text("foreign\n")
        os.chmod(tmp_path / "a" / "b" / "openclaw.json.bak", 0o644)
        await write(store, "two\n")
        await write(store, "three\n")
    assert mode(tmp_path / "a") == 0o700
    assert mode(tmp_path / "a" / "b") == 0o700
    assert mode(path) == 0o600
    for backup in ("openclaw.json.bak", "openclaw.json.bak.1", "openclaw.json.bak.2"):
        assert mode(path.parent / backup) == 0o600


@POSIX_ONLY
async def test_every_write_sets_the_config_directory_to_0700_like_the_reference(tmp_path: Path) -> None:
    directory = tmp_path / "cfg"
    directory.mkdir(mode=0o755)
    os.chmod(directory, 0o755)
    with anyio.fail_after(5):
        await write(FileConfigStore(str(directory / "openclaw.json")), "{}\n")
    assert mode(directory) == 0o700


async def test_the_first_write_makes_no_backup(tmp_path: Path) -> None:
    store = FileConfigStore(str(tmp_path / "openclaw.json"))
    with anyio.fail_after(5):
        await write(store, "first\n")
    assert sorted(os.listdir(tmp_path)) == ["openclaw.json"]


async def test_seven_writes_leave_the_last_five_previous_versions_in_the_backup_ring(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    store = FileConfigStore(str(path))
    with anyio.fail_after(5):
        for version in range(1, 8):
            await write(store, f"v{version}\n")
    assert path.read_text() == "v7\n"
    assert {name: (tmp_path / name).read_text() for name in sorted(os.listdir(tmp_path))} == {
        "openclaw.json": "v7\n",
        "openclaw.json.bak": "v6\n",
        "openclaw.json.bak.1": "v5\n",
        "openclaw.json.bak.2": "v4\n",
        "openclaw.json.bak.3": "v3\n",
        "openclaw.json.bak.4": "v2\n",
    }


async def test_two_writes_in_one_edit_back_up_the_first_one(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text("v0\n")
    store = FileConfigStore(str(path))
    with anyio.fail_after(5):
        async with store.edit() as edit:
            await edit.replace("v1\n")
            await edit.replace("v2\n")
    assert path.read_text() == "v2\n"
    assert (tmp_path / "openclaw.json.bak").read_text() == "v1\n"
    assert (tmp_path / "openclaw.json.bak.1").read_text() == "v0\n"


async def test_the_backup_keeps_the_previous_raw_bytes(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    raw = b'{"a": "\xff\xfe"}\r\n'
    path.write_bytes(raw)
    store = FileConfigStore(str(path))
    with anyio.fail_after(5):
        async with store.edit() as edit:
            assert edit.current.text == '{"a": "\ufffd\ufffd"}\r\n'
            await edit.replace("{}\n")
    assert (tmp_path / "openclaw.json.bak").read_bytes() == raw


async def test_text_is_written_as_utf8_with_lone_surrogates_replaced(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    store = FileConfigStore(str(path))
    with anyio.fail_after(5):
        async with store.edit() as edit:
            await edit.replace("caf\u00e9 \ud800!\n")
            current = edit.current.text
    assert path.read_bytes() == b"caf\xc3\xa9 \xef\xbf\xbd!\n"
    assert current == "caf\u00e9 \ufffd!\n"


async def test_writes_leave_no_temporary_files_behind(tmp_path: Path) -> None:
    store = FileConfigStore(str(tmp_path / "openclaw.json"))
    with anyio.fail_after(5):
        for version in range(3):
            await write(store, f"v{version}\n")
    assert leftovers(tmp_path) == []


async def test_an_edit_sweeps_temporary_files_of_dead_writers_only(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    with anyio.fail_after(5):
        gone = await dead_pid()
        names = {
            "dead write": f".openclaw.json.write.{gone}.{'a' * 32}.tmp",
            "dead backup": f".openclaw.json.bak.{gone}.{'b' * 32}.tmp",
            "dead lock staging": f"openclaw.json.lock.{gone}.{'c' * 32}.tmp",
            "live write": f".openclaw.json.write.{os.getpid()}.{'d' * 32}.tmp",
            "unrelated": f".other.json.write.{gone}.{'e' * 32}.tmp",
        }
        for name in names.values():
            (tmp_path / name).write_text("partial")
        async with FileConfigStore(str(path)).edit():
            pass
    assert sorted(os.listdir(tmp_path)) == sorted([names["live write"], names["unrelated"]])


# --- errors -----------------------------------------------------------------------------------------------


async def test_reading_a_directory_fails_with_a_chained_store_error(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json").mkdir()
    store = FileConfigStore(str(tmp_path / "openclaw.json"))
    with anyio.fail_after(5), pytest.raises(ConfigStoreError) as caught:
        await store.read()
    assert str(caught.value) == "EISDIR: illegal operation on a directory, read"
    assert isinstance(caught.value.__cause__, IsADirectoryError)


async def test_a_file_in_place_of_the_config_directory_fails_with_node_style_messages(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    store = FileConfigStore(str(tmp_path / "file" / "openclaw.json"))
    with anyio.fail_after(5):
        with pytest.raises(ConfigStoreError) as read_error:
            await store.read()
        with pytest.raises(ConfigStoreError) as edit_error:
            async with store.edit():
                pass
    assert str(read_error.value) == f"ENOTDIR: not a directory, open '{tmp_path}/file/openclaw.json'"
    assert str(edit_error.value) == f"EEXIST: file already exists, mkdir '{tmp_path}/file'"
    assert isinstance(edit_error.value.__cause__, OSError)
    deeper = FileConfigStore(str(tmp_path / "file" / "sub" / "openclaw.json"))
    with anyio.fail_after(5), pytest.raises(ConfigStoreError) as deeper_error:
        async with deeper.edit():
            pass
    assert str(deeper_error.value) == f"ENOTDIR: not a directory, mkdir '{tmp_path}/file/sub'"


async def test_a_failed_replace_raises_a_store_error_and_cleans_up(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    store = FileConfigStore(str(path))
    with anyio.fail_after(5):
        with pytest.raises(ConfigStoreError) as caught:
            async with store.edit() as edit:
                path.mkdir()  # something gets in the way of the rename
                await edit.replace("{}\n")
        path.rmdir()
        await write(store, "after\n")
    assert str(caught.value).startswith("EISDIR: illegal operation on a directory, rename '")
    assert str(caught.value).endswith(f".tmp' -> '{path}'")
    assert isinstance(caught.value.__cause__, IsADirectoryError)
    assert path.read_text() == "after\n"
    assert leftovers(tmp_path) == []


async def test_a_permission_failure_in_the_config_directory_is_explained_like_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def denied(path: str, data: bytes) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(config_store, "write_new_file", denied)
    store = FileConfigStore(str(tmp_path / "openclaw.json"))
    with anyio.fail_after(5), pytest.raises(ConfigStoreError) as caught:
        async with store.edit() as edit:
            await edit.replace("{}\n")
    message = str(caught.value)
    assert message.startswith(
        f"OpenClaw cannot write to the config directory {tmp_path}. Fix its ownership or permissions, "
        f"then try again. Underlying error: EACCES: permission denied, open '{tmp_path}/.openclaw.json.write."
    )
    assert isinstance(caught.value.__cause__, PermissionError)
    assert not (tmp_path / "openclaw.json").exists()


@POSIX_ONLY
async def test_a_rejected_payload_is_saved_privately_and_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text("config\n")
    store = FileConfigStore(str(path))
    stamp = "2026-11-29T13-39-51-480Z"
    with anyio.fail_after(5), pytest.raises(ConfigStoreError) as caught:
        async with store.edit() as edit:
            saved = await edit.save_rejected("rejected\n", stamp)
            await edit.save_rejected("again\n", stamp)
    assert saved == f"{path}.rejected.{stamp}"
    assert Path(saved).read_text() == "rejected\n"
    assert mode(Path(saved)) == 0o600
    assert str(caught.value) == f"EEXIST: file already exists, open '{saved}'"
    assert isinstance(caught.value.__cause__, FileExistsError)
    assert path.read_text() == "config\n"


async def test_a_stamp_with_a_path_separator_is_refused(tmp_path: Path) -> None:
    store = FileConfigStore(str(tmp_path / "openclaw.json"))
    with anyio.fail_after(5), pytest.raises(ConfigStoreError):
        async with store.edit() as edit:
            await edit.save_rejected("x", "../escape")


# --- the sidecar lock -------------------------------------------------------------------------------------


@LINUX_ONLY
async def test_the_lock_file_names_its_owner_and_exists_only_during_the_edit(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    lock = tmp_path / "openclaw.json.lock"
    store = FileConfigStore(str(path))
    with anyio.fail_after(5):
        async with store.edit():
            raw = lock.read_text()
            lock_mode = mode(lock)
    owner = json.loads(raw)
    assert list(owner) == ["pid", "createdAt", "starttime"]
    assert owner["pid"] == os.getpid()
    assert ISO_MS.match(owner["createdAt"])
    assert owner["starttime"] == process_start_time(os.getpid())
    assert raw.startswith('{\n  "pid": ')
    assert re.fullmatch(r"\{\n.*\n\}\n\t{8}[\t ]{128}\n", raw, re.DOTALL)
    assert lock_mode == 0o600
    assert not lock.exists()
    assert leftovers(tmp_path) == []


async def test_the_lock_is_removed_after_an_error_and_after_cancellation(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    store = FileConfigStore(str(path))
    with anyio.fail_after(5):
        with pytest.raises(KeyError):
            async with store.edit():
                raise KeyError("boom")
        assert not (tmp_path / "openclaw.json.lock").exists()
        async with anyio.create_task_group() as tg:
            entered = anyio.Event()

            async def hold() -> None:
                async with store.edit():
                    entered.set()
                    await anyio.sleep_forever()

            tg.start_soon(hold)
            await entered.wait()
            tg.cancel_scope.cancel()
    assert not (tmp_path / "openclaw.json.lock").exists()


async def test_a_lock_left_by_a_dead_process_is_taken_over_at_once(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    lock = tmp_path / "openclaw.json.lock"
    with anyio.fail_after(5):
        pid = await dead_pid()
        lock.write_text(lock_text({"pid": pid, "createdAt": iso(datetime.now(UTC))}))
        await write(FileConfigStore(str(path), lock_retries=0), "taken over\n")
    assert path.read_text() == "taken over\n"
    assert not lock.exists()


@LINUX_ONLY
async def test_a_lock_whose_pid_was_reused_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    start = process_start_time(os.getpid())
    assert start is not None
    owner = {"pid": os.getpid(), "createdAt": iso(datetime.now(UTC)), "starttime": start + 1}
    (tmp_path / "openclaw.json.lock").write_text(lock_text(owner))
    with anyio.fail_after(5):
        await write(FileConfigStore(str(path), lock_retries=0), "taken over\n")
    assert path.read_text() == "taken over\n"


async def test_a_lock_without_an_owner_pid_ages_out_after_thirty_seconds(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    lock = tmp_path / "openclaw.json.lock"
    lock.write_text(lock_text({"createdAt": iso(datetime.now(UTC) - timedelta(seconds=5))}))
    with anyio.fail_after(5):
        with pytest.raises(ConfigLockTimeout):
            await write(
                impatient(path),
                "early\n",
            )
        lock.write_text(lock_text({"createdAt": iso(datetime.now(UTC) - timedelta(seconds=31))}))
        await write(FileConfigStore(str(path), lock_retries=0), "aged out\n")
    assert path.read_text() == "aged out\n"


async def test_a_lock_with_an_unparseable_creation_time_and_no_pid_is_stale(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    (tmp_path / "openclaw.json.lock").write_text(lock_text({"pid": "123", "createdAt": "yesterday"}))
    with anyio.fail_after(5):
        await write(FileConfigStore(str(path), lock_retries=0), "taken over\n")
    assert path.read_text() == "taken over\n"


async def test_an_empty_lock_file_ages_out_by_its_modification_time(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    lock = tmp_path / "openclaw.json.lock"
    lock.write_text("")
    with anyio.fail_after(5):
        with pytest.raises(ConfigLockTimeout):
            await write(
                impatient(path),
                "early\n",
            )
        old = time.time() - 31
        os.utime(lock, (old, old))
        await write(FileConfigStore(str(path), lock_retries=0), "aged out\n")
    assert path.read_text() == "aged out\n"


async def test_a_live_owner_keeps_its_lock_however_old_and_edit_times_out(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    lock = tmp_path / "openclaw.json.lock"
    foreign = lock_text({"pid": os.getpid(), "createdAt": "2020-01-01T00:00:00.000Z"})
    lock.write_text(foreign)
    store = FileConfigStore(str(path), lock_retries=3, lock_min_delay=0.001, lock_max_delay=0.01)
    with anyio.fail_after(5), pytest.raises(ConfigLockTimeout) as caught:
        await write(store, "never\n")
    assert str(caught.value) == f"file lock timeout for {path}"
    assert lock.read_text() == foreign
    assert not path.exists()


async def test_a_fresh_foreign_lock_makes_edit_wait_until_it_is_released(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    lock = tmp_path / "openclaw.json.lock"
    start = process_start_time(os.getpid())
    owner: dict[str, object] = {"pid": os.getpid(), "createdAt": iso(datetime.now(UTC))}
    if start is not None:
        owner["starttime"] = start
    lock.write_text(lock_text(owner))
    done = anyio.Event()
    store = FileConfigStore(str(path), lock_min_delay=0.005, lock_max_delay=0.02)

    async def edit() -> None:
        await write(store, "after the foreign lock\n")
        done.set()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(edit)
            await anyio.sleep(0.1)
            assert not done.is_set()
            assert not path.exists()
            lock.unlink()
            await done.wait()
    assert path.read_text() == "after the foreign lock\n"


async def test_an_abandoned_reclaim_guard_is_cleared_but_a_fresh_one_blocks(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    guard = tmp_path / "openclaw.json.lock.reclaim"
    guard.mkdir()
    with anyio.fail_after(5):
        with pytest.raises(ConfigLockTimeout):
            await write(
                impatient(path),
                "early\n",
            )
        old = time.time() - 31
        os.utime(guard, (old, old))
        await write(FileConfigStore(str(path), lock_retries=0), "cleared\n")
    assert path.read_text() == "cleared\n"
    assert not guard.exists()


async def test_a_lock_path_that_is_not_a_regular_file_is_an_error_not_a_wait(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json.lock").mkdir()
    store = FileConfigStore(str(tmp_path / "openclaw.json"))
    with anyio.fail_after(5), pytest.raises(ConfigStoreError) as caught:
        await write(store, "x\n")
    assert not isinstance(caught.value, ConfigLockTimeout)
    assert str(caught.value) == f"sidecar lock is not a regular file: {tmp_path}/openclaw.json.lock"


async def test_two_store_instances_on_one_path_are_serialised_by_the_file_lock(tmp_path: Path) -> None:
    path = str(tmp_path / "openclaw.json")
    stores = [FileConfigStore(path, lock_min_delay=0.005, lock_max_delay=0.02) for _ in range(2)]

    async def add_line(store: FileConfigStore, line: str) -> None:
        async with store.edit() as edit:
            before = edit.current.text or ""
            await anyio.sleep(0)
            await edit.replace(before + line)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            for index in range(20):
                tg.start_soon(add_line, stores[index % 2], f"line {index}\n")
    lines = Path(path).read_text().splitlines()
    assert sorted(lines) == sorted(f"line {index}" for index in range(20))


class FixedRandom(random.Random):
    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def random(self) -> float:
        return self.value


async def test_lock_waits_grow_by_1_2_from_25_ms_up_to_250_ms_with_up_to_double_jitter() -> None:
    policy = LockPolicy()
    calm, jumpy = FixedRandom(0.0), FixedRandom(0.999)
    assert [policy.delay(attempt, calm) for attempt in (0, 1, 2, 12, 13, 79)] == [
        0.025,
        0.03,
        0.036,
        0.223,
        0.25,
        0.25,
    ]
    assert [policy.delay(attempt, jumpy) for attempt in (0, 1, 12)] == [0.05, 0.06, 0.25]
    assert (policy.retries, policy.stale_after) == (80, 30.0)


# --- other processes --------------------------------------------------------------------------------------

ADD_KEY_DRIVER = """
import json, os, sys
import anyio
from openclaw_mcp.adapters.filesystem import FileConfigStore

async def main(path: str, key: str, go: str) -> None:
    while not os.path.exists(go):
        await anyio.sleep(0.005)
    async with FileConfigStore(path).edit() as edit:
        data = json.loads(edit.current.text) if edit.current.text else {}
        data[key] = os.getpid()
        await edit.replace(json.dumps(data, indent=2) + "\\n")

anyio.run(main, *sys.argv[1:])
"""

WRITER_DRIVER = """
import os, sys
import anyio
from openclaw_mcp.adapters.filesystem import FileConfigStore

BIG_A = "A" * 1_000_000 + "\\n"
BIG_B = "B" * 1_000_000 + "\\n"

async def main(path: str, mode: str) -> None:
    store = FileConfigStore(path)
    if mode == "hold":
        async with store.edit():
            open(path + ".held", "w").close()
            await anyio.sleep_forever()
    turn = 0
    while True:
        async with store.edit() as edit:
            await edit.replace(BIG_A if turn % 2 == 0 else BIG_B)
        turn += 1

anyio.run(main, *sys.argv[1:])
"""

BIG_A = "A" * 1_000_000 + "\n"
BIG_B = "B" * 1_000_000 + "\n"


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


@POSIX_ONLY
async def test_twenty_processes_editing_at_once_lose_no_update(tmp_path: Path) -> None:
    driver = tmp_path / "add_key.py"
    driver.write_text(ADD_KEY_DRIVER)
    path = tmp_path / "cfg" / "openclaw.json"
    go = tmp_path / "go"
    results: dict[str, subprocess.CompletedProcess[bytes]] = {}

    async def run(key: str) -> None:
        command = [sys.executable, str(driver), str(path), key, str(go)]
        results[key] = await anyio.run_process(command, check=False, env=child_env(), cwd=tmp_path)

    with anyio.fail_after(120):
        async with anyio.create_task_group() as tg:
            for index in range(20):
                tg.start_soon(run, f"process-{index}")
            await anyio.sleep(0.2)
            go.write_text("")
    failures = {key: result.stderr.decode() for key, result in results.items() if result.returncode != 0}
    assert failures == {}
    data = json.loads(path.read_text())
    assert sorted(data) == sorted(f"process-{index}" for index in range(20))
    assert not (path.parent / "openclaw.json.lock").exists()
    assert leftovers(path.parent) == []


async def wait_until(condition: Callable[[], bool]) -> None:
    while not condition():
        await anyio.sleep(0.01)


def inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


@POSIX_ONLY
async def test_sigkill_at_random_moments_leaves_a_whole_file_and_a_lock_the_next_edit_takes_over(
    tmp_path: Path,
) -> None:
    driver = tmp_path / "writer.py"
    driver.write_text(WRITER_DRIVER)
    path = tmp_path / "cfg" / "openclaw.json"
    lock = tmp_path / "cfg" / "openclaw.json.lock"
    held = tmp_path / "cfg" / "openclaw.json.held"
    moments = random.Random(20260906)
    leftover_locks = 0

    async def start(mode: str) -> Process:
        return await anyio.open_process(
            [sys.executable, str(driver), str(path), mode],
            env=child_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    async def kill_and_take_over(process: Process) -> None:
        nonlocal leftover_locks
        process.send_signal(signal.SIGKILL)
        assert await process.wait() == -signal.SIGKILL
        assert path.read_text() in (BIG_A, BIG_B)  # never a mix, never partial
        leftover_locks += lock.exists()
        async with FileConfigStore(str(path), lock_retries=0).edit() as edit:
            assert edit.current.text in (BIG_A, BIG_B)
        assert not lock.exists()
        assert [name for name in leftovers(path.parent) if name != held.name] == []  # temp files swept

    with anyio.fail_after(120):
        for _ in range(6):
            before = inode(path)
            async with await start("loop") as process:

                def rewritten(before: int | None = before) -> bool:
                    return inode(path) not in (None, before)

                await wait_until(rewritten)
                await anyio.sleep(moments.uniform(0.0, 0.3))
                await kill_and_take_over(process)
        # Once more, killed while certainly holding the lock.
        async with await start("hold") as process:
            await wait_until(held.exists)
            assert lock.exists()
            await kill_and_take_over(process)
    assert leftover_locks >= 1
