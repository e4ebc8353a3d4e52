"""`openclaw mcp serve`, ours against the reference OpenClaw 2026.9.6, in the same run against one seeded real
Gateway (spec gateway-protocol.md §9: mock OpenAI server, seed, `gateway run` on a loopback port).

    .venv/bin/python benchmarks/serve.py [--runs 3] [--calls 100]

After one untimed warm-up session of each, per implementation and run (runs alternate between the two, the
order swapped every run; each bridge gets a fresh state dir):

* wall time and CPU-seconds of the bridge's process tree from spawn to the `initialize` result (the tree is
  followed by parentage: the reference re-executes itself as a detached child);
* peak RSS of the process tree (sum over its processes, sampled every 10 ms from spawn to exit, except while
  latencies are timed: the sampler scans /proc in this process, so it then samples only before and after);
* latency of `--calls` sequential `conversations_list` and `events_poll` calls once the bridge is ready.

Prints medians over the runs (latencies: median and p95 over all calls of all runs) and the ratios
reference / ours. Needs the reference installed (`bash scripts/install_reference.sh`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.docker.gateway_harness import (  # noqa: E402 - after the path setup
    INITIALIZE_PARAMS,
    RealGateway,
    Reference,
    find_reference,
    open_mcp_client,
    ours_serve_command,
    process_tree,
    reference_serve_command,
    running_gateway,
)

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


# --- the process tree (Linux /proc) --------------------------------------------------------------------


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may contain spaces: split after the last ')'.
    return text[text.rindex(")") + 2 :].split()


class ProcessTree:
    """The bridge and its descendants, remembered once seen: the reference's ``openclaw`` re-executes itself
    as a detached child (own session), so the tree is followed by parentage, not by process group."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: set[int] = {root}
        self.cpu: dict[int, float] = {}

    def refresh(self) -> list[int]:
        self.seen.update(process_tree(self.root))
        return sorted(self.seen)

    def cpu_seconds(self) -> float:
        """utime + stime (+ reaped children's) of every process of the tree, the last value seen for gone ones."""
        for pid in self.refresh():
            fields = _stat_fields(pid)
            if fields is not None:
                self.cpu[pid] = sum(int(value) for value in fields[11:15]) / CLOCK_TICKS
        return sum(self.cpu.values())

    def rss_bytes(self) -> int:
        total = 0
        for pid in self.refresh():
            try:
                resident = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
            except (OSError, IndexError, ValueError):
                continue
            total += resident * PAGE_SIZE
        return total


class RssSampler:
    """Samples the tree's summed RSS (and its CPU time) every 10 ms in a thread; ``peak`` is the maximum.

    Each sample scans ``/proc`` while holding the GIL of this (the client's) process, so sampling pauses
    while latencies are timed (:meth:`paused`: one sample just before and one just after)."""

    def __init__(self, tree: ProcessTree) -> None:
        self.tree = tree
        self.peak = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._paused = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        with self._lock:
            self.peak = max(self.peak, self.tree.rss_bytes())
            self.tree.cpu_seconds()

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self._paused:
                self.sample()
            self._stop.wait(0.01)

    @contextmanager
    def paused(self) -> Iterator[None]:
        self.sample()
        with self._lock:
            self._paused = True
        try:
            yield
        finally:
            self._paused = False
            self.sample()

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


# --- one run -------------------------------------------------------------------------------------------


@dataclass
class Figures:
    init_wall: list[float] = field(default_factory=list)
    init_cpu: list[float] = field(default_factory=list)
    ready_wall: list[float] = field(default_factory=list)
    peak_rss: list[int] = field(default_factory=list)
    latency: dict[str, list[float]] = field(default_factory=lambda: {"conversations_list": [], "events_poll": []})


