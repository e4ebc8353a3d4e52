"""Whole frames and an answer for every request on the stdio JSON-RPC servers (issue 32, defects 8 and 9).

* Defect 8: ``openclaw mcp serve`` stopped (SIGTERM, stdin EOF) while a large answer is being written to a reader
  that pauses must leave only whole lines on stdout: the frame being written is finished within the grace
  period (:data:`~openclaw_mcp.entrypoints.serve.transport.FRAME_GRACE_S`), none is begun after, and on a pipe a
  frame is handed to the kernel only when it fits whole (so a reader that reads only after the exit sees whole
  lines too). A reader that never reads does not keep the process alive beyond the grace period.
* Defect 9: integers of more than 4,300 digits and nesting deeper than Python's recursion limit are read as
  ``JSON.parse`` reads them; requests carrying them in their params are answered as the reference 2026.9.6
  answers them (recorded against its ``openclaw mcp serve``: ``ping`` → ``{}``, an unknown method → ``-32601``,
  ``events_poll`` with such an extra argument → its result), and a request whose id is such a number (an
  infinity in JavaScript) or an array is ignored, as the reference's SDK ignores it. An answer that cannot be
  written, or a failure while answering, is a ``-32603`` answer, never silence nor a crash.
"""

from __future__ import annotations

import json
import math
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.entrypoints.rpc_session import Pending, RpcSession
from openclaw_mcp.entrypoints.serve.jsonrpc import Request, parse_json, parse_message, result_response
from openclaw_mcp.entrypoints.serve.transport import FRAME_GRACE_S, StdioTransport
from openclaw_mcp.jscompat.jsjson import js_dumps
from openclaw_mcp.jscompat.jsonstrict import JsonSyntaxError, parse_json_strict
from tests.faults._process import ROOT
from tests.fixtures.stdio_lines import HUGE_INT as BIG
from tests.fixtures.stdio_lines import nested, raw_request
from tests.unit.serve_fakes import INITIALIZE

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

FAKE = "from tests.unit.serve_fakes import serve_with_memory_gateway; serve_with_memory_gateway()"
TIMEOUT_S = 30.0


def depth_of(value: Any) -> int:
    depth = 0
    while isinstance(value, list) and value:
        value, depth = value[0], depth + 1
    return depth + isinstance(value, list)


# --- parsing (defect 9) ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("literal", "value"), [(BIG, math.inf), ("-" + BIG, -math.inf), ("1" + "0" * 400, 1e400)])
def test_integer_literals_of_any_length_are_the_nearest_double(literal: str, value: float) -> None:
    assert parse_json(literal) == value
    assert parse_json_strict(literal) == value
    assert parse_json(f'{{"x":[{literal}]}}') == {"x": [value]}


def test_safe_and_unsafe_integers_keep_their_javascript_values() -> None:
    assert parse_json("[9007199254740991,-9007199254740991,12345678901234567,-0]") == [
        9007199254740991,
        -9007199254740991,
        12345678901234568.0,
        0,
    ]
    assert parse_json_strict("[9007199254740993, 12345678901234567890]") == [9007199254740992.0, 1.2345678901234567e19]


@pytest.mark.parametrize("depth", [1_000, 10_000, 100_000])
def test_nesting_of_any_depth_is_read(depth: int) -> None:
    assert depth_of(parse_json(nested(depth))) == depth
    value = parse_json('{"a":' * depth + "1" + "}" * depth)
    for _ in range(depth):
        value = value["a"]
    assert value == 1


def test_deep_text_that_is_not_json_is_still_refused_with_the_v8_message() -> None:
    with pytest.raises(ValueError, match="Unexpected end of JSON input"):
        parse_json("[" * 100_000)
    with pytest.raises(JsonSyntaxError, match="Expected ',' or ']' after array element"):
        parse_json("[" * 50_000 + "1 2")


def test_requests_with_huge_integers_or_deep_params_are_requests_and_such_ids_are_not() -> None:
    request = parse_message(raw_request("7", "ping", '{"x":' + BIG + ',"y":' + nested(50_000) + "}"))
    assert isinstance(request, Request) and request.id == 7 and request.params is not None
    assert request.params["x"] == math.inf and depth_of(request.params["y"]) == 50_000
    assert parse_message(raw_request(BIG, "ping")) is None  # Infinity is no id
    assert parse_message(raw_request(nested(5_000), "ping")) is None


