"""Commands that do not connect run without an event loop: their module set, the inline driver, and the
adapters composed never to suspend."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.adapters.filesystem._lock import LockPolicy, acquire_sidecar_lock, blocking_sleep, lock_payload
from openclaw_mcp.adapters.filesystem.config_store import FileConfigStore
from openclaw_mcp.application.errors import ConfigLockTimeout
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.cli.argv import Parsed, parse
from openclaw_mcp.entrypoints.cli.commands import runs_inline
from openclaw_mcp.entrypoints.cli.inline import InlineSuspended, run_inline
from openclaw_mcp.entrypoints.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("asyncio", "anyio", "mcp", "pydantic", "dependency_injector", "sniffio", "opentelemetry")


def _env(state: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
    }


def _imported(state: Path, *argv: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``openclaw mcp <argv>`` under ``-X importtime``; the process and the modules it imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "openclaw_mcp.entrypoints.cli.main", "mcp", *argv],
        env=_env(state),
        cwd=state,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    modules.discard("package")  # the header line
    return proc, modules


def _heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in FORBIDDEN)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ("set", "s2", '{"command":"node","args":["x2.js"]}'),
        ("list", "--json"),
        ("list",),
        ("status", "--json"),
        ("status", "--verbose"),
        ("show", "s1"),
        ("show", "--json"),
        ("tools", "s1", "--include", "a*"),
        ("configure", "s1", "--timeout", "5"),
        ("add", "s3", "--command", "node", "--no-probe"),
        ("unset", "s1"),
        ("reload",),
    ],
)
def test_commands_that_do_not_connect_import_no_event_loop_sdk_or_pydantic(state: Path, argv: tuple[str, ...]) -> None:
    (state / "openclaw.json").write_text(json.dumps({"mcp": {"servers": {"s1": {"command": "node"}}}}))
    proc, modules = _imported(state, *argv)
    assert proc.returncode == 0, proc.stderr
    assert "openclaw_mcp.entrypoints.cli.commands" in modules  # the listing is real
    assert _heavy(modules) == []


@pytest.mark.parametrize("argv", [("list", "--json"), ("status", "--json")])
def test_otel_variables_add_no_import_to_commands_that_do_not_connect(state: Path, argv: tuple[str, ...]) -> None:
    """Export configured (docs/telemetry.md) but nothing to trace: neither OpenTelemetry nor the span code loads;
    without ``OTEL_*`` variables not even the module that reads them."""
    (state / "openclaw.json").write_text(json.dumps({"mcp": {"servers": {"s1": {"command": "node"}}}}))
    plain, plain_modules = _imported(state, *argv)
    traced_env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_TRACES_EXPORTER": "otlp"}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "openclaw_mcp.entrypoints.cli.main", "mcp", *argv],
        env={**_env(state), **traced_env},
        cwd=state,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert "openclaw_mcp.entrypoints.cli.commands" in modules
    assert "openclaw_mcp.entrypoints.otel_settings" not in plain_modules
    assert not any(name.split(".")[0] == "opentelemetry" for name in modules)
    assert not any(name.startswith(("openclaw_mcp.adapters.otel", "openclaw_mcp.domain.mcp_spans")) for name in modules)
    assert modules - plain_modules == {"openclaw_mcp.entrypoints.otel_settings"}  # reads the OTEL_* variables


def test_a_write_with_a_state_database_runs_in_an_event_loop_for_the_lifecycle_lease(state: Path) -> None:
    (state / "openclaw.json").write_text(json.dumps({"mcp": {"servers": {}}}))
    (state / "state").mkdir()
    (state / "state" / "openclaw.sqlite").write_bytes(b"")
    proc, modules = _imported(state, "set", "s1", '{"command":"node"}')
    assert proc.returncode == 0, proc.stderr
    assert "anyio" in modules
    assert json.loads((state / "openclaw.json").read_text())["mcp"]["servers"] == {"s1": {"command": "node"}}
    proc, modules = _imported(state, "list", "--json")  # reads stay inline
    assert proc.returncode == 0, proc.stderr
    assert _heavy(modules) == []


def _typed(argv: list[str]) -> Any:
    parsed = parse(argv)
    assert isinstance(parsed, Parsed)
    return parsed.typed


def test_runs_inline_only_for_commands_that_neither_connect_nor_lease(state: Path) -> None:
    env = Settings.from_environ(_env(state))
    for argv in (["list"], ["show"], ["status"], ["reload"], ["set", "a", "{}"], ["unset", "a"], ["tools", "a"]):
        assert runs_inline(_typed(argv), env), argv
    assert runs_inline(_typed(["configure", "a"]), env)
    assert runs_inline(_typed(["add", "a", "--no-probe"]), env)
    for argv in (["configure", "a", "--probe"], ["add", "a"], ["doctor"], ["probe"], ["login", "a"], ["logout", "a"]):
        assert not runs_inline(_typed(argv), env), argv
    (state / "state").mkdir()
    (state / "state" / "openclaw.sqlite").write_bytes(b"")
    assert runs_inline(_typed(["list"]), env)
    assert not runs_inline(_typed(["set", "a", "{}"]), env)


def test_inline_composition_refuses_to_skip_the_lifecycle_lease(state: Path) -> None:
    (state / "state").mkdir()
    (state / "state" / "openclaw.sqlite").write_bytes(b"")
    with pytest.raises(RuntimeError, match="lifecycle lease needs an event loop"):
        composition.registry(Settings.from_environ(_env(state)), print, inline=True)
    composition.registry(Settings.from_environ(_env(state)), print, inline=True, lifecycle=False)


# --- the driver ----------------------------------------------------------------------------------------


async def _answer(value: int) -> int:
    return value


async def _fails() -> None:
    raise ValueError("boom")


class _Suspend:
    def __await__(self) -> Any:
        yield "tick"


async def _suspends() -> None:
    await _answer(1)
    await _Suspend()


def test_run_inline_returns_the_result_or_raises_the_exception() -> None:
    assert run_inline(_answer(42)) == 42
    with pytest.raises(ValueError, match="boom"):
        run_inline(_fails())


def test_run_inline_reports_a_suspension_as_an_internal_error() -> None:
    with pytest.raises(InlineSuspended, match="tried to suspend"):
        run_inline(_suspends())


# --- adapters that never suspend -----------------------------------------------------------------------


def test_inline_store_edits_under_the_driver(tmp_path: Path) -> None:
    store = FileConfigStore(str(tmp_path / "openclaw.json"), inline=True)

    async def write() -> str | None:
        async with store.edit() as edit:
            await edit.replace('{"a": 1}\n')
        return (await store.read()).text

    assert run_inline(write()) == '{"a": 1}\n'
    assert not (tmp_path / "openclaw.json.lock").exists()


def test_lock_waits_block_instead_of_suspending(tmp_path: Path) -> None:
    target = str(tmp_path / "openclaw.json")
    # A lock held by this (live) process is never stale: every attempt waits, then the retries run out.
    Path(f"{target}.lock").write_bytes(lock_payload(os.getpid(), "2026-01-01T00:00:00.000Z", None, b"\0" * 16))
    policy = LockPolicy(retries=3, min_delay=0.001, max_delay=0.002)
    with pytest.raises(ConfigLockTimeout, match="file lock timeout"):
        run_inline(acquire_sidecar_lock(target, policy, random.Random(1), blocking_sleep))


def test_composition_builds_the_registry_from_the_environment(state: Path) -> None:
    import time

    settings = Settings.from_environ({**_env(state), "OPENCLAW_INCLUDE_ROOTS": str(state / "shared")})
    assert composition.config_store(settings).path == str(state / "openclaw.json")
    assert settings.state_db_path == str(state / "state" / "openclaw.sqlite")
    assert settings.include_roots == (str(state / "shared"),)
    assert composition.lifecycle_leases(settings) is None
    assert composition.registry(settings, print).path == str(state / "openclaw.json")
    assert abs(composition.clock().now_ms() - time.time() * 1000) < 5_000
    (state / "state").mkdir()
    (state / "state" / "openclaw.sqlite").write_bytes(b"")
    assert composition.lifecycle_leases(settings) is not None
