"""The real OpenClaw 2026.9.6 Gateway for tests, benchmarks and the demo (spec gateway-protocol.md §9).

* :func:`find_reference` — the installed reference (``scripts/install_reference.sh``): node 24 and
  ``openclaw.mjs`` under ``$OPENCLAW_REFERENCE_DIR`` (default ``${XDG_CACHE_HOME:-~/.cache}/openclaw-reference``).
* :class:`MockOpenAI` — the loopback OpenAI Responses server every agent run talks to (§9.4), in a thread.
* :func:`seed_state` — runs ``seed_gateway.mjs`` (node 24, cwd = the reference dir) on a fresh state dir (§9.3).
* :class:`GatewayProcess` — ``openclaw gateway run`` in its own process group, readiness from its log, stop by
  group id (§9.5); kill and restart for outage tests.
* :class:`RealGateway` — all of the above in one isolated temporary directory (§9.2): ``RealGateway.start()``.
* :func:`open_operator` / :meth:`RealGateway.operator` — extra Gateway connections over our own
  ``WebsocketsGateway`` adapter: the owner (``openclaw-tui``/``ui`` with ``operator.admin``), a non-owner
  (``test``/``test``) and the approval requester that borrows a bridge's device identity (§9.6).
* :class:`McpClient` / :func:`open_mcp_client` — a small newline-delimited JSON-RPC client driving an
  ``openclaw mcp serve`` process (ours or the reference's) over stdio, recording notifications and stderr.

Only loopback addresses are used. Every process started here runs in a new session and is stopped by its
process group id, plus — by pid and start time — any descendant that left the group; nothing else is ever
signalled.

As a command (for running other suites against a real Gateway by hand)::

    .venv/bin/python -m tests.docker.gateway_harness run -- .venv/bin/python -m pytest tests/contract -k reference
    .venv/bin/python -m tests.docker.gateway_harness up      # prints the variables, stops on Ctrl-C

``run`` exports ``OPENCLAW_TEST_GATEWAY_URL``, ``OPENCLAW_TEST_GATEWAY_TOKEN`` (what
tests/contract/test_gateway_contract.py reads) and ``OPENCLAW_TEST_GATEWAY_STATE_DIR`` to the command.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from openclaw_mcp.adapters.memory.device_identity import InMemoryDeviceIdentityStore
from openclaw_mcp.adapters.ws import WebsocketsGateway
from openclaw_mcp.application.ports.gateway import DeviceIdentity, GatewayConnection, GatewayEvent, GatewaySettings
from tests.fixtures.ports import free_port

__all__ = [
    "EXEC_APPROVAL_REQUEST",
    "INITIALIZE_PARAMS",
    "REFERENCE_VERSION",
    "SEEDED_MEDIA",
    "SESSION_KEY",
    "GatewayProcess",
    "McpClient",
    "McpRequestError",
    "MockOpenAI",
    "Operator",
    "RealGateway",
    "Reference",
    "bridge_identity",
    "find_reference",
    "free_port",
    "isolated_env",
    "open_mcp_client",
    "open_operator",
    "ours_serve_command",
    "process_tree",
    "reference_serve_command",
    "running_gateway",
    "running_under_ci",
    "seed_state",
]

ROOT = Path(__file__).resolve().parents[2]
SEED_SCRIPT = Path(__file__).resolve().with_name("seed_gateway.mjs")
REFERENCE_VERSION = "2026.9.6"
SESSION_KEY = "agent:main:main"
MOCK_API_KEY = "sk-docker-smoke-test"
SEEDED_MEDIA: dict[str, Any] = {
    "type": "openclaw_media",
    "media": {
        "url": "media://inbound/seeded-image.png",
        "contentType": "image/png",
        "kind": "image",
        "fileName": "seeded-image.png",
        "sizeBytes": 3,
        "transcribed": False,
    },
}
"""The attachment of the seeded ``msg-attachment`` as ``attachments_fetch`` reports it."""
EXEC_APPROVAL_REQUEST: dict[str, Any] = {
    "command": "echo approval-test",
    "twoPhase": True,
    "timeoutMs": 300_000,
    "sessionKey": SESSION_KEY,
    "agentId": "main",
    "host": "gateway",
    "cwd": "/tmp",
}
"""``exec.approval.request`` params of a two-phase approval of the seeded session."""
MOCK_REPLY = "mock reply"
INITIALIZE_PARAMS: dict[str, Any] = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "openclaw-mcp-tests", "version": "1"},
}

READY_LINE = "[gateway] ready"
READY_TIMEOUT_S = 180.0
STOP_GRACE_S = 10.0
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_GATEWAY_SKIPS = (
    "OPENCLAW_SKIP_CHANNELS",
    "OPENCLAW_SKIP_GMAIL_WATCHER",
    "OPENCLAW_SKIP_CRON",
    "OPENCLAW_SKIP_CANVAS_HOST",
    "OPENCLAW_SKIP_ACPX_RUNTIME",
    "OPENCLAW_SKIP_ACPX_RUNTIME_PROBE",
)


# --- the reference install -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reference:
    """An installed reference: its directory, node 24 and the OpenClaw CLI script."""

    root: Path
    node: Path
    openclaw: Path

    @property
    def path_env(self) -> str:
        """``PATH`` with node 24 and the reference's ``.bin`` first (§9.5)."""
        parts = [str(self.node.parent), str(self.root / "node_modules" / ".bin"), os.environ.get("PATH", "")]
        return os.pathsep.join(part for part in parts if part)

    def command(self, *args: str) -> list[str]:
        return [str(self.node), str(self.openclaw), *args]