def test_integers_beyond_the_double_range_are_written_as_json_stringify_writes_infinity() -> None:
    assert js_dumps({"a": 10**400, "b": -(10**400), "c": [10**21]}, None) == '{"a":null,"b":null,"c":[1e+21]}'


# --- RpcSession: every request answered (defect 9) ---------------------------------------------------------


class _Lines:
    """In-memory stdio for one :class:`RpcSession`: ``feed`` input lines, ``out`` the written frames."""

    def __init__(self) -> None:
        self._send, self._receive = anyio.create_memory_object_stream[bytes](100)
        self.out = bytearray()

    def feed(self, line: str) -> None:
        self._send.send_nowait(line.encode() + b"\n")

    def end(self) -> None:
        self._send.close()

    def close(self) -> None:
        self._send.close()
        self._receive.close()

    async def read(self) -> bytes:
        try:
            return await self._receive.receive()
        except anyio.EndOfStream:
            return b""

    async def write(self, data: bytes) -> None:
        self.out += data

    def messages(self) -> list[dict[str, Any]]:
        assert self.out.endswith(b"\n") or not self.out
        return [json.loads(line) for line in self.out.splitlines()]


def _deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


async def _serve(lines: list[str], respond: Any) -> list[dict[str, Any]]:
    stdio = _Lines()
    closed = anyio.Event()
    session = RpcSession(StdioTransport(stdio, stdio, on_close=closed.set), respond)
    for line in lines:
        stdio.feed(line)
    stdio.end()
    try:
        with anyio.fail_after(TIMEOUT_S):
            async with anyio.create_task_group() as tg:
                await tg.start(session.run)
                await closed.wait()
                await session.close()
    finally:
        stdio.close()
    return stdio.messages()


@pytest.mark.asyncio
async def test_a_failure_while_answering_is_a_32603_answer_not_a_crash() -> None:
    def respond(request: Request) -> dict[str, Any] | Pending:
        if request.method == "boom":
            raise RuntimeError("secret detail")
        if request.method == "deep":
            raise RecursionError("maximum recursion depth exceeded")

        async def run() -> dict[str, Any]:
            raise RecursionError("maximum recursion depth exceeded")

        return Pending(run)

    lines = [json.dumps({"jsonrpc": "2.0", "id": name, "method": name}) for name in ("boom", "deep", "later")]
    answers = await _serve(lines, respond)
    assert {answer["id"]: answer["error"] for answer in answers} == {
        "boom": {"code": -32603, "message": "Internal error"},
        "deep": {"code": -32603, "message": "Maximum call stack size exceeded"},
        "later": {"code": -32603, "message": "Maximum call stack size exceeded"},
    }


@pytest.mark.asyncio
async def test_an_answer_too_deep_to_write_is_a_32603_answer_and_the_session_goes_on() -> None:
    def respond(request: Request) -> dict[str, Any] | Pending:
        if request.method == "now":
            return result_response(request.id, {"v": _deep_list(100_000)})

        async def run() -> dict[str, Any]:
            return result_response(request.id, {"v": _deep_list(100_000)})

        return Pending(run) if request.method == "later" else result_response(request.id, {})

    methods = ("now", "later", "ping")
    answers = await _serve([json.dumps({"jsonrpc": "2.0", "id": m, "method": m}) for m in methods], respond)
    by_id = {answer["id"]: answer for answer in answers}
    deep_error = {"code": -32603, "message": "Maximum call stack size exceeded"}
    assert by_id["now"]["error"] == deep_error and by_id["later"]["error"] == deep_error
    assert by_id["ping"] == {"result": {}, "jsonrpc": "2.0", "id": "ping"}


