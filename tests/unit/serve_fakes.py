"""Test support for ``openclaw mcp serve``: an in-process stdio harness around :func:`run_serve`, a Gateway
replaying the reference's recorded answers, and a subprocess bootstrap with an in-memory Gateway.

Not a test module (no ``test_`` prefix); imported by ``tests/unit/test_serve_*.py`` and run by subprocess
tests as ``python -c "from tests.unit.serve_fakes import serve_with_memory_gateway; …"``.
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from dependency_injector import providers

from openclaw_mcp.adapters.memory.gateway import InMemoryGateway
from openclaw_mcp.application.ports.gateway import GatewayRequestError
from openclaw_mcp.entrypoints.containers import Container, create_container
from openclaw_mcp.entrypoints.serve.cli import run_serve
from openclaw_mcp.jscompat.jsjson import js_dumps
from tests.fixtures.reference_cases import ORACLE_SERVE

ORACLE = ORACLE_SERVE

INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "pytest", "version": "1"},
}

SEEDED_ROW = {
    "key": "agent:main:main",
    "kind": "direct",
    "displayName": "Docker MCP Channel Smoke",
    "derivedTitle": "Docker MCP Channel Smoke",
    "lastMessagePreview": "seeded image block",
    "updatedAt": 1795954303413,
    "deliveryContext": {
        "channel": "imessage",
        "to": "+15551234567",
        "accountId": "imessage-default",
        "threadId": "thread-42",
    },
}


def serve_env(root: Path, **extra: str) -> dict[str, str]:
    """An isolated environment: state dir, config path and home under ``root``."""
    env = {
        "OPENCLAW_STATE_DIR": str(root / "state"),
        "OPENCLAW_CONFIG_PATH": str(root / "state" / "openclaw.json"),
        "HOME": str(root / "home"),
        "PATH": os.environ.get("PATH", ""),
    }
    env.update(extra)
    return env


def serve_options(**overrides: Any) -> dict[str, Any]:
    options: dict[str, Any] = {
        "url": "ws://127.0.0.1:18789",
        "token": None,
        "token_file": None,
        "password": None,
        "password_file": None,
        "claude_channel_mode": "on",
        "verbose": False,
    }
    options.update(overrides)
    return options


def serve_container(env: Mapping[str, str], gateway: Any) -> Container:
    """The container of ``serve`` configured from ``env``, its Gateway client replaced by ``gateway``."""
    container = create_container(env)
    container.gateway.override(providers.Object(gateway))
    return container


def seeded_gateway(**kwargs: Any) -> InMemoryGateway:
    """A Gateway with the docker-smoke conversation (gateway-protocol §9.3), enough for happy paths."""
    gateway = InMemoryGateway(**kwargs)
    gateway.handle("sessions.list", lambda params: {"sessions": [SEEDED_ROW]})
    gateway.handle(
        "sessions.describe",
        lambda params: {"session": SEEDED_ROW if params.get("key") == "agent:main:main" else None},
    )
    gateway.handle("sessions.get", lambda params: {"messages": []})
    gateway.handle("chat.message.get", lambda params: {"ok": False, "unavailableReason": "not_found"})
    return gateway


# --- the recorded Gateway --------------------------------------------------------------------------------


def recorded_exchanges() -> dict[str, deque[tuple[Any, dict[str, Any]]]]:
    """The bridge's recorded Gateway requests and their response frames, by method, in order."""
    requests: dict[str, dict[str, Any]] = {}
    by_method: dict[str, deque[tuple[Any, dict[str, Any]]]] = defaultdict(deque)
    for line in (ORACLE / "wire_bridge.jsonl").read_text(encoding="utf-8").splitlines():
        frame = json.loads(line).get("frame") or {}
        if frame.get("type") == "req":
            requests[frame["id"]] = frame
        elif frame.get("type") == "res" and frame["id"] in requests:
            request = requests.pop(frame["id"])
            by_method[request["method"]].append((request.get("params"), frame))
    return by_method


