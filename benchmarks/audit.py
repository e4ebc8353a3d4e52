"""The audit trail's cost per tool call (issue 35, docs/audit.md): one tool call through the client runtime with
the audit trail on (a record appended to the state database per call) against the same call with
``OPENCLAW_MCP_AUDIT=off``, in the same run. Ours only (the reference has no audit trail).

    .venv/bin/python benchmarks/audit.py [--calls 400] [--rounds 3]

Each side is one `SessionMcpRuntime` over one stdio server (`tests/fixtures/mcp_servers/recording_server.py`,
a stdlib server that answers at once) with its own fresh state directory; after a warm-up call, rounds alternate
off/on so drift hits both alike. Every call has small arguments ({"query": …, "apiKey": …}: the preview's
redaction runs). Prints the median and p95 latency of `tool.execute` for each side and the difference on − off.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from openclaw_mcp.entrypoints.runtime_api import RuntimeHost, SessionMcpRuntime  # noqa: E402 - after the path setup

SERVER = {
    "command": sys.executable,
    "args": [str(ROOT / "tests" / "fixtures" / "mcp_servers" / "recording_server.py"), "echo"],
}


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]


async def measure(calls: int, rounds: int) -> dict[str, list[float]]:
    latencies: dict[str, list[float]] = {"off": [], "on": []}
    with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp:
        tools: dict[str, Any] = {}
        async with (
            SessionMcpRuntime({"rec": SERVER}, host=RuntimeHost(environ=_env(Path(tmp) / "off", "off"))) as off,
            SessionMcpRuntime({"rec": SERVER}, host=RuntimeHost(environ=_env(Path(tmp) / "on", "on"))) as on,
        ):
            for label, runtime in (("off", off), ("on", on)):
                (tools[label],) = await runtime.tools()
                await tools[label].execute({"query": "warm-up"})
            for round_index in range(rounds):
                for label in ("off", "on"):
                    tool = tools[label]
                    for n in range(calls):
                        arguments = {"query": f"round {round_index} call {n}", "apiKey": "sk-0123456789abcdefghij"}
                        started = time.perf_counter()
                        await tool.execute(arguments)
                        latencies[label].append((time.perf_counter() - started) * 1000)
    return latencies


def _env(home: Path, audit: str) -> dict[str, str]:
    home.mkdir(parents=True)
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OPENCLAW_MCP_AUDIT": audit}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400, help="calls per side per round")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    latencies = anyio.run(measure, options.calls, options.rounds)
    print(f"tool call through the client runtime, {options.calls * options.rounds} calls per side (ms)")
    print(f"{'':<12}{'median':>10}{'p95':>10}")
    for label in ("off", "on"):
        values = latencies[label]
        print(f"{'audit ' + label:<12}{statistics.median(values):>10.3f}{p95(values):>10.3f}")
    on, off = latencies["on"], latencies["off"]
    print(f"{'on - off':<12}{statistics.median(on) - statistics.median(off):>10.3f}{p95(on) - p95(off):>10.3f}")


if __name__ == "__main__":
    main()