class _SlowSink:
    """Takes the first half of a frame at once, the rest once ``resume`` is set (a reader that pauses)."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.half_written = anyio.Event()
        self.resume = anyio.Event()

    async def write(self, data: bytes) -> None:
        half = len(data) // 2
        self.out += data[:half]
        self.half_written.set()
        await self.resume.wait()
        self.out += data[half:]


@pytest.mark.asyncio
async def test_a_frame_begun_is_finished_when_its_session_is_cancelled_from_outside() -> None:
    """A crash elsewhere cancels the session while an answer is half written: the frame is still finished."""
    stdio, sink = _Lines(), _SlowSink()
    session = RpcSession(StdioTransport(stdio, sink), lambda request: result_response(request.id, {"x": "y" * 1000}))
    stdio.feed(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}))

    async def reader_resumes() -> None:
        await sink.half_written.wait()
        await anyio.sleep(0.2)
        sink.resume.set()

    try:
        with anyio.fail_after(TIMEOUT_S):
            async with anyio.create_task_group() as outer:
                outer.start_soon(reader_resumes)
                async with anyio.create_task_group() as tg:
                    await tg.start(session.run)
                    await sink.half_written.wait()
                    tg.cancel_scope.cancel()  # as a failing sibling task would
    finally:
        stdio.close()
    assert json.loads(sink.out) == {"result": {"x": "y" * 1000}, "jsonrpc": "2.0", "id": 1}


@pytest.mark.asyncio
async def test_a_frame_whose_reader_never_resumes_is_given_up_after_the_grace_period() -> None:
    stdio, sink = _Lines(), _SlowSink()
    session = RpcSession(StdioTransport(stdio, sink), lambda request: result_response(request.id, {}))
    stdio.feed(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
    try:
        with anyio.fail_after(FRAME_GRACE_S + 10):
            async with anyio.create_task_group() as tg:
                await tg.start(session.run)
                await sink.half_written.wait()
                started = anyio.current_time()
                tg.cancel_scope.cancel()
        assert anyio.current_time() - started < FRAME_GRACE_S + 2
    finally:
        stdio.close()


# --- real `openclaw mcp serve` processes -------------------------------------------------------------------


class RawServe:
    """``openclaw mcp serve`` against the in-memory Gateway, its stdout read only when the test says so."""

    def __init__(self, tmp_path: Path) -> None:
        (tmp_path / "home").mkdir(exist_ok=True)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(ROOT),
            "OPENCLAW_STATE_DIR": str(tmp_path / "state"),
            "OPENCLAW_CONFIG_PATH": str(tmp_path / "state" / "openclaw.json"),
            "HOME": str(tmp_path / "home"),
            "LANG": "C.UTF-8",
        }
        self.stderr_path = tmp_path / "stderr.txt"
        with self.stderr_path.open("wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-c", FAKE, "--url", "ws://127.0.0.1:18789"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
                cwd=tmp_path,
            )
        self.out = bytearray()

    def send(self, message: dict[str, Any] | str) -> None:
        assert self.process.stdin is not None
        line = message if isinstance(message, str) else json.dumps(message)
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def read_available(self, until: float) -> bool:
        """Read stdout until ``until`` (monotonic) or its end; ``True`` at its end."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while (left := until - time.monotonic()) > 0:
                if selector.select(left):
                    chunk = os.read(fd, 1 << 20)
                    if not chunk:
                        return True
                    self.out += chunk
        return False

    def answer(self, request_id: Any) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            for line in self.out.split(b"\n")[:-1]:
                message = json.loads(line)
                if message.get("id") == request_id:
                    return dict(message)
            assert not self.read_available(min(deadline, time.monotonic() + 0.2)), self.out[-300:]
            assert time.monotonic() < deadline, f"no answer to {request_id!r}"

    def read_to_end(self) -> None:
        assert self.read_available(time.monotonic() + TIMEOUT_S), "stdout did not end"

    def lines(self) -> list[dict[str, Any]]:
        """Every stdout line as JSON; stdout must end with a newline (no frame cut short)."""
        assert self.out.endswith(b"\n"), self.out[-200:]
        return [json.loads(line) for line in self.out.split(b"\n")[:-1]]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=TIMEOUT_S)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except BrokenPipeError:
                    pass


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[RawServe]:
    process = RawServe(tmp_path)
    try:
        process.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE})
        assert process.answer(1)["result"]["serverInfo"]["name"] == "openclaw"
        process.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield process
    finally:
        process.stop()


def _stop(serve: RawServe, how: str) -> None:
    if how == "sigterm":
        serve.process.send_signal(signal.SIGTERM)
    else:
        assert serve.process.stdin is not None
        serve.process.stdin.close()


@pytest.mark.parametrize("how", ["sigterm", "eof"])
@pytest.mark.parametrize("id_bytes", [200_000, 2_000_000])
def test_a_large_answer_to_a_paused_reader_is_whole_when_serve_stops(serve: RawServe, how: str, id_bytes: int) -> None:
    """The reader pauses while a large answer (a 200 KB id; a 2 MB one, larger than any pipe can grow) is being
    written, serve is stopped, then the reader reads everything: every line is whole JSON."""
    big_id = "x" * id_bytes
    serve.send({"jsonrpc": "2.0", "id": big_id, "method": "ping"})
    time.sleep(0.5)  # the reader pauses: the answer waits on the full pipe
    _stop(serve, how)
    time.sleep(0.3)
    serve.read_to_end()
    assert serve.process.wait(timeout=TIMEOUT_S) == 0
    assert serve.lines()[-1] == {"result": {}, "jsonrpc": "2.0", "id": big_id}


