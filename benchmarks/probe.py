"""Wall time of `openclaw mcp probe --json` over 1, 4 and 8 stdio servers that each take ~1 s to answer
`initialize`, ours against the reference OpenClaw 2026.9.6 (when installed), in the same run.

    .venv/bin/python benchmarks/probe.py [--runs 3] [--delay 1.0]

The servers are this file itself run with `--serve`: a stdlib-only MCP stdio server that sleeps
`--delay` seconds before answering `initialize` and then lists two tools. Prints medians and the ratio
8 servers / 1 server (target ≤ 1.5 for ours: servers are connected concurrently).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OURS = [str(ROOT / ".venv" / "bin" / "openclaw")]
REF_DIR = Path(os.environ.get("OPENCLAW_REFERENCE_DIR") or Path.home() / ".cache" / "openclaw-reference")
REF_NODE = next(
    (
        p
        for p in (REF_DIR / "node_modules" / f"node-linux-{a}" / "bin" / "node" for a in ("x64", "arm64"))
        if p.exists()
    ),
    None,
)
REF_MJS = REF_DIR / "node_modules" / "openclaw" / "openclaw.mjs"


def serve(delay: float) -> None:
    """A minimal MCP stdio server (newline-delimited JSON-RPC)."""
    tools = [
        {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        {"name": "now", "inputSchema": {"type": "object"}},
    ]
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if ident is None:
            continue
        if method == "initialize":
            time.sleep(delay)
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "slow", "version": "1.0.0"},
            }
        elif method == "tools/list":
            result = {"tools": tools}
        else:
            result = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
        sys.stdout.flush()


def run_once(prefix: list[str], count: int, delay: float) -> float:
    state = tempfile.mkdtemp(prefix="oc-probe-bench-")
    try:
        (Path(state) / "home").mkdir()
        servers = {
            f"slow{i}": {
                "command": sys.executable,
                "args": [str(Path(__file__).resolve()), "--serve", "--delay", str(delay)],
            }
            for i in range(count)
        }
        (Path(state) / "openclaw.json").write_text(json.dumps({"mcp": {"servers": servers}}, indent=2) + "\n")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(Path(state) / "home"),
            "OPENCLAW_STATE_DIR": state,
            "OPENCLAW_CONFIG_PATH": str(Path(state) / "openclaw.json"),
            "LANG": "C.UTF-8",
            "TZ": "UTC",
        }
        start = time.perf_counter()
        proc = subprocess.run([*prefix, "mcp", "probe", "--json"], env=env, cwd=state, capture_output=True, check=False)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"probe failed ({count} servers): {proc.stderr.decode()[-400:]}")
        return elapsed
    finally:
        shutil.rmtree(state, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.delay)
        return 0
    impls = [("ours", OURS)]
    if REF_NODE is not None and REF_MJS.exists():
        impls.append(("reference", [str(REF_NODE), str(REF_MJS)]))
    else:
        print("reference not installed (scripts/install_reference.sh): ours only")
    print(f"machine: {os.cpu_count()} cores; each server answers initialize after {args.delay:g} s")
    for label, prefix in impls:
        medians = {}
        for count in (1, 4, 8):
            medians[count] = statistics.median(run_once(prefix, count, args.delay) for _ in range(args.runs))
            print(f"{label:9s} {count} server(s): median {medians[count]:6.2f} s")
        print(f"{label:9s} 8 servers / 1 server = {medians[8] / medians[1]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
