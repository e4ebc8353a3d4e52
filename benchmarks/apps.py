"""MCP Apps on `openclaw mcp ui`, and its sandbox proxy against the reference's (spec mcp-apps §13), in one run.

    .venv/bin/python benchmarks/apps.py [--runs 20] [--requests 200] [--no-reference]

End to end, ours (the reference renders views only inside an agent run's chat transcript, which needs a model
emitting tool calls — spec mcp-apps §0 — so there is no reference figure for these two):

* `Run` click → first app paint: a fresh browser context opens the page, opens the `clock` app server
  (tests/fixtures/app_server.py), clicks `Run` on `show-clock`; the clock starts before the click and stops
  when `time=12:00` is rendered inside the inner frame (tool call, resource read, view lease, proxy, app
  boot, `ui/initialize`, tool-result notification);
* an app's `tools/call` round trip through the bridge: inside the view, `clockApp.call("tick")` timed with
  `performance.now()` (app → proxy → host element → `POST /api/mcp/apps/tools/call` → the MCP server and back).

The proxy alone, ours against the reference (the same host page on a third origin, the same app HTML):

* proxy boot: iframe inserted → the app's `ui/initialize` reaches the host (proxy document fetched and run,
  `sandbox-proxy-ready`, the html handed over, the inner srcdoc frame booted);
* relay round trip: the app posts `tools/call`, the host answers at once (app → proxy → host → proxy → app);
* `GET /mcp-app-sandbox` latency over one keep-alive connection.

Medians of `--runs` (first run of each series is a warm-up, not counted). Only loopback addresses; every
process is started here and stopped by its PID (the Gateway by its group).
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ui import Ours  # noqa: E402 - after the path setup
from tests.docker.gateway_harness import (  # noqa: E402 - after the path setup
    GatewayProcess,
    MockOpenAI,
    RealGateway,
    find_reference,
    free_port,
    seed_state,
)

APP_SERVER = ROOT / "tests" / "fixtures" / "app_server.py"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]

# A host page on its own origin: embeds ?sandbox=<proxy URL>, hands it APP, answers ui/initialize and every
# tools/call at once; window.bench(url, calls) resolves to {boot, rtts} (milliseconds).
HOST = """<!doctype html><meta charset="utf-8"><title>bench host</title><body><div id="mount"></div><script>
const APP = `<!doctype html><body><div id="app">booting</div><script>
const out = (m) => window.parent.postMessage(m, "*");
const waiting = new Map(); let next = 10;
const call = () => new Promise((resolve) => { const id = next++; waiting.set(id, resolve);
  out({jsonrpc: "2.0", id, method: "tools/call", params: {name: "tick", arguments: {}}}); });
window.addEventListener("message", async (event) => {
  const data = event.data || {};
  if (waiting.has(data.id)) { waiting.get(data.id)(); waiting.delete(data.id); return; }
  if (data.id !== 1) return;
  document.getElementById("app").textContent = "ready";
  const rtts = [];
  for (let i = 0; i < CALLS; i++) { const t = performance.now(); await call(); rtts.push(performance.now() - t); }
  out({jsonrpc: "2.0", method: "bench/done", params: {rtts}});
});
out({jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {appInfo: {name: "bench", version: "1"},
  appCapabilities: {}, protocolVersion: "2026-01-26"}});
<\\/script></body>`;
window.bench = (url, calls) => new Promise((resolve) => {
  const origin = new URL(url).origin;
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  frame.referrerPolicy = "origin";
  let boot = null;
  const reply = (message) => frame.contentWindow.postMessage(message, origin);
  const listener = (event) => {
    if (event.source !== frame.contentWindow) return;
    const data = event.data || {};
    if (data.method === "ui/notifications/sandbox-proxy-ready") {
      reply({jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready",
        params: {html: APP.replace("CALLS", String(calls))}});
    } else if (data.method === "ui/initialize") {
      boot = performance.now() - started;
      reply({jsonrpc: "2.0", id: data.id, result: {protocolVersion: "2026-01-26",
        hostInfo: {name: "bench", version: "1"}, hostCapabilities: {serverTools: {}}, hostContext: {}}});
    } else if (data.method === "tools/call") {
      reply({jsonrpc: "2.0", id: data.id, result: {content: [], structuredContent: {ticks: 1}}});
    } else if (data.method === "bench/done") {
      window.removeEventListener("message", listener);
      frame.remove();
      resolve({boot, rtts: data.params.rtts});
    }
  };
  window.addEventListener("message", listener);
  const started = performance.now();
  frame.src = url;
  document.getElementById("mount").appendChild(frame);
});
</script></body>"""


def _ours() -> tuple[Ours, int]:
    """One `openclaw mcp ui` process with apps enabled and the clock app server configured."""
    apps_port = free_port()
    server = {"command": sys.executable, "args": [str(APP_SERVER)]}
    config = {"mcp": {"apps": {"enabled": True}, "servers": {"clock": server}}}
    return Ours(config, ("--apps-port", str(apps_port))), apps_port


class HostPage:
    """The benchmark's host page on `http://localhost:<port>/` (a thread, stopped by `close`)."""

    def __init__(self) -> None:
        body = HOST.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://localhost:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def _browser(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)