@pytest.mark.parametrize("how", ["sigterm", "eof"])
def test_a_reader_that_reads_only_after_the_exit_sees_whole_lines(serve: RawServe, how: str) -> None:
    """On a pipe a frame is handed over only when it fits whole: after the stop, the process exits at once
    (the 200 KB answer is in the pipe whole, the second one never begun) and what it left is whole lines."""
    serve.send({"jsonrpc": "2.0", "id": "a" * 200_000, "method": "ping"})
    time.sleep(0.5)
    started = time.monotonic()
    _stop(serve, how)
    assert serve.process.wait(timeout=TIMEOUT_S) == 0
    assert time.monotonic() - started < FRAME_GRACE_S
    serve.read_to_end()
    assert [line["id"] for line in serve.lines()] == [1, "a" * 200_000]


def test_a_reader_that_never_reads_delays_the_exit_by_the_grace_period_at_most(serve: RawServe) -> None:
    serve.send({"jsonrpc": "2.0", "id": "y" * 2_000_000, "method": "ping"})
    time.sleep(0.5)
    started = time.monotonic()
    serve.process.send_signal(signal.SIGTERM)
    assert serve.process.wait(timeout=FRAME_GRACE_S + 10) == 0
    assert time.monotonic() - started < FRAME_GRACE_S + 5
    assert b"Traceback" not in serve.stderr_path.read_bytes()


_EVENTS_0 = {
    "result": {
        "content": [{"type": "text", "text": "events: 0"}],
        "structuredContent": {"events": [], "next_cursor": 0},
    }
}
_NOT_FOUND = {"error": {"code": -32601, "message": "Method not found"}}


def _poll_with(value: str) -> str:
    return raw_request('"q"', "tools/call", '{"name":"events_poll","arguments":{"zz":' + value + "}}")


# (name, request line with id "q", the reference's answer without jsonrpc/id; None: no answer)
REFERENCE_ANSWERS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("huge-int-in-params", raw_request('"q"', "ping", '{"x":' + BIG + "}"), {"result": {}}),
    ("huge-int-unknown-method", raw_request('"q"', "nope", '{"x":' + BIG + "}"), _NOT_FOUND),
    ("huge-int-tool-argument", _poll_with(BIG), _EVENTS_0),
    ("huge-int-id", raw_request(BIG, "ping"), None),
    ("huge-negative-int-id", raw_request("-" + BIG, "ping"), None),
]
for _depth in (1_000, 10_000, 100_000):
    _deep_object = '{"a":' * _depth + "1" + "}" * _depth
    REFERENCE_ANSWERS += [
        (f"deep-{_depth}-params", raw_request('"q"', "ping", '{"x":' + nested(_depth) + "}"), {"result": {}}),
        (f"deep-{_depth}-object-params", raw_request('"q"', "ping", '{"x":' + _deep_object + "}"), {"result": {}}),
        (f"deep-{_depth}-unknown-method", raw_request('"q"', "nope", '{"x":' + nested(_depth) + "}"), _NOT_FOUND),
        (f"deep-{_depth}-tool-argument", _poll_with(nested(_depth)), _EVENTS_0),
        (f"deep-{_depth}-id", raw_request(nested(_depth), "ping"), None),
        (f"deep-{_depth}-bare", nested(_depth), None),
    ]


def test_huge_integers_and_deep_nesting_are_answered_as_the_reference_answers(serve: RawServe) -> None:
    for number, (name, line, expected) in enumerate(REFERENCE_ANSWERS):
        serve.out.clear()
        serve.send(line)
        marker = f"after-{number}"
        serve.send({"jsonrpc": "2.0", "id": marker, "method": "ping"})
        assert serve.answer(marker)["result"] == {}, name
        if expected is not None and not any(json.loads(raw).get("id") == "q" for raw in serve.out.splitlines()):
            serve.answer("q")  # a tool call may be answered after the next request
        answers = [json.loads(raw) for raw in serve.out.splitlines() if json.loads(raw).get("id") != marker]
        if expected is None:
            assert answers == [], name
        else:
            assert answers == [{**expected, "jsonrpc": "2.0", "id": "q"}], name
    assert serve.process.poll() is None
    assert serve.process.stdin is not None
    serve.process.stdin.close()
    assert serve.process.wait(timeout=TIMEOUT_S) == 0
    assert serve.stderr_path.read_bytes() == b""
