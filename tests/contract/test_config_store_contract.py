"""ConfigStore contract: must pass for every implementation.

Observable behaviour through the port only (``application.ports.config.ConfigStore`` / ``ConfigEdit``): reads of
a missing file, read-after-write, the edit's view of the file, serialised edits with no lost update,
release of the write lock on error and cancellation, and ``save_rejected``.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from openclaw_mcp.application.errors import ConfigStoreError
from openclaw_mcp.application.ports.config import ConfigFile
from tests.contract.conftest import ConfigStoreFactory

pytestmark = pytest.mark.asyncio

TEXT = (
    '{\n  "mcp": {\n    "servers": {\n      "caf\u00e9": {\n        "command": "\U0001f600"\n      }\n    }\n  }\n}\n'
)


class Boom(Exception):
    pass


async def test_missing_file_reads_as_absent(config_store_factory: ConfigStoreFactory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store:
            file = await store.read()
    assert file == ConfigFile(store.path, None)
    assert not file.exists


async def test_edit_of_a_missing_file_starts_from_absent(
    config_store_factory: ConfigStoreFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store, store.edit() as edit:
            current = edit.current
    assert current == ConfigFile(store.path, None)


async def test_replace_then_read_returns_the_text(config_store_factory: ConfigStoreFactory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store:
            async with store.edit() as edit:
                await edit.replace(TEXT)
            file = await store.read()
    assert file == ConfigFile(store.path, TEXT)
    assert file.exists


async def test_current_reflects_the_latest_committed_text(
    config_store_factory: ConfigStoreFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store:
            async with store.edit() as edit:
                await edit.replace("one\n")
                after_first = edit.current
                await edit.replace("two\n")
                after_second = edit.current
            async with store.edit() as edit:
                next_edit = edit.current
    assert after_first == ConfigFile(store.path, "one\n")
    assert after_second == ConfigFile(store.path, "two\n")
    assert next_edit == ConfigFile(store.path, "two\n")


async def test_concurrent_edits_lose_no_update(config_store_factory: ConfigStoreFactory, tmp_path: Path) -> None:
    async def add_line(store_edit_line: str) -> None:
        async with store.edit() as edit:
            before = edit.current.text or ""
            await anyio.sleep(0)  # let the other tasks pile up on the lock
            await edit.replace(before + store_edit_line)

    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store:
            async with anyio.create_task_group() as tg:
                for index in range(20):
                    tg.start_soon(add_line, f"line {index}\n")
            file = await store.read()
    assert file.text is not None
    assert sorted(file.text.splitlines()) == sorted(f"line {index}" for index in range(20))


async def test_an_error_inside_the_edit_leaves_the_file_untouched_and_releases_the_lock(
    config_store_factory: ConfigStoreFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store:
            async with store.edit() as edit:
                await edit.replace("original\n")
            with pytest.raises(Boom):
                async with store.edit() as edit:
                    assert edit.current.text == "original\n"
                    raise Boom
            untouched = await store.read()
            async with store.edit() as edit:
                await edit.replace("after\n")
            after = await store.read()
    assert untouched.text == "original\n"
    assert after.text == "after\n"


async def test_cancellation_inside_the_edit_releases_the_lock(
    config_store_factory: ConfigStoreFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store:
            entered = anyio.Event()

            async def hold_forever() -> None:
                async with store.edit():
                    entered.set()
                    await anyio.sleep_forever()

            async with anyio.create_task_group() as tg:
                tg.start_soon(hold_forever)
                await entered.wait()
                tg.cancel_scope.cancel()
            async with store.edit() as edit:
                await edit.replace("after cancel\n")
            file = await store.read()
    assert file.text == "after cancel\n"


async def test_a_waiting_edit_proceeds_once_the_holder_exits(
    config_store_factory: ConfigStoreFactory, tmp_path: Path
) -> None:
    order: list[str] = []
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store:
            entered = anyio.Event()
            release = anyio.Event()

            async def holder() -> None:
                async with store.edit() as edit:
                    entered.set()
                    await release.wait()
                    await edit.replace("holder\n")
                    order.append("holder")

            async def waiter() -> None:
                async with store.edit() as edit:
                    order.append(f"waiter saw {edit.current.text!r}")

            async with anyio.create_task_group() as tg:
                tg.start_soon(holder)
                await entered.wait()
                tg.start_soon(waiter)
                await anyio.sleep(0.05)
                release.set()
    assert order == ["holder", "waiter saw 'holder\\n'"]


async def test_save_rejected_returns_its_path_and_leaves_the_config_alone(
    config_store_factory: ConfigStoreFactory, tmp_path: Path
) -> None:
    stamp = "2026-11-29T13-39-51-480Z"
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store:
            async with store.edit() as edit:
                await edit.replace(TEXT)
            async with store.edit() as edit:
                saved = await edit.save_rejected("{}\n", stamp)
                current = edit.current
            file = await store.read()
    assert saved == f"{store.path}.rejected.{stamp}"
    assert current == ConfigFile(store.path, TEXT)
    assert file == ConfigFile(store.path, TEXT)


async def test_a_second_save_rejected_with_the_same_stamp_fails(
    config_store_factory: ConfigStoreFactory, tmp_path: Path
) -> None:
    stamp = "2026-11-29T13-39-51-480Z"
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store, store.edit() as edit:
            await edit.save_rejected("first\n", stamp)
            with pytest.raises(ConfigStoreError):
                await edit.save_rejected("second\n", stamp)
            other = await edit.save_rejected("second\n", stamp + "1")
    assert other == f"{store.path}.rejected.{stamp}1"


async def test_an_edit_cannot_write_after_its_block_has_exited(
    config_store_factory: ConfigStoreFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with config_store_factory(tmp_path) as store:
            async with store.edit() as edit:
                await edit.replace("inside\n")
            with pytest.raises(ConfigStoreError):
                await edit.replace("outside\n")
            with pytest.raises(ConfigStoreError):
                await edit.save_rejected("outside\n", "stamp")
            file = await store.read()
    assert file.text == "inside\n"
