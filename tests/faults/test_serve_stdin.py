"""``openclaw mcp serve`` fed hostile stdin (issue 14; spec serve-bridge §1.3, §1.4, §4.2).

A real process on real pipes, against the seeded in-memory Gateway of ``tests/unit/serve_fakes.py``. Lines
that are not JSON-RPC (garbage bytes, invalid UTF-8, a 10 MB line, nesting 100 000 deep) are ignored and the
next request is answered; a line longer than the SDK's 10 MiB buffer closes the transport (exit 0). Closing
stdin ends the process within 1 s. stderr stays empty throughout: no traceback, no noise.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.entrypoints.serve.transport import MAX_LINE_BYTES
from tests.faults._process import ROOT
from tests.unit.serve_fakes import INITIALIZE

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

FAKE = "from tests.unit.serve_fakes import serve_with_memory_gateway; serve_with_memory_gateway()"
EXIT_AFTER_CLOSE_SECONDS = 1.0
ANSWER_TIMEOUT = 20.0


def request(request_id: int, method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


HOSTILE: dict[str, bytes] = {
    "garbage-bytes": bytes(range(256)) * 40 + b'\n\x00\x00\n\r\n\xff\xfe\xfd garbage\n{"jsonrpc\n',
    "ten-megabyte-line": b"x" * 10_000_000 + b"\n",
    "ten-megabyte-json-string": b'{"jsonrpc":"2.0","method":"x","params":{"s":"' + b"y" * 10_000_000 + b'"}}\n',
    "nested-arrays": b"[" * 100_000 + b"\n",
    "nested-objects": b'{"a":' * 100_000 + b"\n",
    # Requests nested deeper than Python's recursion limit: answered, as the reference's JSON.parse takes them
    # (issue 32; checked in tests/unit/test_hardening_full_frames.py); tolerated here either way.
    "nested-params-of-a-request": (
        '{"jsonrpc":"2.0","id":90,"method":"ping","params":{"x":' + nested(100_000) + "}}\n"
    ).encode(),
    "nested-tool-arguments": (
        '{"jsonrpc":"2.0","id":91,"method":"tools/call","params":{"name":"events_poll","arguments":{"x":'
        + nested(100_000)
        + "}}}\n"
    ).encode(),
}
TOLERATED = frozenset({90, 91})


class Serve:
    """``openclaw mcp serve`` with a reader thread collecting its stdout lines."""

    def __init__(self, tmp_path: Path) -> None:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(ROOT),
            "OPENCLAW_STATE_DIR": str(tmp_path / "state"),
            "OPENCLAW_CONFIG_PATH": str(tmp_path / "state" / "openclaw.json"),
            "HOME": str(tmp_path / "home"),
            "LANG": "C.UTF-8",
        }
        self.process = subprocess.Popen(
            [sys.executable, "-c", FAKE, "--url", "ws://127.0.0.1:18789"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmp_path,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(b"")  # end of output

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def message(self) -> dict[str, Any]:
        line = self.lines.get(timeout=ANSWER_TIMEOUT)
        assert line, "serve closed its stdout"
        message = json.loads(line)  # stdout carries only JSON-RPC
        assert isinstance(message, dict)
        return message

    def roundtrip(
        self, request_id: int, method: str, params: Any = None, *, tolerated: frozenset[int] = frozenset()
    ) -> dict[str, Any]:
        """Send a request and return its answer; answers to the ``tolerated`` ids may come first."""
        self.write(request(request_id, method, params))
        while True:
            message = self.message()
            if message.get("id") in tolerated:
                continue
            assert message.get("id") == request_id, message
            return message

    def close_stdin_and_wait(self) -> tuple[int, float, bytes]:
        """Close stdin; the exit status, the seconds from the close to the exit, and stderr."""
        assert self.process.stdin is not None and self.process.stderr is not None
        closed = time.monotonic()
        self.process.stdin.close()
        status = self.process.wait(timeout=30)
        elapsed = time.monotonic() - closed
        return status, elapsed, self.process.stderr.read()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                try:
                    stream.close()
                except BrokenPipeError:
                    pass


@pytest.fixture
def serve(tmp_path: Path) -> Any:
    (tmp_path / "home").mkdir()
    process = Serve(tmp_path)
    try:
        yield process
    finally:
        process.kill()


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_input_is_ignored_the_next_request_is_answered_and_stdin_close_exits_in_one_second(
    serve: Serve, kind: str
) -> None:
    initialized = serve.roundtrip(1, "initialize", INITIALIZE)
    assert initialized["result"]["serverInfo"] == {"name": "openclaw", "version": "2026.9.6"}
    serve.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    serve.write(HOSTILE[kind])
    assert serve.roundtrip(2, "ping", tolerated=TOLERATED) == {"result": {}, "jsonrpc": "2.0", "id": 2}
    listed = serve.roundtrip(3, "tools/list", tolerated=TOLERATED)
    assert listed["result"]["tools"], listed
    status, elapsed, stderr = serve.close_stdin_and_wait()
    assert stderr == b""
    assert status == 0
    assert elapsed < EXIT_AFTER_CLOSE_SECONDS, f"exit took {elapsed:.2f} s after stdin closed"
    while line := serve.lines.get(timeout=5):  # nothing else, except (tolerated) answers to deep requests
        assert json.loads(line)["id"] in TOLERATED, line[:200]


def test_invalid_utf8_inside_a_request_is_replaced_and_the_request_answered(serve: Serve) -> None:
    serve.write(b'{"jsonrpc":"2.0","id":5,"method":"ping\xff"}\n')
    assert serve.message() == {"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "Method not found"}}
    serve.write(b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"\xc3"}}\n')
    answer = serve.message()
    assert answer["id"] == 6 and answer["result"]["isError"] is True
    assert serve.roundtrip(7, "ping")["result"] == {}
    status, elapsed, stderr = serve.close_stdin_and_wait()
    assert (status, stderr) == (0, b"")
    assert elapsed < EXIT_AFTER_CLOSE_SECONDS


@pytest.mark.parametrize("writes", ["one-write", "line-then-newline", "many-small-writes"])
def test_a_line_longer_than_the_sdk_buffer_closes_the_transport_however_it_arrives(serve: Serve, writes: str) -> None:
    """The SDK refuses to buffer more than 10 MiB: a line that is longer together with its newline closes the
    transport (exit 0, nothing on stderr), whether its newline comes in the same read or a later one."""
    assert serve.roundtrip(1, "ping")["result"] == {}
    line = b"z" * MAX_LINE_BYTES
    started = time.monotonic()
    try:
        if writes == "one-write":
            serve.write(line + b"\n" + request(2, "ping"))
        elif writes == "line-then-newline":
            serve.write(line)
            serve.write(b"\n" + request(2, "ping"))
        else:
            for offset in range(0, len(line), 1024 * 1024):
                serve.write(line[offset : offset + 1024 * 1024])
            serve.write(b"\n" + request(2, "ping"))
    except BrokenPipeError:
        pass  # the process may be gone before all of it is written
    status = serve.process.wait(timeout=30)
    elapsed = time.monotonic() - started
    assert serve.process.stderr is not None
    assert (status, serve.process.stderr.read()) == (0, b"")
    assert elapsed < 10
    assert serve.lines.get(timeout=5) == b""  # the request after the over-long line is not answered


def test_a_line_that_just_fits_the_sdk_buffer_is_read_and_the_session_goes_on(serve: Serve) -> None:
    serve.write(b"z" * (MAX_LINE_BYTES - 1) + b"\n" + request(2, "ping"))  # 10 MiB with its newline
    assert serve.message() == {"result": {}, "jsonrpc": "2.0", "id": 2}
    status, elapsed, stderr = serve.close_stdin_and_wait()
    assert (status, stderr) == (0, b"")
    assert elapsed < EXIT_AFTER_CLOSE_SECONDS


def test_stdin_closed_mid_line_exits_within_one_second(serve: Serve) -> None:
    assert serve.roundtrip(1, "ping")["result"] == {}
    serve.write(b'{"jsonrpc":"2.0","id":2,"method":"pi')  # no newline: never a complete message
    status, elapsed, stderr = serve.close_stdin_and_wait()
    assert (status, stderr) == (0, b"")
    assert elapsed < EXIT_AFTER_CLOSE_SECONDS
    assert serve.lines.get(timeout=5) == b""
