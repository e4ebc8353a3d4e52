"""Cold start of the registry CLI: `openclaw mcp list --json` and `openclaw mcp status --verbose --json`
on a 5-server config, ours against the reference OpenClaw 2026.9.6 (when installed), in the same run.

    .venv/bin/python benchmarks/cli_startup.py [--runs 15] [--ref-runs 5]

Prints, per command and implementation, the median wall time and the peak RSS (max over runs) of the
whole process, then the ratios. Every run uses a fresh isolated state dir (no shared home).
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

CONFIG = {
    "mcp": {
        "servers": {
            "context7": {"command": "npx", "args": ["-y", "@upstash/context7-mcp"]},
            "docs": {"url": "https://mcp.example.com/mcp", "transport": "streamable-http"},
            "events": {"url": "https://sse.example.com/sse"},
            "local": {
                "command": "uvx",
                "args": ["mcp-server-git"],
                "cwd": "/srv",
                "toolFilter": {"include": ["git_*"]},
            },
            "off": {"command": "node", "enabled": False},
        }
    }
}
COMMANDS = [["mcp", "list", "--json"], ["mcp", "status", "--verbose", "--json"]]


def run_once(prefix: list[str], argv: list[str]) -> tuple[float, int]:
    state = tempfile.mkdtemp(prefix="oc-bench-")
    try:
        (Path(state) / "home").mkdir()
        (Path(state) / "openclaw.json").write_text(json.dumps(CONFIG, indent=2) + "\n")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(Path(state) / "home"),
            "OPENCLAW_STATE_DIR": state,
            "OPENCLAW_CONFIG_PATH": str(Path(state) / "openclaw.json"),
            "LANG": "C.UTF-8",
            "TZ": "UTC",
        }
        start = time.perf_counter()
        proc = subprocess.Popen(prefix + argv, env=env, cwd=state, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(prefix + argv)} failed")
        return elapsed, usage.ru_maxrss
    finally:
        shutil.rmtree(state, ignore_errors=True)


def measure(prefix: list[str], argv: list[str], runs: int) -> tuple[float, int]:
    run_once(prefix, argv)  # warm the page cache / compile caches
    samples = [run_once(prefix, argv) for _ in range(runs)]
    return statistics.median(s[0] for s in samples), max(s[1] for s in samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--ref-runs", type=int, default=5)
    args = parser.parse_args()
    have_ref = REF_NODE is not None and REF_MJS.exists()
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}; resource max RSS unit: KiB")
    for argv in COMMANDS:
        label = " ".join(argv)
        ours_t, ours_rss = measure(OURS, argv, args.runs)
        print(f"{label:38s} ours      median {ours_t * 1000:8.1f} ms  peak RSS {ours_rss / 1024:7.1f} MiB")
        if have_ref:
            ref_t, ref_rss = measure([str(REF_NODE), str(REF_MJS)], argv, args.ref_runs)
            print(f"{label:38s} reference median {ref_t * 1000:8.1f} ms  peak RSS {ref_rss / 1024:7.1f} MiB")
            print(f"{label:38s} speed-up {ref_t / ours_t:6.1f}x   memory ratio {ref_rss / ours_rss:5.1f}x")
        else:
            print(f"{label:38s} reference not installed (../shared/reference/install-openclaw.sh)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
