"""`openclaw-plugin-tools`, ours against the reference's `dist/mcp/plugin-tools-serve.js` (OpenClaw 2026.9.6),
in the same run, both serving the test plugin `hookplug` (spec plugin-tools.md §12: the reference loads the
JavaScript twin `tests/reference_cases/check/hookplug`, ours the Python fixture plugin of `tests/fixtures/plugins`).

    .venv/bin/python benchmarks/plugin_tools.py [--runs 3] [--calls 200]

After one untimed warm-up process of each, per implementation and run (runs alternate between the two, the
order swapped every run; each process gets a fresh isolated HOME / state dir / config file):

* wall time and CPU-seconds of the server's process tree from spawn to the `initialize` result;
* peak RSS of the process tree (sum over its processes, sampled every 10 ms from spawn to exit, except while
  latencies are timed: then only before and after);
* latency of `--calls` sequential `tools/call echo_tool {"text": "hi"}` round trips.

Prints medians over the runs (latencies: median and p95 over all calls of all runs) and the ratios
reference / ours. Without the reference installed (`bash scripts/install_reference.sh`) only our
column is measured.
"""

from __future__ import annotations

import argparse
import sys
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
from tests.fixtures.plugins import SITE  # noqa: E402

HOOKPLUG_JS = ROOT / "tests" / "reference_cases" / "check" / "hookplug"
OURS = Path(sys.executable).parent / "openclaw-plugin-tools"
ECHO_ARGUMENTS: dict[str, Any] = {"text": "hi"}
ECHO_CONTENT = [{"type": "text", "text": 'echo:{"text":"hi"}'}]


def servers() -> list[Server]:
    entries = {"entries": {"hookplug": {"enabled": True}}}
    found = [Server("ours", [str(OURS)], None, {"plugins": entries}, {"PYTHONPATH": str(SITE)})]
    reference = reference_or_note()
    if reference is None:
        return found
    serve = reference.root / "node_modules" / "openclaw" / "dist" / "mcp" / "plugin-tools-serve.js"
    config = {"plugins": {"load": {"paths": [str(HOOKPLUG_JS)]}, **entries}}
    found.append(Server("reference", [str(reference.node), str(serve)], reference.path_env, config, {}))
    return found


async def one_run(server: Server, base: Path, calls: int, figures: Figures) -> None:
    state = new_state(base, server.name, server.config)
    env = isolated_env(
        state, path=server.path, extra={"HOOKPLUG_LOG": str(state / "hookplug.jsonl"), **server.env_extra}
    )
    async with initialized(server, state, env, figures) as session:
        first = await session.client.call("echo_tool", ECHO_ARGUMENTS)
        assert first == {"content": ECHO_CONTENT}, (server.name, first, session.client.stderr_text)
        await timed_calls(session, "echo_tool", "echo_tool", ECHO_ARGUMENTS, calls, figures)


async def benchmark(runs: int, calls: int) -> None:
    report(await run_alternating(servers(), runs, calls, one_run, prefix="bench-plugin-tools-"))


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