async def one_run(command: list[str], gateway: RealGateway, name: str, calls: int, figures: Figures) -> None:
    env = gateway.bridge_env(gateway.new_bridge_state(name))
    spawned = time.monotonic()
    async with open_mcp_client(command, env, name=name) as client:
        tree = ProcessTree(client.process.pid)
        with RssSampler(tree) as sampler:
            await client.request("initialize", INITIALIZE_PARAMS)
            figures.init_wall.append(time.monotonic() - spawned)
            figures.init_cpu.append(tree.cpu_seconds())
            await client.notify("notifications/initialized")
            first = await client.call("conversations_list", {})
            assert "isError" not in first, (name, first, client.stderr_text)
            figures.ready_wall.append(time.monotonic() - spawned)
            with sampler.paused():
                for tool, arguments in (("conversations_list", {}), ("events_poll", {"limit": 200})):
                    for _ in range(calls):
                        started = time.perf_counter()
                        result = await client.call(tool, arguments)
                        figures.latency[tool].append(time.perf_counter() - started)
                        assert "isError" not in result, (name, tool, result)
            await client.close_stdin()
            with anyio.fail_after(30):
                await client.wait_exit()
        figures.peak_rss.append(sampler.peak)


# --- report --------------------------------------------------------------------------------------------


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]


def report(results: dict[str, Figures], gateway_ready_s: float | None) -> None:
    ours, ref = results["ours"], results["reference"]
    rows: list[tuple[str, float, float, str]] = [
        ("spawn → initialize result, wall", statistics.median(ours.init_wall), statistics.median(ref.init_wall), "s"),
        ("spawn → initialize result, CPU", statistics.median(ours.init_cpu), statistics.median(ref.init_cpu), "s"),
        (
            "spawn → first conversations_list",
            statistics.median(ours.ready_wall),
            statistics.median(ref.ready_wall),
            "s",
        ),
        ("peak RSS of the process tree", max(ours.peak_rss) / 2**20, max(ref.peak_rss) / 2**20, "MiB"),
    ]
    for tool in ("conversations_list", "events_poll"):
        mine, theirs = ours.latency[tool], ref.latency[tool]
        rows.append((f"{tool} latency median", statistics.median(mine) * 1e3, statistics.median(theirs) * 1e3, "ms"))
        rows.append((f"{tool} latency p95", p95(mine) * 1e3, p95(theirs) * 1e3, "ms"))
    print()
    if gateway_ready_s is not None:
        print(f"Gateway: ready {gateway_ready_s:.1f} s after spawn")
    print(f"{'':36} {'ours':>14} {'reference':>14} {'ref/ours':>9}")
    for label, mine_value, their_value, unit in rows:
        ratio = f"{their_value / mine_value:8.1f}x" if mine_value > 0 else "      n/a"
        print(f"{label:36} {mine_value:10.3f} {unit:<3} {their_value:10.3f} {unit:<3} {ratio}")


async def benchmark(reference: Reference, runs: int, calls: int) -> None:
    with running_gateway(reference) as gateway:
        commands = {
            "ours": ours_serve_command(gateway.url, gateway.token_file),
            "reference": reference_serve_command(reference, gateway.url, gateway.token_file),
        }
        # One untimed session each first: the Gateway (Node) warms up on its first requests, which would
        # otherwise count against whichever bridge runs first.
        for name, command in commands.items():
            await one_run(command, gateway, name, calls, Figures())
        results = {name: Figures() for name in commands}
        for run in range(runs):
            order = list(commands.items()) if run % 2 == 0 else list(reversed(commands.items()))
            for name, command in order:
                await one_run(command, gateway, name, calls, results[name])
                print(
                    f"run {run + 1}/{runs} {name:9}: initialize {results[name].init_wall[-1]:.3f} s, "
                    f"CPU {results[name].init_cpu[-1]:.2f} s, peak RSS {results[name].peak_rss[-1] / 2**20:.1f} MiB",
                    flush=True,
                )
        report(results, gateway.ready_after_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="bridge processes per implementation (default 3)")
    parser.add_argument("--calls", type=int, default=100, help="calls per tool and run (default 100)")
    args = parser.parse_args()
    reference = find_reference()
    if reference is None:
        sys.exit("the reference OpenClaw 2026.9.6 is not installed: bash scripts/install_reference.sh")
    anyio.run(benchmark, reference, max(1, args.runs), max(1, args.calls))


if __name__ == "__main__":
    main()
