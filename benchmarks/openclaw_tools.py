"""`openclaw-tools`, ours against the reference's `dist/mcp/openclaw-tools-serve.js` (OpenClaw 2026.9.6), in
the same run, both serving `cron,openclaw` for the session `agent:main:main` (spec openclaw-tools.md) with a
token-auth config pointing at a fake Gateway (`tests/reference_cases/check/openclaw-tools/fake_gateway.py`) on loopback.

    .venv/bin/python benchmarks/openclaw_tools.py [--runs 3] [--calls 100]

After one untimed warm-up process of each, per implementation and run (runs alternate between the two, the
order swapped every run; each process gets a fresh isolated HOME / state dir / config file and its own fake
Gateway on a free loopback port, started before the server and stopped by its PID after it exits):

* wall time and CPU-seconds of the server's process tree from spawn to the `initialize` result;
* peak RSS of the process tree (sum over its processes, sampled every 10 ms from spawn to exit, except while
  latencies are timed: then only before and after);
* latency of `--calls` sequential `tools/call automations {"action": "status"}` round trips (each a one-shot
  WebSocket `connect` + `cron.status` to the fake Gateway, spec §6.3), then of as many
  `tools/call openclaw {"action": "open_agent"}` round trips (a local navigation directive, spec §7.2).

Prints medians over the runs (latencies: median and p95 over all calls of all runs) and the ratios
reference / ours; the issue's target is under 0.3 CPU-seconds to `initialize` for ours (the reference answers
after ≈1.7 s). Without the reference installed (`bash scripts/install_reference.sh`) only our
column is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._stdio_servers import (  # noqa: E402 - after the path setup
    Figures,
    Server,
    initialized,
    new_state,
    reference_or_note,
    report,
    run_alternating,
    timed_calls,
)
from tests.docker.gateway_harness import isolated_env  # noqa: E402
from tests.fixtures.ports import free_port  # noqa: E402

FAKE_GATEWAY = ROOT / "tests" / "reference_cases" / "check" / "openclaw-tools" / "fake_gateway.py"
OURS = Path(sys.executable).parent / "openclaw-tools"
TOKEN = "tok123"
SERVER_ENV = {"OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:main", "OPENCLAW_TOOLS_MCP_TOOLS": "cron,openclaw"}
STATUS_ARGUMENTS: dict[str, Any] = {"action": "status"}
OPEN_AGENT_ARGUMENTS: dict[str, Any] = {"action": "open_agent"}
# fake_gateway.py's canned `cron.status` payload, as a JSON result (spec §5)
STATUS_TEXT = json.dumps(
    {"enabled": True, "triggersEnabled": True, "storage": "sqlite", "jobs": 0, "nextWakeAtMs": None}, indent=2
)
OPEN_AGENT_TEXT = "directive: the host now hands the user over to their normal agent. Say goodbye briefly."
GATEWAY_READY_TIMEOUT_S = 15.0
GATEWAY_STOP_TIMEOUT_S = 5.0
TARGET_CPU_S = 0.3


def servers() -> list[Server]:
    found = [Server("ours", [str(OURS)], None, {}, SERVER_ENV)]
    reference = reference_or_note()
    if reference is None:
        return found
    serve = reference.root / "node_modules" / "openclaw" / "dist" / "mcp" / "openclaw-tools-serve.js"
    found.append(Server("reference", [str(reference.node), str(serve)], reference.path_env, {}, SERVER_ENV))
    return found


@contextmanager
def fake_gateway(port: int, log: Path, stderr: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``fake_gateway.py`` on ``127.0.0.1:port`` until the block ends, then ``SIGTERM`` (``SIGKILL`` after
    5 s) to that one process, by its PID; its stderr (the readiness probe's aborted handshake) goes to a file."""
    command = [sys.executable, str(FAKE_GATEWAY), "--port", str(port), "--token", TOKEN, "--log", str(log)]
    with stderr.open("wb") as errors:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
    try:
        deadline = time.monotonic() + GATEWAY_READY_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"fake_gateway.py exited with {process.returncode} before listening")
            with suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"fake_gateway.py not listening on 127.0.0.1:{port} after {GATEWAY_READY_TIMEOUT_S} s"
                )
            time.sleep(0.02)
        yield process
    finally:
        if process.poll() is None:
            with suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(GATEWAY_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)
                process.wait()


def status_requests(log: Path) -> int:
    """How many ``cron.status`` requests the fake Gateway logged."""
    if not log.is_file():
        return 0
    frames = (json.loads(line)["frame"] for line in log.read_text(encoding="utf-8").splitlines() if line.strip())
    return sum(1 for frame in frames if frame.get("method") == "cron.status")


async def one_run(server: Server, base: Path, calls: int, figures: Figures) -> None:
    port = free_port()
    config = {"gateway": {"port": port, "auth": {"mode": "token", "token": TOKEN}}}
    state = new_state(base, server.name, config)
    log = state / "fake-gateway.jsonl"
    env = isolated_env(state, path=server.path, extra=server.env_extra)
    with fake_gateway(port, log, state / "fake-gateway.stderr"):
        async with initialized(server, state, env, figures) as session:
            client = session.client
            first = await client.call("automations", STATUS_ARGUMENTS)
            expected = {"content": [{"type": "text", "text": STATUS_TEXT}]}
            assert first == expected, (server.name, first, client.stderr_text)
            first = await client.call("openclaw", OPEN_AGENT_ARGUMENTS)
            assert first == {"content": [{"type": "text", "text": OPEN_AGENT_TEXT}]}, (server.name, first)
            await timed_calls(session, "automations status", "automations", STATUS_ARGUMENTS, calls, figures)
            await timed_calls(session, "openclaw open_agent", "openclaw", OPEN_AGENT_ARGUMENTS, calls, figures)
    sent = status_requests(log)
    assert sent == calls + 1, f"{server.name}: the fake Gateway saw {sent} cron.status requests, not {calls + 1}"


async def benchmark(runs: int, calls: int) -> None:
    results = await run_alternating(servers(), runs, calls, one_run, prefix="bench-openclaw-tools-")
    report(results)
    cpu = statistics.median(results["ours"].init_cpu)
    verdict = "met" if cpu < TARGET_CPU_S else "NOT met"
    print(f"\ntarget: ours under {TARGET_CPU_S} CPU-s from spawn to initialize: {verdict} ({cpu:.3f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="server processes per implementation (default 3)")
    parser.add_argument("--calls", type=int, default=100, help="calls per tool and run (default 100)")
    args = parser.parse_args()
    if not OURS.is_file():
        sys.exit(f"{OURS} is missing (bootstrap the venv)")
    if not FAKE_GATEWAY.is_file():
        sys.exit(f"{FAKE_GATEWAY} is missing (the shared spec checks)")
    anyio.run(benchmark, max(1, args.runs), max(1, args.calls))


if __name__ == "__main__":
    main()
