"""``FdSource``: stdin of ``openclaw mcp serve`` read through one event-loop registration."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from openclaw_mcp.entrypoints.serve.transport import FdSource

pytestmark = pytest.mark.asyncio


async def test_a_pipe_is_read_as_data_arrives_until_end_of_input() -> None:
    read_fd, write_fd = os.pipe()
    source = FdSource(read_fd)
    try:
        with anyio.fail_after(5):
            os.write(write_fd, b'{"a":1}\n')
            assert await source.read() == b'{"a":1}\n'

            async def later() -> None:
                await anyio.sleep(0.05)
                os.write(write_fd, b"second\n")

            async with anyio.create_task_group() as tg:
                tg.start_soon(later)
                assert await source.read() == b"second\n"
            os.close(write_fd)
            write_fd = -1
            assert await source.read() == b""
            assert await source.read() == b""
    finally:
        source.close()
        os.close(read_fd)
        if write_fd != -1:
            os.close(write_fd)


async def test_input_far_ahead_of_the_reader_is_paused_then_read_whole() -> None:
    read_fd, write_fd = os.pipe()
    source = FdSource(read_fd)
    received = bytearray()
    payload = b"x" * (6 * 1024 * 1024)
    try:
        with anyio.fail_after(10):

            async def writer() -> None:
                view = memoryview(payload)
                while view:
                    await anyio.wait_writable(write_fd)
                    view = view[os.write(write_fd, view[: 1 << 16]) :]
                os.close(write_fd)

            os.set_blocking(write_fd, False)
            async with anyio.create_task_group() as tg:
                tg.start_soon(writer)
                await anyio.sleep(0.2)  # let input pile up past the backlog limit
                while chunk := await source.read():
                    received += chunk
    finally:
        source.close()
        os.close(read_fd)
    assert bytes(received) == payload


async def test_a_regular_file_is_read_directly(tmp_path: Path) -> None:
    path = tmp_path / "input.jsonl"
    path.write_bytes(b"one\ntwo\n")
    fd = os.open(path, os.O_RDONLY)
    source = FdSource(fd)
    try:
        with anyio.fail_after(5):
            assert await source.read() == b"one\ntwo\n"
            assert await source.read() == b""
    finally:
        source.close()
        os.close(fd)