def _end_to_end(url: str, runs: int) -> tuple[list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    paints: list[float] = []
    rtts: list[float] = []
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            for index in range(runs + 1):
                context = browser.new_context()
                page = context.new_page()
                page.goto(url)
                page.locator('[data-mcp-app-server="clock"]').get_by_role("button", name="Open app").click()
                run = page.locator('[data-mcp-app-tool="show-clock"]').get_by_role("button", name="Run")
                run.wait_for(timeout=60_000)
                inner = page.frame_locator("iframe.mcp-app-frame").frame_locator("iframe")
                started = time.perf_counter()
                run.click()
                inner.locator("#time").filter(has_text="time=12:00").wait_for(timeout=30_000)
                paints.append(time.perf_counter() - started)
                if index == 0:  # one view, runs + 1 calls: inside the 30-calls-a-minute limit of a view
                    frame = next(f for f in page.frames if f.url in ("about:srcdoc", "about:blank") and f.parent_frame)
                    for _ in range(runs + 1):
                        rtts.append(
                            frame.evaluate(
                                "async () => { const t = performance.now(); await clockApp.call('tick', {});"
                                " return (performance.now() - t) / 1000; }"
                            )
                        )
                context.close()
        finally:
            browser.close()
    return paints[1:], rtts[1:]


def _proxy(sandbox_url: str, host: HostPage, runs: int) -> tuple[list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    boots: list[float] = []
    rtts: list[float] = []
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            page = browser.new_page()
            page.goto(host.url)
            for index in range(runs + 1):
                result = page.evaluate("([url, calls]) => window.bench(url, calls)", [sandbox_url, runs + 1])
                if index:
                    boots.append(result["boot"] / 1000)
                    rtts.extend(value / 1000 for value in result["rtts"][1:])
        finally:
            browser.close()
    return boots, rtts


def _get_latency(port: int, requests: int) -> list[float]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    times: list[float] = []
    try:
        for _ in range(requests + 10):
            started = time.perf_counter()
            connection.request("GET", "/mcp-app-sandbox")
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                raise SystemExit(f"GET /mcp-app-sandbox on port {port} answered {response.status}")
            times.append(time.perf_counter() - started)
    finally:
        connection.close()
    return times[10:]


def _ms(value: float) -> str:
    return f"{value * 1000:.2f} ms" if value < 0.01 else f"{value * 1000:.1f} ms"


def _proxy_figures(label: str, port: int, host: HostPage, options: argparse.Namespace) -> tuple[float, float, float]:
    boots, rtts = _proxy(f"http://localhost:{port}/mcp-app-sandbox", host, options.runs)
    latency = _get_latency(port, options.requests)
    figures = statistics.median(boots), statistics.median(rtts), statistics.median(latency)
    print(
        f"{label} proxy boot → ui/initialize: median {_ms(figures[0])}; relay round trip: median {_ms(figures[1])};"
        f" GET /mcp-app-sandbox: median {_ms(figures[2])} ({options.requests} requests, one connection)"
    )
    return figures


def _reference_gateway(reference: Any, sandbox_port: int) -> RealGateway:
    gateway = RealGateway.prepare(reference)
    gateway.state_dir.mkdir(parents=True, exist_ok=True)
    gateway.mock = MockOpenAI(gateway.state_dir / "mock-openai.jsonl").start()
    seed_state(reference, gateway.state_dir, gateway.mock.base_url)
    config_path = gateway.state_dir / "openclaw.json"
    document = json.loads(config_path.read_text())
    document.setdefault("mcp", {})["apps"] = {"enabled": True, "sandboxPort": sandbox_port}
    config_path.write_text(json.dumps(document, indent=2) + "\n")
    gateway.process = GatewayProcess(reference, gateway.state_dir, free_port(), gateway.token)
    gateway.process.start()
    gateway.process.wait_ready()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # the sandbox listener starts right after `[gateway] ready`
        try:
            _get_latency(sandbox_port, 0)
            return gateway
        except OSError:
            time.sleep(0.5)
    gateway.stop()
    raise SystemExit(f"the reference's sandbox listener did not answer on port {sandbox_port}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--no-reference", action="store_true")
    options = parser.parse_args()

    ours, apps_port = _ours()
    host = HostPage()
    try:
        paints, calls = _end_to_end(ours.url, options.runs)
        print(
            f"ours  Run click → first app paint: median {_ms(statistics.median(paints))}; app tools/call round trip"
            f" through the bridge: median {_ms(statistics.median(calls))} ({options.runs} runs)"
        )
        mine = _proxy_figures("ours ", apps_port, host, options)
    finally:
        ours.stop()
    try:
        if options.no_reference:
            return
        reference = find_reference()
        if reference is None:
            print("reference: not installed (bash scripts/install_reference.sh); ours only")
            return
        sandbox_port = free_port()
        gateway = _reference_gateway(reference, sandbox_port)
        try:
            theirs = _proxy_figures("ref  ", sandbox_port, host, options)
        finally:
            gateway.stop()
    finally:
        host.close()
    names = ("proxy boot", "relay round trip", "GET /mcp-app-sandbox")
    print(
        "ratios reference/ours: " + ", ".join(f"{n} {t / m:.1f}×" for n, t, m in zip(names, theirs, mine, strict=True))
    )


if __name__ == "__main__":
    main()
