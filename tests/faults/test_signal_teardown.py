"""A signal to a connecting CLI (``probe``, ``doctor --probe``, ``add``) tears the stdio server's whole process
group down, then the CLI exits with 128 + the signal number (issue 14 item 3). Real processes, no mocks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.faults import signal_server

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main", "mcp"]
SERVER = Path(signal_server.__file__)
TREE_TIMEOUT_S = 60.0
EXIT_TIMEOUT_S = 60.0
EXTINCT_WITHIN_S = 5.0
CONNECT_TIMEOUT_MS = 600_000


@dataclass
class Run:
    state: Path
    pids_file: Path
    recorded: list[int]

    def output(self) -> str:
        return "".join(
            f"--- {name}\n{(self.state / name).read_text(errors='replace')}"
            for name in ("stdout.txt", "stderr.txt")
            if (self.state / name).exists()
        )


def _env(state: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
    }


def _server_env(run: Run, mode: str) -> dict[str, str]:
    return {signal_server.PIDS_VAR: str(run.pids_file), signal_server.MODE_VAR: mode}


def _write_config(run: Run, mode: str) -> None:
    server = {
        "command": sys.executable,
        "args": [str(SERVER)],
        "env": _server_env(run, mode),
        "connectionTimeoutMs": CONNECT_TIMEOUT_MS,
    }
    text = json.dumps({"mcp": {"servers": {"tree": server}}}, indent=2) + "\n"
    (run.state / "openclaw.json").write_text(text)


def _alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie (a zombie runs nothing; its reaper may be slow)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    state = stat[stat.rfind(b")") + 2 :].split()[:1]
    return state not in ([b"Z"], [b"X"])


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Run]:
    (tmp_path / "home").mkdir()
    current = Run(tmp_path, tmp_path / "tree.pids", [])
    try:
        yield current
    finally:
        for pid in current.recorded:  # only what the tree recorded: never by name
            if _alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def _read_pids(run: Run) -> list[int]:
    try:
        text = run.pids_file.read_text()
    except FileNotFoundError:
        return []
    return [int(line) for line in text.split("\n") if line.strip().isdigit()]


def _start(run: Run, argv: Sequence[str]) -> subprocess.Popen[bytes]:
    with (run.state / "stdout.txt").open("wb") as out, (run.state / "stderr.txt").open("wb") as err:
        return subprocess.Popen(
            [*CLI, *argv], env=_env(run.state), cwd=run.state, stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )


def _wait_for_tree(run: Run, cli: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + TREE_TIMEOUT_S
    while time.monotonic() < deadline:
        run.recorded[:] = _read_pids(run)
        if len(run.recorded) >= signal_server.MEMBERS:
            time.sleep(0.3)  # let the CLI settle into waiting for the server
            return
        if cli.poll() is not None:
            pytest.fail(f"the CLI exited ({cli.returncode}) before the server tree was up\n{run.output()}")
        time.sleep(0.05)
    cli.kill()
    cli.wait(EXIT_TIMEOUT_S)
    run.recorded[:] = _read_pids(run)
    pytest.fail(f"the server tree never came up: {run.recorded}\n{run.output()}")


def _interrupt(run: Run, cli: subprocess.Popen[bytes], signums: Sequence[int], gap_s: float = 0.0) -> int:
    """Send ``signums`` to the CLI (``gap_s`` apart), wait for it, and assert the tree is extinct in time."""
    _wait_for_tree(run, cli)
    sent = time.monotonic()
    for index, signum in enumerate(signums):
        if index:
            time.sleep(gap_s)
        if cli.poll() is None:
            cli.send_signal(signum)
    try:
        code = cli.wait(EXIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        cli.kill()
        cli.wait(EXIT_TIMEOUT_S)
        pytest.fail(f"the CLI did not exit after {signums}\n{run.output()}")
    exited = time.monotonic()
    deadline = exited + EXTINCT_WITHIN_S
    while time.monotonic() < deadline and any(_alive(pid) for pid in run.recorded):
        time.sleep(0.05)
    survivors = [pid for pid in run.recorded if _alive(pid)]
    assert survivors == [], f"survived {EXTINCT_WITHIN_S} s after the CLI exited: {survivors}\n{run.output()}"
    print(f"signal → CLI exit: {exited - sent:.2f} s")
    return code


SIGNALS = [
    pytest.param(signal.SIGTERM, 143, id="SIGTERM"),
    pytest.param(signal.SIGINT, 130, id="SIGINT"),
    pytest.param(signal.SIGHUP, 129, id="SIGHUP"),
]


@pytest.mark.parametrize(("signum", "expected"), SIGNALS)
def test_a_signal_to_probe_kills_the_whole_server_tree_and_exits_128_plus_signo(
    run: Run, signum: int, expected: int
) -> None:
    _write_config(run, "hang")
    cli = _start(run, ["probe", "tree"])
    code = _interrupt(run, cli, [signum])
    assert code == expected, run.output()


def test_sigterm_to_probe_of_a_connected_server_awaiting_its_catalog_kills_the_tree(run: Run) -> None:
    _write_config(run, "slow")
    cli = _start(run, ["probe", "tree"])
    code = _interrupt(run, cli, [signal.SIGTERM])
    assert code == 143, run.output()


@pytest.mark.parametrize(
    ("signums", "expected"),
    [
        pytest.param([signal.SIGTERM, signal.SIGTERM, signal.SIGTERM], 143, id="SIGTERM-repeated"),
        pytest.param([signal.SIGINT, signal.SIGINT, signal.SIGINT], 130, id="SIGINT-repeated"),
        pytest.param([signal.SIGHUP, signal.SIGTERM, signal.SIGINT], 129, id="SIGHUP-then-others"),
    ],
)
def test_more_signals_during_the_teardown_do_not_abort_it(run: Run, signums: list[int], expected: int) -> None:
    _write_config(run, "hang")
    cli = _start(run, ["probe", "tree"])
    code = _interrupt(run, cli, signums, gap_s=0.02)
    assert code == expected, run.output()


def test_sighup_to_doctor_probe_kills_the_whole_server_tree(run: Run) -> None:
    _write_config(run, "hang")
    cli = _start(run, ["doctor", "--probe"])
    code = _interrupt(run, cli, [signal.SIGHUP])
    assert code == 129, run.output()


def test_sigterm_to_add_kills_the_whole_server_tree_and_saves_nothing(run: Run) -> None:
    before: dict[str, Any] = {"mcp": {"servers": {}}}
    (run.state / "openclaw.json").write_text(json.dumps(before) + "\n")
    argv = ["add", "tree", "--command", sys.executable, "--arg", str(SERVER)]
    for key, value in _server_env(run, "hang").items():
        argv += ["--env", f"{key}={value}"]
    cli = _start(run, [*argv, "--connect-timeout", str(CONNECT_TIMEOUT_MS // 1000)])
    code = _interrupt(run, cli, [signal.SIGTERM])
    assert code == 143, run.output()
    assert json.loads((run.state / "openclaw.json").read_text()) == before
