"""`openclaw mcp ui` against the reference's Control UI MCP page (spec mcp-settings-page §11), in the same run.

    .venv/bin/python benchmarks/ui.py [--runs 10] [--requests 200] [--no-reference]

* start-up of `openclaw mcp ui --no-open --print-url`: wall time from spawn until `GET /settings/mcp` answers,
  CPU-seconds (utime + stime of the process) and peak RSS (VmHWM) once the first snapshot was served; the
  reference's equivalent is its Gateway (`openclaw gateway run`, seeded by tests/docker/gateway_harness), which
  is what serves its page;
* page load to rows rendered in Chromium (Debian's /usr/bin/chromium, a fresh browser context per run):
  navigate to the URL with the token fragment → all six `.mcp-server-row` of the §0.3 seed present;
* `GET /api/mcp` latency with 50 servers, over one keep-alive connection (ours only: the reference reads the
  config over its Gateway WebSocket, `config.get`, which the page's load time above already includes).

Only loopback addresses; every process is started here and stopped by its PID (the Gateway by its group).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
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

from tests.docker.gateway_harness import (  # noqa: E402 - after the path setup
    GatewayProcess,
    MockOpenAI,
    RealGateway,
    find_reference,
    free_port,
    process_tree,
    seed_state,
)

SEED = ROOT / "tests" / "reference_cases" / "fixtures" / "mcp-page-seed.json"
OPENCLAW = Path(sys.executable).parent / "openclaw"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
URL = re.compile(rb"http://127\.0\.0\.1:(\d+)/settings/mcp#token=(\S+)")
TICKS = os.sysconf("SC_CLK_TCK")


def _seed() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(SEED.read_text())
    return document


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _hwm_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Ours:
    """One `openclaw mcp ui` process over a temporary state dir."""

    def __init__(self, config: dict[str, Any], args: tuple[str, ...] = ()) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="bench-ui-"))
        (self.dir / "home").mkdir()
        (self.dir / "openclaw.json").write_text(json.dumps(config, indent=2) + "\n")
        env = {key: value for key, value in os.environ.items() if not key.startswith("OPENCLAW_")}
        env.update(
            OPENCLAW_STATE_DIR=str(self.dir),
            HOME=str(self.dir / "home"),
            OPENCLAW_CONFIG_PATH=str(self.dir / "openclaw.json"),
        )
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [str(OPENCLAW), "mcp", "ui", "--no-open", "--print-url", *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        assert self.process.stdout is not None
        match = URL.search(self.process.stdout.readline())
        if match is None:
            self.stop()
            raise SystemExit("openclaw mcp ui printed no URL")
        self.port, self.token = int(match.group(1)), match.group(2).decode()
        self.url = match.group(0).decode()
        self.request("GET", "/settings/mcp", bearer=False)
        self.ready_s = time.perf_counter() - started
        self.request("GET", "/api/mcp")

    def request(self, method: str, path: str, *, bearer: bool = True) -> bytes:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            headers = {"Authorization": f"Bearer {self.token}"} if bearer else {}
            connection.request(method, path, headers=headers)
            return connection.getresponse().read()
        finally:
            connection.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _page_loads(url: str, runs: int, rows: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    times: list[float] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        try:
            for _ in range(runs + 1):  # the first run warms the browser up and is not counted
                context = browser.new_context()
                page = context.new_page()
                started = time.perf_counter()
                page.goto(url)
                page.locator(".mcp-server-row").nth(rows - 1).wait_for(timeout=60_000)
                times.append(time.perf_counter() - started)
                context.close()
        finally:
            browser.close()
    return times[1:]


def _api_latency(ours: Ours, requests: int) -> list[float]:
    connection = http.client.HTTPConnection("127.0.0.1", ours.port, timeout=10)
    headers = {"Authorization": f"Bearer {ours.token}"}
    times: list[float] = []
    try:
        for _ in range(requests + 10):
            started = time.perf_counter()
            connection.request("GET", "/api/mcp", headers=headers)
            connection.getresponse().read()
            times.append(time.perf_counter() - started)
    finally:
        connection.close()
    return times[10:]


def _fifty() -> dict[str, Any]:
    servers: dict[str, Any] = {}
    for index in range(50):
        if index % 2:
            servers[f"http-{index:02d}"] = {
                "url": f"https://mcp{index}.example.com/mcp",
                "transport": "streamable-http",
            }
        else:
            servers[f"stdio-{index:02d}"] = {"command": "uvx", "args": [f"server-{index}"], "env": {"K": "v"}}
    return {"mcp": {"servers": servers}}


def _wait_serving(port: int, timeout_s: float = 180.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/settings/mcp")
            if connection.getresponse().status < 500:  # any answer: its HTTP server is up
                connection.close()
                return
            connection.close()
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the reference Gateway did not serve its page again on port {port}")


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


def _ms(value: float) -> str:
    return f"{value * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--no-reference", action="store_true")
    options = parser.parse_args()

    starts: list[tuple[float, float, float]] = []
    for _ in range(5):
        ours = Ours(_seed())
        try:
            starts.append((ours.ready_s, _cpu(ours.process.pid), _hwm_mib(ours.process.pid)))
        finally:
            ours.stop()
    ready = statistics.median(s[0] for s in starts)
    cpu = statistics.median(s[1] for s in starts)
    rss = statistics.median(s[2] for s in starts)
    print(f"ours  start-up (spawn → page served): {ready:.2f} s wall, {cpu:.2f} CPU-s, peak RSS {rss:.0f} MiB")

    ours = Ours(_seed())
    try:
        loads = _page_loads(ours.url, options.runs, 6)
    finally:
        ours.stop()
    print(f"ours  page load → 6 rows rendered: median {_ms(statistics.median(loads))}, p95 {_ms(_p95(loads))}")

    ours = Ours(_fifty())
    try:
        latency = _api_latency(ours, options.requests)
    finally:
        ours.stop()
    print(
        f"ours  GET /api/mcp, 50 servers: median {_ms(statistics.median(latency))}, p95 {_ms(_p95(latency))}"
        f" ({options.requests} requests, one connection)"
    )

    if options.no_reference:
        return
    reference = find_reference()
    if reference is None:
        print("reference: not installed (bash scripts/install_reference.sh); ours only")
        return
    gateway = RealGateway.prepare(reference)
    try:
        # the Gateway's own seeding (tests/docker/gateway_harness), then the page's seed in its mcp block
        gateway.state_dir.mkdir(parents=True, exist_ok=True)
        gateway.mock = MockOpenAI(gateway.state_dir / "mock-openai.jsonl").start()
        seed_state(reference, gateway.state_dir, gateway.mock.base_url)
        config_path = gateway.state_dir / "openclaw.json"
        document = json.loads(config_path.read_text())
        document["mcp"] = _seed()["mcp"]
        config_path.write_text(json.dumps(document, indent=2) + "\n")
        gateway.process = GatewayProcess(reference, gateway.state_dir, free_port(), gateway.token)
        spawned = time.perf_counter()
        gateway.process.start()
        gateway.process.wait_ready()
        _wait_serving(gateway.port)
        gateway_ready = time.perf_counter() - spawned
        pid = gateway.process.pid
        assert pid is not None
        tree = process_tree(pid)  # the reference re-executes itself as a child
        ref_cpu, ref_rss = sum(_cpu(p) for p in tree), sum(_hwm_mib(p) for p in tree)
        url = f"http://127.0.0.1:{gateway.port}/settings/mcp#token={gateway.token}"
        try:
            ref_loads: list[float] | None = _page_loads(url, options.runs, 6)
        except Exception as exc:  # the reference page is its own app: report, keep the other figures
            ref_loads = None
            reason = " ".join(str(exc).split())[:160]
    finally:
        gateway.stop()
    print(
        f"ref   start-up (gateway run → page served): {gateway_ready:.1f} s wall; gateway process tree "
        f"{ref_cpu:.1f} CPU-s, peak RSS {ref_rss:.0f} MiB"
    )
    ratios = f"start-up wall {gateway_ready / ready:.0f}×, CPU {ref_cpu / cpu:.0f}×, RSS {ref_rss / rss:.0f}×"
    if ref_loads is None:
        print(f"ref   page load → rows: not measured ({reason})")
        print(f"ratios reference/ours: {ratios}")
        return
    ref_median = statistics.median(ref_loads)
    print(f"ref   page load → 6 rows rendered: median {_ms(ref_median)}, p95 {_ms(_p95(ref_loads))}")
    print(f"ratios reference/ours: page load {ref_median / statistics.median(loads):.1f}×, {ratios}")


if __name__ == "__main__":
    main()