def reference_dir() -> Path:
    explicit = os.environ.get("OPENCLAW_REFERENCE_DIR", "").strip()
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "openclaw-reference"


def find_reference(root: Path | None = None) -> Reference | None:
    """The installed reference (node 24 + ``openclaw@2026.9.6``), or ``None`` when it is not installed."""
    base = reference_dir() if root is None else root
    node = next(
        (
            candidate
            for candidate in (
                base / "node_modules" / f"node-linux-{arch}" / "bin" / "node" for arch in ("x64", "arm64")
            )
            if candidate.is_file() and os.access(candidate, os.X_OK)
        ),
        None,
    )
    package = base / "node_modules" / "openclaw" / "package.json"
    script = base / "node_modules" / "openclaw" / "openclaw.mjs"
    if node is None or not script.is_file() or not package.is_file():
        return None
    try:
        version = json.loads(package.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
    if version != REFERENCE_VERSION:
        return None
    return Reference(root=base, node=node, openclaw=script)


def running_under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


# --- isolation -----------------------------------------------------------------------------------------


def isolated_env(state_dir: Path, *, path: str | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A minimal environment whose OpenClaw state lives in ``state_dir`` (§9.2); ``HOME`` is created."""
    home = state_dir / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": path if path is not None else os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "OPENCLAW_STATE_DIR": str(state_dir),
        "OPENCLAW_CONFIG_PATH": str(state_dir / "openclaw.json"),
        "HOME": str(home),
    }
    for name in ("TMPDIR", "PYTHONPATH"):  # PYTHONPATH: our bridge runs the tree under test, not the editable install
        if os.environ.get(name):
            env[name] = os.environ[name]
    if extra:
        env.update(extra)
    return env


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its live descendants (Linux ``/proc``; children may have left its process group:
    the reference's ``openclaw`` re-executes itself detached)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(text[text.rindex(")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(entry))
    tree, queue = [], [pid]
    while queue:
        current = queue.pop()
        tree.append(current)
        queue.extend(children.get(current, []))
    return tree


def _start_time(pid: int) -> int | None:
    """The process's start time in clock ticks (``/proc/<pid>/stat`` field 22); ``None`` when gone or a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return None if fields[0] == "Z" else int(fields[19])


def _identify(pids: Sequence[int]) -> list[tuple[int, int]]:
    """``(pid, start time)`` pairs, so a later kill never hits a recycled pid."""
    return [(pid, start) for pid in pids if (start := _start_time(pid)) is not None]


def _kill_pids(processes: Sequence[tuple[int, int]], signum: int) -> None:
    for pid, start in processes:
        if _start_time(pid) == start:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signum)


# --- mock OpenAI Responses server (§9.4) ---------------------------------------------------------------


def _response_object(model: str, text: str, status: str) -> dict[str, Any]:
    done = status == "completed"
    item: dict[str, Any] = {
        "id": f"msg_{uuid.uuid4().hex}",
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}] if done else [],
    }
    return {
        "id": f"resp_{uuid.uuid4().hex}",
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": [item] if done else [],
        "usage": {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 2,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 12,
        }
        if done
        else None,
        "error": None,
        "incomplete_details": None,
    }


