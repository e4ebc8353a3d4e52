"""Connect → first `tools/list` through the client runtime, for servers of each MCP protocol era (issue 34,
spec protocol-eras.md): the legacy handshake against a dual-era SDK server, and the 2026-07-28 fallback
(`initialize` refused → `server/discover` → enveloped `tools/list`) against 2026-only servers, on stdio and
streamable HTTP. Ours only: the reference OpenClaw 2026.9.6 (TS SDK 1.30) cannot talk to a 2026-only server.

    .venv/bin/python benchmarks/eras.py [--runs 15]

Each run opens a fresh `SessionMcpRuntime` with one server and awaits `tools()` (stdio: the spawn is included;
HTTP: the server process stays up, each run is a new connection). Prints medians and the ratio 2026 / legacy for
each transport; the legacy start-up figures of the CLI are `benchmarks/cli_startup.py` and `benchmarks/probe.py`.
For the 2026-only HTTP server it also prints the server's own answer time: the median of raw enveloped `tools/list`
POSTs on one kept-alive connection (no client runtime), so the share of the server in the ratio is visible.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from openclaw_mcp.entrypoints.runtime_api import SessionMcpRuntime  # noqa: E402 - after the path setup

SERVERS = ROOT / "tests" / "fixtures" / "mcp_servers"


@contextmanager
def http_server(mode: str) -> Iterator[str]:
    """An `era_servers.py` HTTP mode on a free loopback port; yields its endpoint."""
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / "era_servers.py"), mode, "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("PORT="):
            raise RuntimeError(f"{mode}: no port announced ({line!r})")
        yield f"http://127.0.0.1:{line.removeprefix('PORT=')}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def raw_post_ms(url: str, posts: int = 9) -> float:
    """Median time of an enveloped `tools/list` POST on one kept-alive connection, straight over httpx."""
    import httpx2

    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope}}
    times = []
    with httpx2.Client() as client:
        for _ in range(posts + 1):
            started = time.perf_counter()
            client.post(url, headers=headers, json=body).raise_for_status()
            times.append(time.perf_counter() - started)
    return statistics.median(times[1:]) * 1000


async def connect_and_list(name: str, definition: dict[str, Any]) -> float:
    started = time.perf_counter()
    with anyio.fail_after(60):
        async with SessionMcpRuntime({name: definition}) as runtime:
            tools = await runtime.tools()
    elapsed = time.perf_counter() - started
    if not any(tool.name.endswith("echo") for tool in tools):
        raise RuntimeError(f"{name}: echo not listed ({[tool.name for tool in tools]})")
    return elapsed


def median_ms(name: str, definition: dict[str, Any], runs: int) -> float:
    anyio.run(connect_and_list, name, definition)  # warm-up
    return statistics.median(anyio.run(connect_and_list, name, definition) for _ in range(runs)) * 1000


def stdio(script: str, *args: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVERS / script), *args]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    os.environ.setdefault("OPENCLAW_STATE_DIR", str(Path(os.environ.get("TMPDIR", "/tmp")) / "oc-eras-bench"))
    rows: list[tuple[str, float]] = []
    legacy_stdio = median_ms("stdio-dual", stdio("era_servers.py", "stdio-dual"), args.runs)
    rows.append(("stdio, SDK dual-era server (legacy handshake)", legacy_stdio))
    modern_stdio = median_ms("stdio-modern", stdio("era_servers.py", "stdio-modern"), args.runs)
    rows.append(("stdio, SDK 2026-only server (fallback)", modern_stdio))
    hand = median_ms("stdio-hand", stdio("era_hand.py"), args.runs)
    rows.append(("stdio, hand-written 2026-only server (fallback)", hand))
    with http_server("http-dual") as url:
        legacy_http = median_ms("http-dual", {"url": url, "transport": "streamable-http"}, args.runs)
    rows.append(("streamable HTTP, SDK dual-era server (legacy handshake)", legacy_http))
    with http_server("http-modern") as url:
        modern_http = median_ms("http-modern", {"url": url, "transport": "streamable-http"}, args.runs)
        server_post = raw_post_ms(url)
    rows.append(("streamable HTTP, SDK 2026-only server (fallback)", modern_http))
    rows.append(("  that server alone: one enveloped tools/list POST (raw)", server_post))
    print(f"connect → first tools/list, median of {args.runs} runs (python {sys.version.split()[0]})")
    print(f"{'':58}{'ms':>10}")
    for label, value in rows:
        print(f"{label:58}{value:10.1f}")
    print(f"stdio: 2026-only / legacy {modern_stdio / legacy_stdio:.2f}x")
    print(f"streamable HTTP: 2026-only / legacy {modern_http / legacy_http:.2f}x")


if __name__ == "__main__":
    main()
