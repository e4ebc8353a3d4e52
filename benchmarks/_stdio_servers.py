"""Shared measuring logic of the stdio MCP server benchmarks (`plugin_tools.py`, `openclaw_tools.py`): ours
against the reference in the same run, runs alternating, one untimed warm-up process each, fresh isolated
state per process, and the report of medians and ratios reference / ours."""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.serve import ProcessTree, RssSampler, p95  # noqa: E402 - after the path setup
from tests.docker.gateway_harness import (  # noqa: E402
    INITIALIZE_PARAMS,
    McpClient,
    Reference,
    find_reference,
    open_mcp_client,
)

EXIT_TIMEOUT_S = 30
LABEL_WIDTH = 36


@dataclass(frozen=True, slots=True)
class Server:
    """How to start one implementation: its command, PATH and config."""

    name: str
    command: list[str]
    path: str | None
    config: dict[str, Any]
    env_extra: dict[str, str]


@dataclass
class Figures:
    """One implementation's measurements over all its runs; ``latency`` by tool-call label, in call order."""

    init_wall: list[float] = field(default_factory=list)
    init_cpu: list[float] = field(default_factory=list)
    peak_rss: list[int] = field(default_factory=list)
    latency: dict[str, list[float]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Session:
    """An initialized server: its client and the RSS sampler of its process tree."""

    client: McpClient
    sampler: RssSampler


OneRun = Callable[[Server, Path, int, Figures], Awaitable[None]]


def reference_or_note() -> Reference | None:
    """The installed reference, or ``None`` after saying that only ours is measured."""
    reference = find_reference()
    if reference is None:
        print("the reference OpenClaw 2026.9.6 is not installed (bash scripts/install_reference.sh):")
        print("measuring ours only", flush=True)
    return reference


def new_state(base: Path, name: str, config: dict[str, Any]) -> Path:
    """A fresh state dir under ``base`` holding ``openclaw.json`` = ``config``."""
    state = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=base))
    (state / "openclaw.json").write_text(json.dumps(config) + "\n", encoding="utf-8")
    return state


@asynccontextmanager
async def initialized(server: Server, state: Path, env: dict[str, str], figures: Figures) -> AsyncIterator[Session]:
    """Spawn ``server``, record wall time and CPU-seconds of its process tree from spawn to the ``initialize``
    result, yield the initialized session; then close stdin, await the exit and record the tree's peak RSS."""
    spawned = time.monotonic()
    async with open_mcp_client(server.command, env, cwd=state, name=server.name) as client:
        tree = ProcessTree(client.process.pid)
        with RssSampler(tree) as sampler:
            await client.request("initialize", INITIALIZE_PARAMS)
            figures.init_wall.append(time.monotonic() - spawned)
            figures.init_cpu.append(tree.cpu_seconds())
            await client.notify("notifications/initialized")
            yield Session(client, sampler)
            await client.close_stdin()
            with anyio.fail_after(EXIT_TIMEOUT_S):
                await client.wait_exit()
        figures.peak_rss.append(sampler.peak)


async def timed_calls(
    session: Session, label: str, tool: str, arguments: dict[str, Any], calls: int, figures: Figures
) -> None:
    """``calls`` sequential ``tools/call tool arguments`` round trips (RSS sampling paused), each without
    ``isError``; their latencies go to ``figures.latency[label]``."""
    samples = figures.latency.setdefault(label, [])
    with session.sampler.paused():
        for _ in range(calls):
            started = time.perf_counter()
            result = await session.client.call(tool, arguments)
            samples.append(time.perf_counter() - started)
            assert "isError" not in result, (session.client.name, tool, result)


async def run_alternating(
    chosen: Sequence[Server], runs: int, calls: int, one_run: OneRun, *, prefix: str
) -> dict[str, Figures]:
    """One untimed warm-up process each, then ``runs`` runs of each implementation, the order swapped every
    run; prints one line per process."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        base = Path(tmp)
        # One untimed process each first: cold disk caches would count against whichever runs first.
        for server in chosen:
            await one_run(server, base, 1, Figures())
        results = {server.name: Figures() for server in chosen}
        for run in range(runs):
            order = list(chosen) if run % 2 == 0 else list(reversed(chosen))
            for server in order:
                figures = results[server.name]
                await one_run(server, base, calls, figures)
                print(
                    f"run {run + 1}/{runs} {server.name:9}: initialize {figures.init_wall[-1]:.3f} s, "
                    f"CPU {figures.init_cpu[-1]:.2f} s, peak RSS {figures.peak_rss[-1] / 2**20:.1f} MiB",
                    flush=True,
                )
    return results


def _latency_ms(name: str, statistic: Callable[[list[float]], float]) -> Callable[[Figures], float]:
    return lambda figures: statistic(figures.latency[name]) * 1e3


def report(results: dict[str, Figures]) -> None:
    """Medians over the runs (peak RSS: the maximum; latencies: median and p95 over all calls of all runs),
    ours and, when measured, the reference with the ratio reference / ours."""
    ours, ref = results["ours"], results.get("reference")
    rows: list[tuple[str, list[float], str]] = []

    def row(label: str, unit: str, value: Callable[[Figures], float]) -> None:
        rows.append((label, [value(figures) for figures in (ours, ref) if figures is not None], unit))

    row("spawn → initialize result, wall", "s", lambda f: statistics.median(f.init_wall))
    row("spawn → initialize result, CPU", "s", lambda f: statistics.median(f.init_cpu))
    row("peak RSS of the process tree", "MiB", lambda f: max(f.peak_rss) / 2**20)
    for name in ours.latency:
        row(f"{name} round trip median", "ms", _latency_ms(name, statistics.median))
        row(f"{name} round trip p95", "ms", _latency_ms(name, p95))
    width = max(LABEL_WIDTH, *(len(label) for label, _, _ in rows))
    print()
    print(f"{'':{width}} {'ours':>14}" + (f" {'reference':>14} {'ref/ours':>9}" if ref is not None else ""))
    for label, values, unit in rows:
        line = f"{label:{width}} {values[0]:10.3f} {unit:<3}"
        if len(values) == 2:
            ratio = f"{values[1] / values[0]:8.1f}x" if values[0] > 0 else "      n/a"
            line += f" {values[1]:10.3f} {unit:<3} {ratio}"
        print(line)
