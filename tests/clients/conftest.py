"""The real agent CLIs (Codex, Claude Code, Gemini CLI) installed by scripts/install_agent_clients.sh.

* ``agent_clients`` (session): where the three CLIs are and a ``PATH`` with them and a Node.js first. Missing
  clients skip this tier locally and fail it under CI (``CI`` set), like the browser and Gateway tiers.
* ``http_mcp_server`` (function): a minimal streamable-HTTP MCP server on a free loopback port, in a thread of
  the test process, that answers only requests carrying its ``expected_headers`` (401 otherwise), so
  a client reporting it connected proves the client resolved our ``${VAR}`` header references.
* ``stdio_mcp_server`` (function): a minimal stdio MCP server script written to the test's temporary directory;
  started as ``python <script> NAME=<sha256>…`` it refuses to start unless each variable NAME of its
  environment hashes to the given digest, so a client reporting it connected proves the client passed our
  ``args`` and resolved our ``env`` references.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.docker.gateway_harness import find_reference, running_under_ci

INSTALL_HINT = "bash scripts/install_agent_clients.sh"
CLIENTS = ("codex", "claude", "gemini")


@dataclass(frozen=True, slots=True)
class AgentClients:
    bin_dir: Path
    path: str
    """``PATH`` with the clients and a Node.js ≥ 22 first."""

    def command(self, name: str) -> str:
        return str(self.bin_dir / name)


def clients_dir() -> Path:
    explicit = os.environ.get("OPENCLAW_AGENT_CLIENTS_DIR", "").strip()
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "openclaw-agent-clients"


@pytest.fixture(scope="session")
def agent_clients() -> AgentClients:
    bin_dir = clients_dir() / "node_modules" / ".bin"
    missing = [name for name in CLIENTS if not (bin_dir / name).exists()]
    reference = find_reference()
    node_dir = str(reference.node.parent) if reference is not None else None
    if node_dir is None and shutil.which("node") is not None:
        node_dir = str(Path(shutil.which("node") or "node").parent)
    if missing or node_dir is None:
        what = ", ".join(missing) if missing else "node"
        reason = f"agent clients not installed ({what}); install them with: {INSTALL_HINT}"
        if running_under_ci():
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    return AgentClients(bin_dir, os.pathsep.join([str(bin_dir), node_dir, "/usr/bin", "/bin"]))


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


@dataclass(slots=True)
class HttpMcpServer:
    url: str
    expected_headers: dict[str, str]
    seen: list[dict[str, str]] = field(default_factory=list)
    """Headers of every request that carried the expected ones."""
    rejected: int = 0


def _handler(server: HttpMcpServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes = b"") -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _authorized(self) -> bool:
            if all(self.headers.get(name) == value for name, value in server.expected_headers.items()):
                server.seen.append(dict(self.headers.items()))
                return True
            server.rejected += 1
            return False

        def do_GET(self) -> None:  # no server-to-client stream: the spec allows 405
            self._send(405)

        def do_DELETE(self) -> None:
            self._send(405)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not self._authorized():
                self._send(401, b'{"error":"unauthorized"}')
                return
            message = json.loads(body)
            if "id" not in message:  # a notification
                self._send(202)
                return
            method = message.get("method")
            result: dict[str, Any] = {}
            if method == "initialize":
                version = message.get("params", {}).get("protocolVersion", "2025-06-18")
                result = {"protocolVersion": version, "capabilities": {"tools": {}},
                          "serverInfo": {"name": "openclaw-client-probe", "version": "1"}}  # fmt: skip
            elif method == "tools/list":
                result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
            self._send(200, json.dumps(reply).encode())

    return Handler


@pytest.fixture
def http_mcp_server() -> Iterator[HttpMcpServer]:
    probe = HttpMcpServer("", {})  # the test sets expected_headers
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(probe))
    httpd.daemon_threads = True
    probe.url = f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
    thread = threading.Thread(target=httpd.serve_forever, name="http-mcp-probe", daemon=True)
    thread.start()
    try:
        yield probe
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


STDIO_SERVER = r'''"""A stdio MCP server: it checks each argv NAME=<sha256 hex> against its environment first."""
import hashlib, json, os, sys

for pair in sys.argv[1:]:
    name, _, want = pair.partition("=")
    if hashlib.sha256(os.environ.get(name, "").encode()).hexdigest() != want:
        sys.exit(f"{name} is not what was exported")
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    result = {}
    if method == "initialize":
        version = message.get("params", {}).get("protocolVersion", "2025-06-18")
        result = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "openclaw-client-probe", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
'''


@pytest.fixture
def stdio_mcp_server(tmp_path: Path) -> Path:
    script = tmp_path / "stdio_mcp_server.py"
    script.write_text(STDIO_SERVER, encoding="utf-8")
    return script
