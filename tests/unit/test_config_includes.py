"""``$include`` files reach the config service through the ``IncludeLoader`` port without blocking the event
loop (``application.config_includes``): the filesystem loader reads in worker threads, ``validate_document``
reuses the analysis's answers and reads a new include through the port too, and an inline process still
imports no event loop."""

from __future__ import annotations

import errno
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.filesystem.config_store import FileConfigStore
from openclaw_mcp.adapters.filesystem.includes import FileIncludeLoader
from openclaw_mcp.adapters.memory import InMemoryConfigStore
from openclaw_mcp.application.config_service import ConfigService
from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.config import ConfigStore
from openclaw_mcp.entrypoints.cli.inline import run_inline

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("asyncio", "anyio", "mcp", "pydantic", "dependency_injector", "sniffio")


class FixedClock:
    def now_ms(self) -> int:
        return 1_700_000_000_000


def service(store: ConfigStore, warnings: list[str] | None = None) -> ConfigService:
    return ConfigService(store, {}, FixedClock(), (warnings if warnings is not None else []).append)


def config_dir(tmp_path: Path, root: Any, files: dict[str, str]) -> Path:
    directory = tmp_path / "state"
    directory.mkdir()
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    config = directory / "openclaw.json"
    config.write_text(json.dumps(root), encoding="utf-8")
    return config


def with_server(document: dict[str, Any], name: str, server: dict[str, Any]) -> dict[str, Any]:
    mcp = dict(document.get("mcp") or {})
    mcp["servers"] = {**(mcp.get("servers") or {}), name: server}
    return {**document, "mcp": mcp}


# --- reads off the event loop ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_include_files_are_read_while_the_event_loop_keeps_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each include read first waits for a byte on a FIFO that only a task on the event loop writes. Were the
    read done on the loop, that task could not run: the read would give up after 5 s (``opened == [False]``)
    and the writer would never find a reader (``fail_after`` fires)."""
    config = config_dir(
        tmp_path, {"mcp": {"$include": "./mcp.json5"}}, {"mcp.json5": "{servers: {inc: {command: 'x'}}}"}
    )
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    opened: list[bool] = []
    read = FileIncludeLoader._read

    def gated_read(self: FileIncludeLoader, include_path: str, resolved_path: str) -> str:
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            deadline = time.monotonic() + 5
            got = b""
            while not got and (left := deadline - time.monotonic()) > 0:
                if select.select([fd], [], [], left)[0]:
                    got = os.read(fd, 1)
                    if not got:
                        time.sleep(0.01)  # a writer came and went without writing: wait for the next
            opened.append(got == b"x")
        finally:
            os.close(fd)
        return read(self, include_path, resolved_path)

    monkeypatch.setattr(FileIncludeLoader, "_read", gated_read)

    async def open_the_gate() -> None:
        while True:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # ENXIO: no reader has the FIFO open yet
                    raise
                await anyio.sleep(0.01)
                continue
            try:
                os.write(fd, b"x")
            finally:
                os.close(fd)
            return

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(open_the_gate)
            analysis = await service(FileConfigStore(str(config))).load()
    assert opened == [True]
    assert analysis.servers == {"inc": {"command": "x"}}


# --- validate_document: the analysis's answers, and includes a change introduces ---------------------------


@pytest.mark.asyncio
async def test_validate_document_uses_the_include_files_the_analysis_read() -> None:
    store = InMemoryConfigStore(
        text='{"mcp": {"servers": {"$include": "./servers.json"}}}',
        files={"/memory/servers.json": '{"docs": {"command": "x"}}'},
    )
    config = service(store)
    with anyio.fail_after(5):
        analysis = await config.load()
    store.files["/memory/servers.json"] = '{"docs": {"command": 5}}'  # changed after the analysis read it
    with anyio.fail_after(5):
        assert await config.validate_document(analysis.authored) == []
        _, analysis = await config.inspect()  # a new analysis reads afresh
        issues = await config.validate_document(analysis.authored)
    assert [issue.dotted for issue in issues] == ["mcp.servers.docs.command"]


@pytest.mark.asyncio
async def test_validate_document_reads_an_include_a_change_introduced_on_the_event_loop(tmp_path: Path) -> None:
    config = config_dir(tmp_path, {"mcp": {"servers": {}}}, {"srv.json": '{"command": 5}'})
    configs = service(FileConfigStore(str(config)))
    with anyio.fail_after(5):
        analysis = await configs.load()
    added = with_server(analysis.authored, "new", {"$include": "./srv.json"})
    with anyio.fail_after(5):
        issues = await configs.validate_document(added)
    assert [issue.dotted for issue in issues] == ["mcp.servers.new.command"]
    missing = with_server(analysis.authored, "new", {"$include": "./missing.json"})
    with pytest.raises(ApplicationError, match=r"^Failed to read include file: \./missing\.json \(resolved: "):
        with anyio.fail_after(5):
            await configs.validate_document(missing)


def test_validate_document_reads_an_include_a_change_introduced_inline(tmp_path: Path) -> None:
    config = config_dir(tmp_path, {"mcp": {"servers": {}}}, {"srv.json": '{"command": 5}'})
    configs = service(FileConfigStore(str(config), inline=True))
    analysis = run_inline(configs.load())
    added = with_server(analysis.authored, "new", {"$include": "./srv.json"})
    assert [issue.dotted for issue in run_inline(configs.validate_document(added))] == ["mcp.servers.new.command"]


@pytest.mark.asyncio
async def test_a_commit_validates_the_changed_document_with_its_includes(tmp_path: Path) -> None:
    config = config_dir(tmp_path, {"mcp": {"servers": {}}}, {"srv.json": '{"command": 5}'})
    configs = service(FileConfigStore(str(config)))

    def add(servers: dict[str, Any]) -> None:
        servers["new"] = {"$include": "./srv.json"}

    with anyio.fail_after(5), pytest.raises(ApplicationError, match=r"mcp\.servers\.new\.command"):
        await configs.commit("set", "new", add)
    assert json.loads(config.read_text(encoding="utf-8")) == {"mcp": {"servers": {}}}


# --- inline: no event loop imported --------------------------------------------------------------------


def test_an_inline_command_reads_includes_without_importing_an_event_loop(tmp_path: Path) -> None:
    config = config_dir(
        tmp_path, {"mcp": {"$include": "./mcp.json5"}}, {"mcp.json5": "{servers: {inc: {command: 'x'}}}"}
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "OPENCLAW_STATE_DIR": str(config.parent),
        "OPENCLAW_CONFIG_PATH": str(config),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
    }
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "openclaw_mcp.entrypoints.cli.main", "mcp", "list", "--json"],
        env=env,
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"inc": {"command": "x"}}
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert "openclaw_mcp.adapters.filesystem.includes" in modules
    assert [name for name in modules if name.split(".")[0] in FORBIDDEN] == []
