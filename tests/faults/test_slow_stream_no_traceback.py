"""A slow streamable-HTTP MCP server never makes ``add`` or ``probe`` print a library traceback.

The server (a raw ASGI app on 127.0.0.1, served by the loopback fixture) answers every JSON-RPC request as an
SSE stream written in small pieces with pauses inside the message; per path it also stalls a response past the
client's timeout, cuts a stream in the middle of a message, or keeps a GET stream sending notifications while
the client tears the session down (the case where the MCP SDK logs ``Error parsing SSE message`` with an
``anyio.BrokenResourceError`` traceback). The CLI runs as real processes, a few at a time; each run's stderr
must hold no traceback and no multi-line library record (spec: every library record is at most one line
unless ``--log-level debug``).

Runs: 20 by default, 100 with ``OPENCLAW_FAULTS_FULL=1``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.faults._process import Tree, assert_no_traceback
from tests.fixtures.http_servers import LoopbackServer, http_only

pytestmark = pytest.mark.asyncio

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

RUNS = 100 if os.environ.get("OPENCLAW_FAULTS_FULL") == "1" else 20
BATCH = 5
MODES = ("slow", "stall", "cut", "chatty")
SECRET = "sk-faultsecret0123456789abcdef"
CLI = [sys.executable, "-m", "openclaw_mcp", "mcp"]
LIBRARY_PREFIX = "[openclaw-mcp] "


def _sse(message: dict[str, Any]) -> bytes:
    return b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n"


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    method = request.get("method")
    if method == "initialize":
        version = request.get("params", {}).get("protocolVersion", "2025-06-18")
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "slow", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "description": "x" * 2000, "inputSchema": {"type": "object"}}]}
    else:
        result = {}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def slow_app(stopping: anyio.Event) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """``/<mode>/mcp``: ``slow`` (pieces with pauses), ``stall`` (``tools/list`` never completes), ``cut``
    (``tools/list`` ends mid-message), ``chatty`` (slow, plus a GET stream of notifications)."""

    async def start(send: Send, status: int, content_type: bytes | None = None) -> None:
        headers = [(b"mcp-session-id", b"s-1")]
        if content_type is not None:
            headers.append((b"content-type", content_type))
        await send({"type": "http.response.start", "status": status, "headers": headers})

    async def body(send: Send, chunk: bytes, more: bool = True) -> None:
        await send({"type": "http.response.body", "body": chunk, "more_body": more})

    async def respond(scope: Scope, raw: bytes, send: Send) -> None:
        mode = scope["path"].strip("/").split("/")[0]
        method = scope["method"]
        if method == "DELETE":
            await start(send, 200)
            await body(send, b"", more=False)
            return
        if method == "GET":
            if mode != "chatty":
                await start(send, 405)
                await body(send, b"", more=False)
                return
            await start(send, 200, b"text/event-stream")
            note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
            while True:
                await body(send, _sse(note))
                await anyio.sleep(0.005)
        request = json.loads(raw)
        if "id" not in request:
            await start(send, 202)
            await body(send, b"", more=False)
            return
        data = _sse(_answer(request))
        await start(send, 200, b"text/event-stream")
        if request.get("method") == "tools/list" and mode in ("stall", "cut"):
            await body(send, data[: len(data) // 2])
            if mode == "stall":
                await anyio.sleep_forever()
            await body(send, b"", more=False)
            return
        step = max(1, len(data) // 4)
        for offset in range(0, len(data), step):
            await body(send, data[offset : offset + step])
            await anyio.sleep(0.05)
        await body(send, b"", more=False)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        """``respond`` until it is done, the client goes away or the server stops (streams never linger)."""
        raw = b""
        while scope["method"] == "POST":
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        async with anyio.create_task_group() as tg:

            async def watch_disconnect() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                tg.cancel_scope.cancel()

            async def watch_stopping() -> None:
                await stopping.wait()
                tg.cancel_scope.cancel()

            async def run() -> None:
                await respond(scope, raw, send)
                tg.cancel_scope.cancel()

            tg.start_soon(watch_stopping)
            tg.start_soon(watch_disconnect)
            tg.start_soon(run)

    return app


def _run(tree: Tree, argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *argv],
        env=tree.env(),
        cwd=tree.root,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def _library_records_are_single_lines(stderr: str) -> None:
    """Each ``[openclaw-mcp]`` record is one line: the line after one is another record or one of ours."""
    lines = stderr.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(LIBRARY_PREFIX) and index + 1 < len(lines):
            following = lines[index + 1]
            assert not following.startswith((" ", "\t")), stderr


def _cases(origin: str, root: Path) -> list[tuple[Tree, list[str]]]:
    cases: list[tuple[Tree, list[str]]] = []
    for index in range(RUNS):
        mode = MODES[index % len(MODES)]
        tree = Tree.make(root / f"run{index}")
        url = f"{origin}/{mode}/mcp?token={SECRET}"
        if index % 2 == 0:
            argv = ["add", f"s{index}", "--url", url, "--transport", "streamable-http"]
            argv += ["--connect-timeout", "5", "--timeout", "1" if mode == "stall" else "5"]
        else:
            servers = {
                name: {
                    "url": f"{origin}/{name}/mcp",
                    "transport": "streamable-http",
                    "connectionTimeoutMs": 5000,
                    "requestTimeoutMs": 1000 if name == "stall" else 5000,
                }
                for name in MODES
            }
            tree.config.write_text(json.dumps({"mcp": {"servers": servers}}))
            argv = ["probe", "--json"] if index % 4 == 1 else ["probe"]
        cases.append((tree, argv))
    return cases


async def test_slow_and_cut_streams_print_no_library_traceback(tmp_path: Path) -> None:
    def build(server: LoopbackServer) -> Any:
        assert server.stopping is not None
        return http_only(slow_app(server.stopping))

    async with LoopbackServer(build) as server:
        cases = _cases(server.origin, tmp_path)

        def run_all() -> list[subprocess.CompletedProcess[str]]:
            with ThreadPoolExecutor(BATCH) as pool:
                return list(pool.map(lambda case: _run(*case), cases))

        results = await anyio.to_thread.run_sync(run_all)
    assert len(results) == RUNS
    for (_, argv), result in zip(cases, results, strict=True):
        context = f"{argv}\n{result.stderr}"
        assert_no_traceback(result.stderr)
        _library_records_are_single_lines(result.stderr)
        assert SECRET not in result.stderr, context
        assert "anyio" not in result.stderr, context
        if argv[0] == "probe":
            assert result.returncode == 1, context  # stall and cut fail, slow and chatty connect
            assert "MCP probe failed for" in result.stderr, context
            if "--json" in argv:
                document = json.loads(result.stdout)
                assert {"slow", "chatty"} <= set(document["servers"]), context
