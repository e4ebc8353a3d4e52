"""Cold start of the registry CLI on a 5-server config, ours against the reference OpenClaw 2026.9.6 (when
installed, see ``scripts/install_reference.sh``), in the same run:

    .venv/bin/python benchmarks/cli_startup.py [--runs 15] [--ref-runs 3] [--large-runs 7] [--large-ref-runs 1]

Commands: ``list --json``, ``status --json``, ``show s1`` and ``set s6 '{…}'``; then the root options
(``--profile work --no-color mcp list --json``), ``config get``, ``config validate`` and
``completion --shell bash``. The config is the one five ``openclaw mcp set sN '{"command":"node","args":["xN.js"]}'``
produce (written once by our CLI, then copied
into every run's fresh, isolated state dir: ``OPENCLAW_STATE_DIR``, ``OPENCLAW_CONFIG_PATH`` and ``HOME``
all point inside it). Per command and implementation it prints the median CPU time of the whole process
(user + sys, from ``wait4``), the median wall time and the median and maximum peak RSS, then the ratios
reference / ours. One warm-up run of each precedes the measured ones. Two baseline rows calibrate the
machine's load: the bare interpreter (``python -c pass``) and the import of ``domain.redaction`` alone with
its dependencies (its pattern tables are compiled at import; ``status`` loads it with ``domain.transport``,
``show`` and ``set`` with the console's line redaction; ``list --json`` does not load it).

Our target (the CLI start-up issue): median CPU ≤ 0.06 s and peak RSS ≤ 25 MiB for list, status and show.

Then the same measurement of ``list --json`` and ``status --json`` on a 1,000-server registry (issue 33), a
mix written directly as JSON (see :func:`large_config`): stdio servers with args and env (some with a
``cwd``, some with an env key the resolver blocks), streamable-http and sse servers with headers (some with
userinfo in the URL), operator and per-requester OAuth servers, disabled servers and servers whose
transport does not resolve (valid config, printed as invalid). The reference needs seconds per command
there, so it runs ``--large-ref-runs`` times (default 1, after one warm-up). Targets: median CPU ≤ 0.10 s
for ``list --json`` and ≤ 0.15 s for ``status --json``.
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
from dataclasses import dataclass
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
TIME = shutil.which("time", path="/usr/bin:/bin") or "/usr/bin/time"  # GNU time (apt: time)

SERVERS = 5
COMMANDS = [
    ["mcp", "list", "--json"],
    ["mcp", "status", "--json"],
    ["mcp", "show", "s1"],
    ["mcp", "set", "s6", '{"command":"node","args":["x6.js"]}'],
    # the root options and the non-mcp commands (the profile keeps the explicit OPENCLAW_STATE_DIR, as in 2026.9.6)
    ["--profile", "work", "--no-color", "mcp", "list", "--json"],
    ["config", "get", "mcp.servers.s1.command"],
    ["config", "validate"],
    ["completion", "--shell", "bash"],
]
BASELINES = [
    ("python -c pass", [sys.executable, "-c", "pass"]),
    (
        "python -c 'import openclaw_mcp.domain.redaction'",
        [sys.executable, "-c", "import openclaw_mcp.domain.redaction"],
    ),
]
TARGET_CPU_S = 0.06
TARGET_RSS_MIB = 25.0

LARGE_SERVERS = 1000
LARGE_COMMANDS = [(["mcp", "list", "--json"], 0.10), (["mcp", "status", "--json"], 0.15)]


@dataclass(frozen=True, slots=True)
class Sample:
    cpu: float
    wall: float
    rss_kib: int


@dataclass(frozen=True, slots=True)
class Summary:
    cpu: float
    wall: float
    rss_mib: float
    rss_max_mib: float


def _env(state: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "LANG": "C.UTF-8",
        "TZ": "UTC",
    }
    env["PYTHONPATH"] = str(ROOT)  # this tree, also from a worktree that shares another tree's .venv
    return env


def make_config() -> bytes:
    """The config file five ``set`` commands of our CLI write."""
    state = Path(tempfile.mkdtemp(prefix="oc-bench-config-"))
    try:
        (state / "home").mkdir()
        for n in range(1, SERVERS + 1):
            value = f'{{"command":"node","args":["x{n}.js"]}}'
            subprocess.run(
                [*OURS, "mcp", "set", f"s{n}", value], env=_env(state), cwd=state, check=True, capture_output=True
            )
        return (state / "openclaw.json").read_bytes()
    finally:
        shutil.rmtree(state, ignore_errors=True)


def large_config(servers: int = LARGE_SERVERS) -> bytes:
    """A ``servers``-server config; per hundred servers: 40 stdio (args with a secret flag, env; every third
    with a ``cwd``, every fiftieth with a blocked env key), 20 streamable-http and 15 sse with headers (every
    third sse URL with userinfo), 2 operator and 2 per-requester OAuth servers, 10 disabled stdio servers
    and 11 servers whose transport does not resolve (no command and no URL, or a blank command)."""
    entries: dict[str, dict[str, object]] = {}
    for i in range(servers):
        slot = i % 100
        name = f"srv-{i:04d}" if i % 3 else f"Server_{i}"
        server: dict[str, object]
        if slot < 40:
            server = {
                "command": "npx",
                "args": ["-y", f"@acme/mcp-{i}", "--token", f"sk-live-{i:08d}abcdef", "--port", str(3000 + i)],
                "env": {"API_KEY": f"key-{i}", "LOG_LEVEL": "debug"},
            }
            if slot % 3 == 0:
                server["cwd"] = f"/srv/mcp/{i}"
            if i % 50 == 1:
                server["env"] = {"API_KEY": f"key-{i}", "NODE_OPTIONS": "--require /tmp/x.js"}
        elif slot < 60:
            server = {
                "url": f"https://mcp{i}.example.com/v1/mcp?team={i}",
                "transport": "streamable-http",
                "headers": {"Authorization": f"Bearer tok{i}", "X-Team": str(i)},
            }
        elif slot < 75:
            userinfo = f"user:pw{i}@" if slot % 3 == 0 else ""
            server = {
                "url": f"http://{userinfo}10.0.{i % 256}.{i // 256}:8{i % 1000:03d}/sse",
                "transport": "sse",
                "headers": {"X-Api-Key": f"abc{i}"},
            }
        elif slot < 77:
            server = {"url": f"https://oauth{i}.example.org/mcp", "auth": "oauth", "oauth": {"scope": "read write"}}
        elif slot < 79:
            server = {
                "url": f"https://pr{i}.example.net/mcp",
                "auth": "oauth",
                "oauth": {"identity": "per-requester"},
                "toolFilter": {"include": ["search", "fetch"]},
            }
        elif slot < 89:
            server = {"command": "uvx", "args": [f"mcp-server-{i}"], "enabled": False}
        else:
            server = {"args": ["orphan.js"]} if slot % 2 else {"command": "  ", "env": {"A": "1"}}
        entries[name] = server
    return (json.dumps({"mcp": {"servers": entries}}, indent=2) + "\n").encode()


def run_once(prefix: list[str], argv: list[str], config: bytes) -> Sample:
    """One run in a fresh state dir. The command runs under GNU ``time``, whose ``%M`` is the peak RSS of the
    command alone: the ``wait4`` figure of a direct child would include this (larger) process's memory,
    inherited at the fork. CPU comes from ``wait4`` (``time`` and the command, at rusage precision)."""
    state = Path(tempfile.mkdtemp(prefix="oc-bench-"))
    try:
        (state / "home").mkdir()
        (state / "openclaw.json").write_bytes(config)
        rss_file = state / "rss"
        timed = [TIME, "-q", "-f", "%M", "-o", str(rss_file), *prefix, *argv]
        start = time.perf_counter()
        proc = subprocess.Popen(timed, env=_env(state), cwd=state, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(prefix + argv)} failed")
        return Sample(usage.ru_utime + usage.ru_stime, wall, int(rss_file.read_text().split()[-1]))
    finally:
        shutil.rmtree(state, ignore_errors=True)


def measure(prefix: list[str], argv: list[str], runs: int, config: bytes) -> Summary:
    run_once(prefix, argv, config)  # warm the page cache and bytecode caches
    samples = [run_once(prefix, argv, config) for _ in range(runs)]
    return Summary(
        cpu=statistics.median(s.cpu for s in samples),
        wall=statistics.median(s.wall for s in samples),
        rss_mib=statistics.median(s.rss_kib for s in samples) / 1024,
        rss_max_mib=max(s.rss_kib for s in samples) / 1024,
    )


def _row(label: str, who: str, s: Summary) -> str:
    return f"| {label} | {who} | {s.cpu:.3f} | {s.wall * 1000:.0f} | {s.rss_mib:.1f} | {s.rss_max_mib:.1f} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15, help="measured runs of ours per command")
    parser.add_argument("--ref-runs", type=int, default=3, help="measured runs of the reference (slow)")
    parser.add_argument("--large-runs", type=int, default=7, help="measured runs of ours, 1,000 servers")
    parser.add_argument("--large-ref-runs", type=int, default=1, help="measured runs of the reference, 1,000 servers")
    args = parser.parse_args()
    have_ref = REF_NODE is not None and REF_MJS.exists() and args.ref_runs > 0
    config = make_config()
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}; {SERVERS}-server config")
    print(f"runs: ours {args.runs}, reference {args.ref_runs if have_ref else 0} (medians; RSS also max)\n")
    print("| command | impl | CPU s (median) | wall ms (median) | peak RSS MiB (median) | peak RSS MiB (max) |")
    print("|---|---|---|---|---|---|")
    for label, command in BASELINES:
        print(_row(label, "baseline", measure(command, [], args.runs, config)))
    ratios: list[str] = []
    verdicts: list[str] = []
    for argv in COMMANDS:
        label = " ".join(argv[:3]) if argv[1] == "set" else " ".join(argv)
        ours = measure(OURS, argv, args.runs, config)
        print(_row(label, "ours", ours))
        if argv[1] != "set":
            ok = ours.cpu <= TARGET_CPU_S and ours.rss_mib <= TARGET_RSS_MIB
            verdicts.append(f"{label}: {'meets' if ok else 'misses'} the target")
        if have_ref:
            ref = measure([str(REF_NODE), str(REF_MJS)], argv, args.ref_runs, config)
            print(_row(label, "reference", ref))
            ratios.append(
                f"{label}: CPU {ref.cpu / ours.cpu:.1f}x less, wall {ref.wall / ours.wall:.1f}x faster, "
                f"RSS {ref.rss_mib / ours.rss_mib:.1f}x smaller"
            )
    large = large_config()
    large_verdicts: list[str] = []
    large_ref_runs = args.large_ref_runs if have_ref else 0
    size = f"{len(large) // 1024} KiB"
    print(f"\n{LARGE_SERVERS}-server config ({size}); runs: ours {args.large_runs}, reference {large_ref_runs}\n")
    print("| command | impl | CPU s (median) | wall ms (median) | peak RSS MiB (median) | peak RSS MiB (max) |")
    print("|---|---|---|---|---|---|")
    for argv, target in LARGE_COMMANDS:
        label = f"{' '.join(argv)} ({LARGE_SERVERS} servers)"
        ours = measure(OURS, argv, args.large_runs, large)
        print(_row(label, "ours", ours))
        verdict = "meets" if ours.cpu <= target else "misses"
        large_verdicts.append(f"{label}: CPU {ours.cpu:.3f} s, {verdict} the target (<= {target} s)")
        if large_ref_runs > 0:
            ref = measure([str(REF_NODE), str(REF_MJS)], argv, large_ref_runs, large)
            print(_row(label, "reference", ref))
            ratios.append(f"{label}: CPU {ref.cpu / ours.cpu:.1f}x less, wall {ref.wall / ours.wall:.1f}x faster")
    print()
    if have_ref:
        print("ours vs reference:")
        print("\n".join(f"  {line}" for line in ratios))
    else:
        print("reference not installed (scripts/install_reference.sh)")
    print(f"target (CPU <= {TARGET_CPU_S} s, RSS <= {TARGET_RSS_MIB:.0f} MiB):")
    print("\n".join(f"  {line}" for line in verdicts))
    print(f"target at {LARGE_SERVERS} servers (issue 33):")
    print("\n".join(f"  {line}" for line in large_verdicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
