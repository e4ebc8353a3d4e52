"""Runtime projections of `mcp.servers` (spec runtime-projection §3–§6), ours against the reference's own
functions, in one run.

    .venv/bin/python benchmarks/projection.py [--servers 50] [--runs 200] [--rounds 5] [--no-reference]

For a config of `--servers` servers (stdio with env and tool filters, streamable HTTP with `${VAR}` headers,
SSE, a `codex` block on every third), the time of one projection as a CLI backend run would do it — the
Claude Code config file (written and removed), the Gemini system settings file (written and removed), the
Codex CLI `-c mcp_servers=…` argv — and of one Codex app-server thread patch. The reference runs the same
config through its bundled functions (`prompt-context`, `bundle-mcp-codex`) in a Node process; ours calls
`application.projection` in this process. Each round takes the median of `--runs` after a warm-up of 20; the
two sides alternate for `--rounds` rounds and the best round of each is reported (the machine is a VM whose
speed drifts by up to 2× between seconds). Both sides write to the system temporary directory. Prints one table
with the ratio reference / ours.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402 - after the path setup

from openclaw_mcp.adapters.collation import UcaCollator  # noqa: E402
from openclaw_mcp.adapters.filesystem.projection_files import FilesystemProjectionFiles  # noqa: E402
from openclaw_mcp.adapters.memory.projection_files import InMemoryBearerTokens  # noqa: E402
from openclaw_mcp.application.projection import (  # noqa: E402
    CLAUDE_MODE,
    CODEX_MODE,
    GEMINI_MODE,
    CliProjectionRequest,
    build_codex_thread_patch,
    prepare_cli_projection,
)
from tests.docker.gateway_harness import find_reference, isolated_env  # noqa: E402

WARMUP = 20
MODES = (CLAUDE_MODE, GEMINI_MODE, CODEX_MODE)

NODE = """
const d = process.env.OPENCLAW_REFERENCE_DIR + "/node_modules/openclaw/dist/";
const pc = await import(d + "prompt-context-Dr0rMmnz.mjs");
const bmc = await import(d + "bundle-mcp-codex-D4gLcGAe.mjs");
const config = JSON.parse(process.env.BENCH_CONFIG);
const runs = Number(process.env.BENCH_RUNS), warmup = Number(process.env.BENCH_WARMUP);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const out = {};
for (const mode of ["claude-config-file", "gemini-system-settings", "codex-config-overrides"]) {
  const times = [];
  for (let i = 0; i < warmup + runs; i++) {
    const t = process.hrtime.bigint();
    const r = await pc.a({ enabled: true, mode, backend: { command: "x", args: ["-p"] },
      workspaceDir: process.env.BENCH_WS, config, env: {}, toolOverrides: {}, warn: () => {} });
    await r.cleanup?.();
    if (i >= warmup) times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  out[mode] = median(times);
}
const times = [];
for (let i = 0; i < warmup + runs; i++) {
  const t = process.hrtime.bigint();
  await bmc.n(config, { agentId: "main" });
  if (i >= warmup) times.push(Number(process.hrtime.bigint() - t) / 1e6);
}
out["codex-thread"] = median(times);
console.log(JSON.stringify(out));
process.exit(0);
"""


def bench_config(count: int) -> dict[str, Any]:
    servers: dict[str, Any] = {}
    for index in range(count):
        kind = index % 3
        name = f"server-{index:03d}"
        if kind == 0:
            server: dict[str, Any] = {
                "command": "node",
                "args": ["server.js", f"--port={index}"],
                "env": {"API_KEY": "${API_KEY}", "LEVEL": "debug"},
                "toolFilter": {"include": ["read", "list"], "exclude": ["delete"]},
                "connectionTimeoutMs": 15000,
                "transport": "stdio",
            }
        elif kind == 1:
            server = {
                "url": f"https://mcp{index}.example.com/mcp",
                "transport": "streamable-http",
                "headers": {"Authorization": "Bearer ${TOKEN}", "X-Team": "core"},
                "requestTimeoutMs": 30000,
            }
        else:
            server = {"url": f"https://sse{index}.example.com/sse", "transport": "sse"}
        if index % 3 == 2:
            server["codex"] = {"agents": ["main", "ops"], "defaultToolsApprovalMode": "prompt"}
        servers[name] = server
    return {"plugins": {"enabled": False}, "mcp": {"servers": servers}}


async def ours(config: dict[str, Any], runs: int, workspace: str) -> dict[str, float]:
    files = FilesystemProjectionFiles()
    collator = UcaCollator()
    tokens = InMemoryBearerTokens()
    figures: dict[str, float] = {}
    for mode in MODES:
        times: list[float] = []
        for index in range(WARMUP + runs):
            started = time.perf_counter()
            request = CliProjectionRequest(mode=mode, args=["-p"], workspace_dir=workspace, config=config)
            projection = await prepare_cli_projection(request, files=files, collator=collator, tokens=tokens)
            await projection.cleanup()
            if index >= WARMUP:
                times.append((time.perf_counter() - started) * 1000)
        figures[mode] = statistics.median(times)
    times = []
    for index in range(WARMUP + runs):
        started = time.perf_counter()
        await build_codex_thread_patch(config, collator=collator, agent_id="main", tokens=tokens)
        if index >= WARMUP:
            times.append((time.perf_counter() - started) * 1000)
    figures["codex-thread"] = statistics.median(times)
    return figures


def reference_figures(config: dict[str, Any], runs: int, workspace: str) -> dict[str, float] | None:
    reference = find_reference()
    if reference is None:
        print("reference not installed: ours only (install with scripts/install_reference.sh)")
        return None
    with tempfile.TemporaryDirectory(prefix="openclaw-bench-projection-") as tmp:
        script = Path(tmp) / "bench.mjs"
        script.write_text(NODE, encoding="utf-8")
        env = isolated_env(
            Path(tmp) / "state",
            path=reference.path_env,
            extra={
                "OPENCLAW_REFERENCE_DIR": str(reference.root),
                "BENCH_CONFIG": json.dumps(config),
                "BENCH_RUNS": str(runs),
                "BENCH_WARMUP": str(WARMUP),
                "BENCH_WS": workspace,
            },
        )
        done = subprocess.run(
            [str(reference.node), str(script)], env=env, capture_output=True, text=True, timeout=600, check=False
        )
    if done.returncode != 0:
        print(f"reference run failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def export_import_figures(config: dict[str, Any], runs: int) -> list[tuple[str, float]]:
    """Wall time of our CLI: `export --format X --output <file>` per format, then `import --from codex`."""
    cli = str(ROOT / ".venv" / "bin" / "openclaw")
    figures: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="openclaw-bench-export-") as tmp:
        state = Path(tmp)
        (state / "home").mkdir()
        (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(state / "home"),
            "OPENCLAW_STATE_DIR": str(state),
            "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        }

        def timed(*argv: str) -> float:
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                subprocess.run([cli, "mcp", *argv], env=env, cwd=tmp, capture_output=True, check=True, timeout=60)
                times.append(time.perf_counter() - started)
            return statistics.median(times)

        for fmt in ("claude", "codex", "gemini", "cursor", "vscode"):
            figures.append((f"export --format {fmt}", timed("export", "--format", fmt, "--output", f"{tmp}/{fmt}")))
        empty = {"PATH": env["PATH"], "HOME": env["HOME"]}
        target = state / "empty"
        target.mkdir()
        env.update({**empty, "OPENCLAW_STATE_DIR": str(target), "OPENCLAW_CONFIG_PATH": str(target / "openclaw.json")})
        figures.append(
            ("import --from codex --dry-run", timed("import", "--from", "codex", f"{tmp}/codex", "--dry-run"))
        )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=50)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-reference", action="store_true")
    options = parser.parse_args()
    config = bench_config(options.servers)
    mine: dict[str, float] = {}
    theirs: dict[str, float] | None = None if options.no_reference else {}
    with tempfile.TemporaryDirectory(prefix="openclaw-bench-ws-") as workspace:
        for _ in range(options.rounds):
            for key, value in anyio.run(ours, config, options.runs, workspace).items():
                mine[key] = min(value, mine.get(key, value))
            if theirs is not None:
                figures = reference_figures(config, options.runs, workspace)
                if figures is None:
                    theirs = None
                    continue
                for key, value in figures.items():
                    theirs[key] = min(value, theirs.get(key, value))
    print(
        f"projection of {options.servers} servers: best of {options.rounds} rounds, each the median of "
        f"{options.runs} (ms per projection)"
    )
    print(f"{'projection':<26}{'ours':>10}{'reference':>12}{'ratio':>8}")
    for key, label in (
        (CLAUDE_MODE, "Claude config file"),
        (GEMINI_MODE, "Gemini settings file"),
        (CODEX_MODE, "Codex CLI -c argv"),
        ("codex-thread", "Codex thread patch"),
    ):
        ref = theirs.get(key) if theirs else None
        ratio = f"{ref / mine[key]:.1f}×" if ref else "—"
        ref_text = f"{ref:.3f}" if ref else "—"
        print(f"{label:<26}{mine[key]:>10.3f}{ref_text:>12}{ratio:>8}")
    print()
    print(f"openclaw mcp export / import of {options.servers} servers, ours only (2026.9.6 has no such commands)")
    for label, seconds in export_import_figures(config, 10):
        print(f"{label:<40}{seconds * 1000:>10.1f} ms wall (median of 10)")
    print(f"python {sys.version.split()[0]}, pid {os.getpid()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
