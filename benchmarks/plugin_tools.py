"""`openclaw-plugin-tools`, ours against the reference's `dist/mcp/plugin-tools-serve.js` (OpenClaw 2026.9.6),
in the same run, both serving the test plugin `hookplug` (spec plugin-tools.md §12: the reference loads the
JavaScript twin `../shared/spec/check/hookplug`, ours the Python fixture plugin of `tests/fixtures/plugins`).

    .venv/bin/python benchmarks/plugin_tools.py [--runs 3] [--calls 200]

After one untimed warm-up process of each, per implementation and run (runs alternate between the two, the
order swapped every run; each process gets a fresh isolated HOME / state dir / config file):

* wall time and CPU-seconds of the server's process tree from spawn to the `initialize` result;
* peak RSS of the process tree (sum over its processes, sampled every 10 ms from spawn to exit, except while
  latencies are timed: then only before and after);
* latency of `--calls` sequential `tools/call echo_tool {"text": "hi"}` round trips.

Prints medians over the runs (latencies: median and p95 over all calls of all runs) and the ratios
reference / ours. Without the reference installed (`bash ../shared/reference/install-openclaw.sh`) only our
column is measured.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.serve import ProcessTree, RssSampler, p95  # noqa: E402 - after the path setup
from tests.docker.gateway_harness import INITIALIZE_PARAMS, find_reference, isolated_env, open_mcp_client  # noqa: E402
from tests.fixtures.plugins import SITE  # noqa: E402

HOOKPLUG_JS = ROOT.parent / "shared" / "spec" / "check" / "hookplug"
OURS = Path(sys.executable).parent / "openclaw-plugin-tools"
ECHO_ARGUMENTS: dict[str, Any] = {"text": "hi"}
ECHO_CONTENT = [{"type": "text", "text": 'echo:{"text":"hi"}'}]
EXIT_TIMEOUT_S = 30


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
    init_wall: list[float] = field(default_factory=list)
    init_cpu: list[float] = field(default_factory=list)
    peak_rss: list[int] = field(default_factory=list)
    latency: list[float] = field(default_factory=list)


def servers() -> list[Server]:
    entries = {"entries": {"hookplug": {"enabled": True}}}
    found = [Server("ours", [str(OURS)], None, {"plugins": entries}, {"PYTHONPATH": str(SITE)})]
    reference = find_reference()
    if reference is None:
        print("the reference OpenClaw 2026.9.6 is not installed (bash ../shared/reference/install-openclaw.sh):")
        print("measuring ours only", flush=True)
        return found
    serve = reference.root / "node_modules" / "openclaw" / "dist" / "mcp" / "plugin-tools-serve.js"
    config = {"plugins": {"load": {"paths": [str(HOOKPLUG_JS)]}, **entries}}
    found.append(Server("reference", [str(reference.node), str(serve)], reference.path_env, config, {}))
    return found


async def one_run(server: Server, base: Path, calls: int, figures: Figures) -> None:
    state = Path(tempfile.mkdtemp(prefix=f"{server.name}-", dir=base))
    (state / "openclaw.json").write_text(json.dumps(server.config) + "\n", encoding="utf-8")
    env = isolated_env(
        state, path=server.path, extra={"HOOKPLUG_LOG": str(state / "hookplug.jsonl"), **server.env_extra}
    )
    spawned = time.monotonic()
    async with open_mcp_client(server.command, env, cwd=state, name=server.name) as client:
        tree = ProcessTree(client.process.pid)
        with RssSampler(tree) as sampler:
            await client.request("initialize", INITIALIZE_PARAMS)
            figures.init_wall.append(time.monotonic() - spawned)
            figures.init_cpu.append(tree.cpu_seconds())
            await client.notify("notifications/initialized")
            first = await client.call("echo_tool", ECHO_ARGUMENTS)
            assert first == {"content": ECHO_CONTENT}, (server.name, first, client.stderr_text)
            with sampler.paused():
                for _ in range(calls):
                    started = time.perf_counter()
                    result = await client.call("echo_tool", ECHO_ARGUMENTS)
                    figures.latency.append(time.perf_counter() - started)
                    assert "isError" not in result, (server.name, result)
            await client.close_stdin()
            with anyio.fail_after(EXIT_TIMEOUT_S):
                await client.wait_exit()
        figures.peak_rss.append(sampler.peak)


def report(results: dict[str, Figures]) -> None:
    ours, ref = results["ours"], results.get("reference")
    rows: list[tuple[str, list[float], str]] = []

    def row(label: str, unit: str, value: Callable[[Figures], float]) -> None:
        rows.append((label, [value(figures) for figures in (ours, ref) if figures is not None], unit))

    row("spawn → initialize result, wall", "s", lambda f: statistics.median(f.init_wall))
    row("spawn → initialize result, CPU", "s", lambda f: statistics.median(f.init_cpu))
    row("peak RSS of the process tree", "MiB", lambda f: max(f.peak_rss) / 2**20)
    row("echo_tool round trip median", "ms", lambda f: statistics.median(f.latency) * 1e3)
    row("echo_tool round trip p95", "ms", lambda f: p95(f.latency) * 1e3)
    print()
    print(f"{'':36} {'ours':>14}" + (f" {'reference':>14} {'ref/ours':>9}" if ref is not None else ""))
    for label, values, unit in rows:
        line = f"{label:36} {values[0]:10.3f} {unit:<3}"
        if len(values) == 2:
            ratio = f"{values[1] / values[0]:8.1f}x" if values[0] > 0 else "      n/a"
            line += f" {values[1]:10.3f} {unit:<3} {ratio}"
        print(line)


async def benchmark(runs: int, calls: int) -> None:
    chosen = servers()
    with tempfile.TemporaryDirectory(prefix="bench-plugin-tools-") as tmp:
        base = Path(tmp)
        # One untimed process each first: cold disk caches would count against whichever runs first.
        for server in chosen:
            await one_run(server, base, 1, Figures())
        results = {server.name: Figures() for server in chosen}
        for run in range(runs):
            order = chosen if run % 2 == 0 else list(reversed(chosen))
            for server in order:
                figures = results[server.name]
                await one_run(server, base, calls, figures)
                print(
                    f"run {run + 1}/{runs} {server.name:9}: initialize {figures.init_wall[-1]:.3f} s, "
                    f"CPU {figures.init_cpu[-1]:.2f} s, peak RSS {figures.peak_rss[-1] / 2**20:.1f} MiB",
                    flush=True,
                )
        report(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="server processes per implementation (default 3)")
    parser.add_argument("--calls", type=int, default=200, help="echo_tool calls per run (default 200)")
    args = parser.parse_args()
    if not OURS.is_file():
        sys.exit(f"{OURS} is missing (bootstrap the venv)")
    anyio.run(benchmark, max(1, args.runs), max(1, args.calls))


if __name__ == "__main__":
    main()