def _sse_events(model: str, text: str) -> list[tuple[str, dict[str, Any]]]:
    final = _response_object(model, text, "completed")
    item = final["output"][0]
    started = {**_response_object(model, text, "in_progress"), "id": final["id"], "created_at": final["created_at"]}
    part_empty = {"type": "output_text", "text": "", "annotations": []}
    part_full = {"type": "output_text", "text": text, "annotations": []}
    in_progress_item = {**item, "status": "in_progress", "content": []}
    where = {"item_id": item["id"], "output_index": 0, "content_index": 0}
    return [
        ("response.created", {"response": started}),
        ("response.in_progress", {"response": started}),
        ("response.output_item.added", {"output_index": 0, "item": in_progress_item}),
        ("response.content_part.added", {**where, "part": part_empty}),
        ("response.output_text.delta", {**where, "delta": text}),
        ("response.output_text.done", {**where, "text": text}),
        ("response.content_part.done", {**where, "part": part_full}),
        ("response.output_item.done", {"output_index": 0, "item": item}),
        ("response.completed", {"response": final}),
    ]


class _MockHandler(BaseHTTPRequestHandler):
    server: _MockServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = bytearray()
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0] or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(chunks)
                chunks += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _json(self, status: int, value: Any) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.server.record(self.command, self.path, None, self.headers.get("Authorization"))
        if self.path.split("?")[0] == "/v1/models":
            self._json(
                200,
                {"object": "list", "data": [{"id": "gpt-5.5", "object": "model", "created": 0, "owned_by": "mock"}]},
            )
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        raw = self._body()
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        self.server.record(self.command, self.path, body, self.headers.get("Authorization"))
        if self.path.split("?")[0] != "/v1/responses" or not isinstance(body, dict):
            self._json(404, {"error": {"message": "not found"}})
            return
        model = str(body.get("model") or "gpt-5.5")
        text = self.server.reply
        if body.get("stream") is True:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for sequence, (name, data) in enumerate(_sse_events(model, text)):
                payload = {"type": name, "sequence_number": sequence, **data}
                self.wfile.write(f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True
            return
        final = _response_object(model, text, "completed")
        self._json(200, {**final, "output_text": text})


class _MockServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, log_path: Path | None, reply: str) -> None:
        super().__init__(("127.0.0.1", 0), _MockHandler)
        self.log_path = log_path
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def record(self, method: str, path: str, body: Any, authorization: str | None) -> None:
        authorized = authorization == f"Bearer {MOCK_API_KEY}"
        entry = {"ts": time.time(), "method": method, "path": path, "authorized": authorized, "body": body}
        with self._lock:
            self.requests.append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(entry) + "\n")


class MockOpenAI:
    """The OpenAI Responses mock on ``127.0.0.1:<free port>``, served from a daemon thread."""

    def __init__(self, log_path: Path | None = None, reply: str = MOCK_REPLY) -> None:
        self._server = _MockServer(log_path, reply)
        self._thread = threading.Thread(target=self._server.serve_forever, name="mock-openai", daemon=True)
        self._started = False

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return list(self._server.requests)

    def start(self) -> MockOpenAI:
        if not self._started:
            self._started = True
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._started:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._started = False
        self._server.server_close()

    def __enter__(self) -> MockOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --- seeding (§9.3) -------------------------------------------------------------------------------------