class RecordedGateway(InMemoryGateway):
    """Answers each method with the next recorded response and remembers what was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.exchanges = recorded_exchanges()
        self.mismatches: list[tuple[str, Any, Any]] = []
        for method in ("sessions.list", "sessions.describe", "sessions.get", "chat.message.get", "send"):
            self.handle(method, self._answer(method))
        self.handle("exec.approval.resolve", self._answer("exec.approval.resolve"))
        self.handle("plugin.approval.resolve", self._answer("plugin.approval.resolve"))

    def _answer(self, method: str) -> Any:
        def handler(params: Any) -> Any:
            sent, frame = self.exchanges[method].popleft()
            if method != "send" and sent != params:
                self.mismatches.append((method, sent, params))
            if frame.get("ok"):
                return frame.get("payload")
            error = frame["error"]
            raise GatewayRequestError(error["message"], error["code"], error.get("details"), error.get("retryable"))

        return handler


# --- the in-process stdio harness -------------------------------------------------------------------------


class _Source:
    def __init__(self, stream: MemoryObjectReceiveStream[bytes]) -> None:
        self._stream = stream

    def close(self) -> None:
        self._stream.close()

    async def read(self) -> bytes:
        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return b""


class _Sink:
    def __init__(self, out: MemoryObjectSendStream[bytes]) -> None:
        self._out = out
        self._buffer = b""
        self.raw = bytearray()
        self.broken = False

    def close(self) -> None:
        self._out.close()

    async def write(self, data: bytes) -> None:
        if self.broken:
            raise BrokenPipeError(32, "Broken pipe")
        self.raw += data
        self._buffer += data
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            try:
                self._out.send_nowait(line)
            except anyio.ClosedResourceError:
                pass


class Session:
    """One running ``openclaw mcp serve`` with memory stdio."""

    def __init__(self) -> None:
        self._in_send, in_recv = anyio.create_memory_object_stream[bytes](math.inf)
        out_send, self._out_recv = anyio.create_memory_object_stream[bytes](math.inf)
        self.source = _Source(in_recv)
        self.sink = _Sink(out_send)
        self.stderr = io.StringIO()
        self.exit_code: int | None = None
        self.done = anyio.Event()
        self._next_id = 100

    def write_raw(self, data: bytes) -> None:
        self._in_send.send_nowait(data)

    def send(self, message: Mapping[str, Any]) -> None:
        self.write_raw(json.dumps(message).encode() + b"\n")

    def request(self, method: str, params: Any = None, *, request_id: Any = None) -> Any:
        """Send a request; returns its id."""
        if request_id is None:
            self._next_id += 1
            request_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return request_id

    def call(self, tool: str, arguments: Any = ..., *, request_id: Any = None) -> Any:
        params: dict[str, Any] = {"name": tool}
        if arguments is not ...:
            params["arguments"] = arguments
        return self.request("tools/call", params, request_id=request_id)

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def close_input(self) -> None:
        self._in_send.close()

    def close_streams(self) -> None:
        self._in_send.close()
        self.source.close()
        self.sink.close()
        self._out_recv.close()

    async def next_line(self) -> bytes:
        return await self._out_recv.receive()

    async def next_message(self) -> dict[str, Any]:
        message = json.loads(await self.next_line())
        assert isinstance(message, dict)
        return message

    async def response(self, request_id: Any) -> dict[str, Any]:
        """The next message, which must be the response to ``request_id``."""
        message = await self.next_message()
        assert message.get("id") == request_id, message
        return message

    async def result(self, request_id: Any) -> Any:
        return (await self.response(request_id))["result"]

    async def roundtrip(self, method: str, params: Any = None) -> Any:
        return await self.result(self.request(method, params))

    async def tool(self, tool: str, arguments: Any = ...) -> dict[str, Any]:
        result = await self.result(self.call(tool, arguments))
        assert isinstance(result, dict)
        return result

    async def initialize(self) -> dict[str, Any]:
        result = await self.roundtrip("initialize", INITIALIZE)
        self.notify("notifications/initialized")
        return dict(result)

    def pending_lines(self) -> list[bytes]:
        lines: list[bytes] = []
        while True:
            try:
                lines.append(self._out_recv.receive_nowait())
            except (anyio.WouldBlock, anyio.EndOfStream):
                return lines

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.getvalue().splitlines()


@asynccontextmanager
async def serve_session(
    root: Path,
    gateway: Any,
    *,
    options: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> AsyncIterator[Session]:
    """Run :func:`run_serve` in a task group; on exit, close stdin and wait for it to finish."""
    session = Session()

    environ = dict(env) if env is not None else serve_env(root)

    async def run() -> None:
        session.exit_code = await run_serve(
            serve_options(**(options or {})),
            environ,
            stdin=session.source,
            stdout=session.sink,
            stderr=session.stderr,
            container=serve_container(environ, gateway),
            handle_signals=False,
        )
        session.done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        try:
            yield session
        finally:
            session.close_input()
            with anyio.fail_after(5):
                await session.done.wait()
            session.close_streams()


def encoded(message: Any) -> bytes:
    """``JSON.stringify(message)`` bytes (what the reference writes, without the newline)."""
    return js_dumps(message, None).encode("utf-8")


# --- subprocess bootstrap ----------------------------------------------------------------------------------


def serve_with_memory_gateway() -> None:
    """``python -c "from tests.unit.serve_fakes import serve_with_memory_gateway; serve_with_memory_gateway()"
    [serve options…]`` — the real command on the real stdio, against a seeded in-memory Gateway
    (``SERVE_FAKE_GATEWAY=down`` makes it unreachable)."""
    from openclaw_mcp.entrypoints.cli.argv import Parsed, parse

    parsed = parse(["serve", *sys.argv[1:]])
    assert isinstance(parsed, Parsed)

    async def main() -> int:
        env = dict(os.environ)
        gateway = seeded_gateway(up=os.environ.get("SERVE_FAKE_GATEWAY") != "down")
        return await run_serve(parsed.options, env, container=serve_container(env, gateway))

    sys.exit(anyio.run(main))