def seed_state(
    reference: Reference,
    state_dir: Path,
    mock_base_url: str,
    *,
    image_block: bool = True,
    file_log: bool = True,
    timeout: float = 180.0,
) -> dict[str, Any]:
    """Seed the docker-smoke conversation into ``state_dir`` (before the Gateway starts); returns the script's
    summary (``configPath``, ``storePath``, ``sessionKey``, ``now``)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    args = [str(reference.node), str(SEED_SCRIPT), mock_base_url]
    if file_log:
        args += ["--log-file", str(state_dir / "openclaw-file.log")]
    if not image_block:
        args.append("--no-image-block")
    result = subprocess.run(
        args,
        cwd=reference.root,
        env=isolated_env(state_dir, path=reference.path_env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"seeding the Gateway state failed (exit {result.returncode}):\n"
            f"{result.stderr.decode(errors='replace')[-4000:]}"
        )
    lines = result.stdout.decode().strip().splitlines()
    summary = json.loads(lines[-1]) if lines else {}
    assert isinstance(summary, dict)
    return summary


# --- the Gateway process (§9.5) ------------------------------------------------------------------------


class GatewayStartError(RuntimeError):
    """The Gateway exited or did not become ready; the message ends with the tail of its log."""


class GatewayProcess:
    """``openclaw gateway run`` on a loopback port with a shared token, in a new process group."""

    def __init__(self, reference: Reference, state_dir: Path, port: int, token: str) -> None:
        self.reference = reference
        self.state_dir = state_dir
        self.port = port
        self.token = token
        self.log_path = state_dir / "gateway.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._log_offset = 0
        self.started_at = 0.0
        self.ready_after_s: float | None = None
        self._descendants: list[tuple[int, int]] = []

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        if self.alive:
            raise RuntimeError("the Gateway is already running")
        self._reap()
        env = isolated_env(self.state_dir, path=self.reference.path_env, extra=dict.fromkeys(_GATEWAY_SKIPS, "1"))
        command = self.reference.command(
            "gateway",
            "run",
            "--allow-unconfigured",
            "--auth",
            "token",
            "--token",
            self.token,
            "--port",
            str(self.port),
            "--bind",
            "loopback",
        )
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        self.ready_after_s = None
        with self.log_path.open("ab") as log:
            self.started_at = time.monotonic()
            self._process = subprocess.Popen(
                command,
                cwd=self.reference.root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def log_text(self, *, since_start: bool = True) -> str:
        try:
            with self.log_path.open("rb") as log:
                if since_start:
                    log.seek(self._log_offset)
                data = log.read()
        except OSError:
            return ""
        return _ANSI.sub("", data.decode("utf-8", errors="replace"))

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text(since_start=False).splitlines()[-lines:])

    def wait_ready(self, timeout: float = READY_TIMEOUT_S, abort: threading.Event | None = None) -> float:
        """Block until the log (since this start) has ``[gateway] ready``; returns seconds since spawn."""
        deadline = time.monotonic() + timeout
        while True:
            if abort is not None and abort.is_set():
                raise GatewayStartError("the Gateway start was aborted")
            if READY_LINE in self.log_text():
                self.ready_after_s = time.monotonic() - self.started_at
                return self.ready_after_s
            if self._process is None or self._process.poll() is not None:
                code = None if self._process is None else self._process.returncode
                raise GatewayStartError(f"the Gateway exited ({code}) before ready:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                raise GatewayStartError(f"the Gateway was not ready within {timeout:.0f} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def _signal_group(self, signum: int) -> None:
        if self._process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signum)

    def kill(self) -> None:
        """Crash it: ``SIGKILL`` to the whole process group (and any descendant that left it)."""
        self._reap()

    def stop(self) -> None:
        """``SIGTERM`` to the group, ``SIGKILL`` after 10 s; the group's leftovers are killed too."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            self._descendants = _identify(process_tree(process.pid)[1:])
            self._signal_group(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
        self._reap()

    def _reap(self) -> None:
        process = self._process
        if process is None:
            return
        leftovers = _identify(process_tree(process.pid)[1:]) if process.poll() is None else self._descendants
        self._descendants = []
        self._signal_group(signal.SIGKILL)
        _kill_pids(leftovers, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_GRACE_S)
        self._process = None


# --- everything together -------------------------------------------------------------------------------


class RealGateway:
    """A seeded real Gateway in its own temporary directory: ``<root>/gateway`` is its state dir,
    ``<root>/token`` the token file bridges read, ``<root>/bridges/<n>`` fresh bridge state dirs."""

    def __init__(self, reference: Reference, root: Path, *, token: str | None = None) -> None:
        self.reference = reference
        self.root = root
        self.state_dir = root / "gateway"
        self.token = token or f"test-{secrets.token_hex(16)}"
        self.token_file = root / "token"
        self.mock: MockOpenAI | None = None
        self.process: GatewayProcess | None = None
        self.seed_summary: dict[str, Any] = {}
        self._bridges = 0
        self._abort = threading.Event()

    # lifecycle

    @classmethod
    def start(
        cls,
        reference: Reference,
        *,
        image_block: bool = True,
        root: Path | None = None,
        port: int | None = None,
        token: str | None = None,
    ) -> RealGateway:
        """Start the mock, seed, start the Gateway (on ``port``, default a free one) and wait until it is
        ready. On failure everything started is stopped again and the error raised."""
        gateway = cls.prepare(reference, root=root, token=token)
        gateway.boot(image_block=image_block, port=port)
        return gateway

    @classmethod
    def prepare(cls, reference: Reference, *, root: Path | None = None, token: str | None = None) -> RealGateway:
        """The instance and its directory, nothing started yet (:meth:`boot` starts it)."""
        base = Path(tempfile.mkdtemp(prefix="openclaw-gateway-")) if root is None else root
        return cls(reference, base, token=token)

    def boot(self, *, image_block: bool = True, port: int | None = None) -> None:
        """Start everything; on failure stop what was started (keeping the directory) and raise."""
        try:
            self._start(image_block=image_block, port=port)
        except BaseException:
            self.stop(remove=False)
            raise

    def _start(self, *, image_block: bool, port: int | None) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.token_file.write_text(self.token + "\n", encoding="utf-8")
        self.token_file.chmod(0o600)
        self.mock = MockOpenAI(self.state_dir / "mock-openai.jsonl").start()
        self.seed_summary = seed_state(self.reference, self.state_dir, self.mock.base_url, image_block=image_block)
        last_error: GatewayStartError | None = None
        for _ in range(1 if port is not None else 2):  # a second port if the first one was taken meanwhile
            if self._abort.is_set():
                raise GatewayStartError("the Gateway start was aborted")
            self.process = GatewayProcess(self.reference, self.state_dir, port or free_port(), self.token)
            self.process.start()
            try:
                self.process.wait_ready(abort=self._abort)
                return
            except GatewayStartError as exc:
                last_error = exc
                self.process.stop()
                if "EADDRINUSE" not in str(exc):
                    break
        assert last_error is not None
        raise last_error

    def abort(self) -> None:
        """Make a :meth:`boot` running in another thread give up at its next step (then :meth:`stop`)."""
        self._abort.set()

    def stop(self, *, remove: bool = True) -> None:
        if self.process is not None:
            self.process.stop()
        if self.mock is not None:
            self.mock.stop()
            self.mock = None
        if remove:
            shutil.rmtree(self.root, ignore_errors=True)

    def kill(self) -> None:
        """Crash the Gateway (``SIGKILL`` to its group); :meth:`restart` brings it back on the same port."""
        assert self.process is not None
        self.process.kill()

    def restart(self, timeout: float = READY_TIMEOUT_S) -> float:
        """Start the Gateway again (same state, port and token) and wait until ready; returns seconds."""
        assert self.process is not None
        self.process.stop()
        self.process.start()
        return self.process.wait_ready(timeout)

    # connection info

    @property
    def port(self) -> int:
        assert self.process is not None
        return self.process.port

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def ready_after_s(self) -> float | None:
        return None if self.process is None else self.process.ready_after_s

    def contract_env(self) -> dict[str, str]:
        """What tests/contract/test_gateway_contract.py reads for its ``reference`` parameter."""
        return {"OPENCLAW_TEST_GATEWAY_URL": self.url, "OPENCLAW_TEST_GATEWAY_TOKEN": self.token}

    def log_tail(self, lines: int = 40) -> str:
        return "" if self.process is None else self.process.log_tail(lines)

    def new_bridge_state(self, name: str = "bridge") -> Path:
        """A fresh state dir for one bridge process (its own device identity, §9.2). Its config only sets
        ``logging.file`` inside the dir, so the reference's bridge does not write the machine-wide
        ``/tmp/openclaw/openclaw-<date>.log``."""
        self._bridges += 1
        path = self.root / "bridges" / f"{self._bridges:02d}-{name}"
        path.mkdir(parents=True)
        config = {"logging": {"file": str(path / "openclaw-file.log")}}
        (path / "openclaw.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        return path

    def bridge_env(self, state_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        return isolated_env(state_dir, path=self.reference.path_env, extra=extra)

    # extra connections (§9.6)

    def operator(
        self, kind: str = "owner", *, bridge_state: Path | None = None
    ) -> contextlib.AbstractAsyncContextManager[Operator]:
        identity = bridge_identity(bridge_state) if bridge_state is not None else None
        return open_operator(self.url, self.token, kind, identity=identity)

    def call(self, method: str, params: dict[str, Any] | None = None, *, kind: str = "owner") -> Any:
        """One request on a short-lived operator connection, from synchronous code."""

        async def run() -> Any:
            with anyio.fail_after(60):
                async with self.operator(kind) as operator:
                    return await operator.request(method, params)

        return anyio.run(run)


def _keep_state() -> bool:
    return os.environ.get("OPENCLAW_TEST_KEEP_STATE", "") == "1"


@contextlib.contextmanager
def running_gateway(reference: Reference, *, image_block: bool = True) -> Iterator[RealGateway]:
    """``RealGateway.start`` … ``stop`` as a context manager (the temporary dir is removed unless
    ``OPENCLAW_TEST_KEEP_STATE=1``)."""
    gateway = RealGateway.prepare(reference)
    try:
        gateway.boot(image_block=image_block)
        yield gateway
    finally:
        gateway.stop(remove=not _keep_state())


# --- operator connections (§9.6) -----------------------------------------------------------------------


_OPERATOR_SETTINGS: dict[str, dict[str, Any]] = {
    "owner": {
        "client_id": "openclaw-tui",
        "client_mode": "ui",
        "client_display_name": "OpenClaw Tests (owner)",
        "caps": (),
        "scopes": ("operator.read", "operator.write", "operator.pairing", "operator.admin"),
    },
    "nonowner": {
        "client_id": "test",
        "client_mode": "test",
        "client_display_name": "OpenClaw Tests (non-owner)",
        "caps": (),
        "scopes": ("operator.read", "operator.write"),
    },
    # The bridge's own client metadata (a paired device's metadata is pinned, §2.8).
    "approver": {},
}


def bridge_identity(state_dir: Path) -> DeviceIdentity:
    """The ``primary`` device identity a bridge stored in ``<state_dir>/state/openclaw.sqlite`` (read only)."""
    path = state_dir / "state" / "openclaw.sqlite"
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    try:
        row = connection.execute(
            "SELECT device_id, public_key_pem, private_key_pem FROM device_identities WHERE identity_key = 'primary'"
        ).fetchone()
    finally:
        connection.close()
    if row is None:
        raise LookupError(f"no device identity in {path}")
    return DeviceIdentity(device_id=row[0], public_key_pem=row[1], private_key_pem=row[2])


@dataclass(eq=False)
class Operator:
    """An extra Gateway connection: requests, and the bridge events it receives (``session.message`` and the
    approval events), in arrival order."""

    kind: str
    connection: GatewayConnection
    events: list[GatewayEvent] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    _changed: anyio.Event = field(default_factory=anyio.Event)

    def _on_event(self, event: GatewayEvent) -> None:
        self.events.append(event)
        self._changed.set()
        self._changed = anyio.Event()

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.connection.request(method, params)

    async def wait_event(self, predicate: Callable[[GatewayEvent], bool], *, start: int = 0) -> GatewayEvent:
        """The first event from index ``start`` on that matches (waits for it; the caller bounds the time)."""
        index = start
        while True:
            while index < len(self.events):
                event = self.events[index]
                index += 1
                if predicate(event):
                    return event
            await self._changed.wait()

    async def chat_send(self, text: str, *, session_key: str = SESSION_KEY) -> dict[str, Any]:
        """``chat.send`` a user turn; returns ``{runId, status, …}``."""
        result = await self.request(
            "chat.send", {"sessionKey": session_key, "message": text, "idempotencyKey": str(uuid.uuid4())}
        )
        assert isinstance(result, dict), result
        return result

    async def agent_wait(self, run_id: str, timeout_ms: int = 60_000) -> dict[str, Any]:
        result = await self.request("agent.wait", {"runId": run_id, "timeoutMs": timeout_ms})
        assert isinstance(result, dict), result
        return result

    async def chat_inject(self, text: str, *, session_key: str = SESSION_KEY) -> dict[str, Any]:
        """``chat.inject`` an assistant message (owner only; no run)."""
        result = await self.request("chat.inject", {"sessionKey": session_key, "message": text})
        assert isinstance(result, dict), result
        return result


@asynccontextmanager
async def open_operator(
    url: str, token: str, kind: str = "owner", *, identity: DeviceIdentity | None = None
) -> AsyncIterator[Operator]:
    """A ready operator connection of ``kind`` ``owner``, ``nonowner`` or ``approver`` (the latter needs the
    bridge's ``identity``); subscribed to session events."""
    if kind not in _OPERATOR_SETTINGS:
        raise ValueError(f"unknown operator kind {kind!r}")
    if kind == "approver" and identity is None:
        raise ValueError("the approver connection needs the bridge's device identity")
    settings = GatewaySettings(url=url, token=token, **_OPERATOR_SETTINGS[kind])
    store = InMemoryDeviceIdentityStore(identity)
    gateway = WebsocketsGateway(store)
    holder: list[Operator] = []

    def on_event(event: GatewayEvent) -> None:
        holder[0]._on_event(event)

    logs: list[str] = []
    async with gateway.connect(settings, on_event=on_event, log=logs.append) as connection:
        operator = Operator(kind, connection, logs=logs)
        holder.append(operator)
        await connection.wait_ready()
        yield operator


# --- an MCP stdio client -------------------------------------------------------------------------------


def ours_serve_command(url: str, token_file: Path, mode: str = "on", *extra: str) -> list[str]:
    """Our ``openclaw mcp serve`` (the project venv's console script)."""
    candidates = [ROOT / ".venv" / "bin" / "openclaw", Path(sys.executable).parent / "openclaw"]
    executable = next((path for path in candidates if path.is_file()), candidates[0])
    return [
        str(executable),
        "mcp",
        "serve",
        "--url",
        url,
        "--token-file",
        str(token_file),
        "--claude-channel-mode",
        mode,
        *extra,
    ]


def reference_serve_command(
    reference: Reference, url: str, token_file: Path, mode: str = "on", *extra: str
) -> list[str]:
    """The reference's own ``openclaw mcp serve``."""
    return reference.command(
        "mcp", "serve", "--url", url, "--token-file", str(token_file), "--claude-channel-mode", mode, *extra
    )


class McpRequestError(Exception):
    """A JSON-RPC error response (``error`` holds it)."""

    def __init__(self, error: Any) -> None:
        super().__init__(json.dumps(error))
        self.error = error


class _Slot:
    def __init__(self) -> None:
        self.done = anyio.Event()
        self.message: dict[str, Any] | None = None


@dataclass(eq=False)
class PendingRequest:
    id: int
    method: str
    _slot: _Slot
    sent_at: float

    async def response(self) -> dict[str, Any]:
        """The whole response message (``result`` or ``error``); the caller bounds the time."""
        await self._slot.done.wait()
        if self._slot.message is None:
            raise EOFError(f"the server closed stdout before answering {self.method} (id {self.id})")
        return self._slot.message

    @property
    def answered(self) -> bool:
        return self._slot.done.is_set() and self._slot.message is not None


class McpClient:
    """Newline-delimited JSON-RPC over a child's stdio (the MCP stdio transport)."""

    def __init__(self, process: anyio.abc.Process, name: str) -> None:
        self.process = process
        self.name = name
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self.traffic: list[tuple[float, str, dict[str, Any]]] = []
        self.stdout_closed = False
        self._stderr = bytearray()
        self._next_id = 0
        self._slots: dict[int, _Slot] = {}
        self._changed = anyio.Event()
        self._send_lock = anyio.Lock()
        self._readers_left = 2
        self.readers_done = anyio.Event()
        self.spawned_at = time.monotonic()

    # plumbing

    async def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        stream = BufferedByteReceiveStream(self.process.stdout)
        try:
            while True:
                line = await stream.receive_until(b"\n", 64 * 1024 * 1024)
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict):
                    self._dispatch(message)
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            self.stdout_closed = True
            for slot in self._slots.values():
                slot.done.set()
            self._slots.clear()
            self._wake()
            self._reader_finished()

    def _dispatch(self, message: dict[str, Any]) -> None:
        self.traffic.append((time.monotonic(), "<-", message))
        if "method" in message:
            if "id" in message:
                self.server_requests.append(message)
            else:
                self.notifications.append(message)
                self._wake()
            return
        ident = message.get("id")
        slot = self._slots.pop(ident, None) if isinstance(ident, int) else None
        if slot is not None:
            slot.message = message
            slot.done.set()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        try:
            async for chunk in self.process.stderr:
                self._stderr += chunk
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            self._reader_finished()

    def _reader_finished(self) -> None:
        self._readers_left -= 1
        if self._readers_left == 0:
            self.readers_done.set()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.traffic.append((time.monotonic(), "->", message))
        async with self._send_lock:
            await self.process.stdin.send(json.dumps(message).encode() + b"\n")

    # requests and notifications

    async def start(self, method: str, params: Any = None) -> PendingRequest:
        """Send a request without waiting for its answer."""
        self._next_id += 1
        ident = self._next_id
        slot = _Slot()
        self._slots[ident] = slot
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        pending = PendingRequest(ident, method, slot, time.monotonic())
        await self.send(message)
        return pending

    async def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """The whole response message."""
        return await (await self.start(method, params)).response()

    async def result(self, method: str, params: Any = None) -> Any:
        response = await self.request(method, params)
        if "error" in response:
            raise McpRequestError(response["error"])
        return response.get("result")

    async def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        """``tools/call``; the tool result (``content``, ``structuredContent``, ``isError``)."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        result = await self.result("tools/call", params)
        assert isinstance(result, dict), result
        return result

    async def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)

    async def initialize(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.result("initialize", params or INITIALIZE_PARAMS)
        await self.notify("notifications/initialized")
        assert isinstance(result, dict), result
        return result

    async def wait_notification(self, predicate: Callable[[dict[str, Any]], bool], *, start: int = 0) -> dict[str, Any]:
        """The first notification from index ``start`` on that matches (the caller bounds the time)."""
        index = start
        while True:
            while index < len(self.notifications):
                message = self.notifications[index]
                index += 1
                if predicate(message):
                    return message
            if self.stdout_closed:
                raise EOFError(f"{self.name}: stdout closed while waiting for a notification")
            await self._changed.wait()

    def notifications_of(self, method: str) -> list[dict[str, Any]]:
        return [message for message in self.notifications if message.get("method") == method]

    @property
    def stderr_text(self) -> str:
        return self._stderr.decode("utf-8", errors="replace")

    async def close_stdin(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await self.process.stdin.aclose()

    async def wait_exit(self) -> int:
        return await self.process.wait()


def _kill_group(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


@asynccontextmanager
async def open_mcp_client(
    command: Sequence[str], env: Mapping[str, str], *, cwd: Path | None = None, name: str = "serve"
) -> AsyncIterator[McpClient]:
    """Spawn an MCP stdio server in a new process group and yield a client for it. On exit stdin is closed
    and the process given 10 s to end (then ``SIGTERM`` / ``SIGKILL`` to its group); the exit status is in
    ``client.process.returncode``. An exception of the body is re-raised as is (not in a group)."""
    process = await anyio.open_process(list(command), env=dict(env), cwd=cwd, start_new_session=True)
    client = McpClient(process, name)
    failure: Exception | None = None
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client._read_stdout)
            tg.start_soon(client._read_stderr)
            try:
                yield client
            except Exception as exc:
                failure = exc
            finally:
                with anyio.CancelScope(shield=True):
                    await _end_process(client)
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await process.aclose()
    if failure is not None:
        raise failure


async def _end_process(client: McpClient) -> None:
    process = client.process
    tree = _identify(process_tree(process.pid)[1:]) if process.returncode is None else []
    await client.close_stdin()
    with anyio.move_on_after(10):
        await process.wait()
    if process.returncode is None:
        _kill_group(process.pid, signal.SIGTERM)
        with anyio.move_on_after(5):
            await process.wait()
    if process.returncode is None:
        _kill_group(process.pid, signal.SIGKILL)
        await process.wait()
    # Children that outlived the leader (the reference's serve runs two processes) go too, by id.
    _kill_group(process.pid, signal.SIGKILL)
    _kill_pids(tree, signal.SIGKILL)
    with anyio.move_on_after(5):
        await client.readers_done.wait()


# --- command line --------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m tests.docker.gateway_harness (up | run -- <command> [args...])"
    if not args or args[0] not in ("up", "run") or (args[0] == "run" and args[1:2] != ["--"]):
        print(usage, file=sys.stderr)
        return 2
    reference = find_reference()
    if reference is None:
        print("the reference OpenClaw 2026.9.6 is not installed: bash scripts/install_reference.sh")
        return 2
    with running_gateway(reference) as gateway:
        exported = {**gateway.contract_env(), "OPENCLAW_TEST_GATEWAY_STATE_DIR": str(gateway.state_dir)}
        if args[0] == "run":
            if not args[2:]:
                print(usage, file=sys.stderr)
                return 2
            return subprocess.run(args[2:], env={**os.environ, **exported}, check=False).returncode
        for name, value in exported.items():
            print(f"export {name}={value}")
        print(f"# Gateway log: {gateway.state_dir / 'gateway.log'}; Ctrl-C stops it", flush=True)
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        while not stop.wait(1.0):
            if gateway.process is None or not gateway.process.alive:
                print("the Gateway exited", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
