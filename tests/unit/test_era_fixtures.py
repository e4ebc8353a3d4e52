"""The protocol-era fixtures themselves (spec protocol-eras §5.0) behave as the spec's transcripts say: the SDK
servers of ``era_servers.py`` (OBS-3, OBS-4, OBS-2), the hand-written ``era_hand.py`` and its knobs, the stdio tap,
the HTTP wire log and the normaliser of ``era_wire.py``. Raw pipes and raw HTTP, so every byte is visible."""

from __future__ import annotations

import http.client
import json
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import era_wire as ew

READ_TIMEOUT_S = 30.0
E = ew.ENVELOPE
SERVER_INFO_META = {"io.modelcontextprotocol/serverInfo": {"name": "era-test", "version": ""}}
HAND_META = {"io.modelcontextprotocol/serverInfo": {"name": "era-hand", "version": "1.0.0"}}

OBS3_SDK_STDIO = (
    '{"jsonrpc":"2.0","id":0,"error":{"code":-32022,"message":"connection is serving the 2026-07-28 protocol; the '
    'initialize handshake is not accepted","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}'
)
OBS3_HAND = '{"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "Method not found"}}'
OBS3_SDK_HTTP = (
    '{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"params._meta must be an object carrying the required '
    "'io.modelcontextprotocol/protocolVersion' and 'io.modelcontextprotocol/clientCapabilities' envelope keys\"}}"
)
OBS2_TS_HTTP = (
    '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Unsupported protocol version: 2026-07-28 '
    '(supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)"},"id":null}'
)
OBS4_DISCOVER = (
    '{"jsonrpc":"2.0","id":1,"result":{"cacheScope":"private","capabilities":{"prompts":{"listChanged":true},'
    '"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}},"resultType":"complete",'
    '"supportedVersions":["2026-07-28"],"ttlMs":0,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"era-test",'
    '"version":""}}}}'
)
OBS4_CALL = (
    '{"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"echo:hi","type":"text"}],"isError":false,'
    '"resultType":"complete","structuredContent":{"result":"echo:hi"},"_meta":{"io.modelcontextprotocol/serverInfo":'
    '{"name":"era-test","version":""}}}}'
)
ECHO_TOOL_OBS4 = {
    "description": "Echo the text back.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"title": "Text", "type": "string"}},
        "required": ["text"],
        "title": "echoArguments",
    },
    "name": "echo",
}


# ---------------------------------------------------------------- raw stdio


class Pipe:
    """A spawned stdio process read line by line on its raw stdout."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.buffer = bytearray()

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode() + b"\n")
        self.process.stdin.flush()

    def read_line(self, timeout_s: float = READ_TIMEOUT_S) -> str | None:
        """The next stdout line (without its newline); ``None`` at end of output."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                if not selector.select(max(0.0, deadline - time.monotonic())):
                    raise TimeoutError(f"no line within {timeout_s} s")
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return None
                self.buffer += chunk
        text, _, rest = bytes(self.buffer).partition(b"\n")
        self.buffer = bytearray(rest)
        return text.decode()

    def read_message(self, timeout_s: float = READ_TIMEOUT_S) -> dict[str, Any]:
        text = self.read_line(timeout_s)
        assert text is not None, "the server closed stdout"
        message = json.loads(text)
        assert isinstance(message, dict)
        return message

    def silent_for(self, seconds: float) -> bool:
        try:
            self.read_line(seconds)
        except TimeoutError:
            return True
        return False

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()


@contextmanager
def spawn(command: list[str], env: Mapping[str, str] | None = None, stderr: Path | None = None) -> Iterator[Pipe]:
    full_env = {**os.environ, **(env or {})}
    err = stderr.open("wb") if stderr is not None else None
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=err if err is not None else subprocess.DEVNULL,
        env=full_env,
    )
    try:
        yield Pipe(process)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        for stream in (process.stdin, process.stdout):
            if stream is not None and not stream.closed:
                stream.close()
        if err is not None:
            err.close()


def era_server(mode: str) -> list[str]:
    return ew.era_server_command(mode)


def hand() -> list[str]:
    return [ew.PYTHON, str(ew.ERA_HAND)]


def req(request_id: int, method: str, params: dict[str, Any] | None = None, *, envelope: bool = True) -> str:
    return ew.request(request_id, method, ew.enveloped(params) if envelope else params)


# ---------------------------------------------------------------- era_servers.py over stdio


def test_stdio_modern_refuses_initialize_then_answers_obs4() -> None:
    with spawn(era_server("stdio-modern")) as server:
        server.send(ew.INITIALIZE_LINE)
        assert server.read_line() == OBS3_SDK_STDIO
        server.send(req(1, "server/discover"))
        assert server.read_line() == OBS4_DISCOVER
        server.send(req(2, "tools/list"))
        listing = server.read_message()
        assert listing["id"] == 2
        result = listing["result"]
        assert (result["resultType"], result["ttlMs"], result["cacheScope"]) == ("complete", 0, "private")
        assert result["_meta"] == SERVER_INFO_META
        tools = {tool["name"]: tool for tool in result["tools"]}
        assert set(tools) == {"echo", "slow"}
        assert {key: value for key, value in tools["echo"].items() if key != "outputSchema"} == ECHO_TOOL_OBS4
        server.send(req(3, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}))
        assert server.read_line() == OBS4_CALL
        server.send(req(4, "tools/call", {"name": "slow", "arguments": {"ms": 10}}))
        assert server.read_message()["result"]["content"] == [{"text": "slept", "type": "text"}]
        server.send(req(8, "ping"))
        assert server.read_message() == {
            "jsonrpc": "2.0",
            "id": 8,
            "error": {"code": -32601, "message": "Method not found", "data": "ping"},
        }
        server.close_stdin()
        assert server.read_line() is None
        assert server.process.wait(timeout=10) == 0


def test_stdio_dual_accepts_initialize() -> None:
    with spawn(era_server("stdio-dual")) as server:
        server.send(ew.INITIALIZE_LINE)
        answer = server.read_message()
        assert answer["result"]["protocolVersion"] == "2025-11-25"
        assert answer["result"]["serverInfo"] == {"name": "era-test", "version": ""}
        server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        server.send(req(1, "tools/list", envelope=False))
        listing = server.read_message()["result"]
        assert "resultType" not in listing
        assert [tool["name"] for tool in listing["tools"]] == ["echo", "slow"]


def test_stdio_dual_opens_modern_on_an_enveloped_first_request() -> None:
    with spawn(era_server("stdio-dual")) as server:
        server.send(req(1, "server/discover"))
        assert server.read_line() == OBS4_DISCOVER


# ---------------------------------------------------------------- era_hand.py


def test_hand_answers_obs3_then_the_2026_methods() -> None:
    with spawn(hand()) as server:
        server.send(ew.INITIALIZE_LINE)
        assert server.read_line() == OBS3_HAND
        server.send(req(1, "server/discover"))
        assert server.read_message() == {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "ttlMs": 0,
                "cacheScope": "private",
                "_meta": HAND_META,
            },
        }
        server.send(req(2, "tools/list"))
        listing = server.read_message()["result"]
        assert [tool["name"] for tool in listing["tools"]] == ["echo"]
        assert (listing["ttlMs"], listing["cacheScope"], listing["resultType"]) == (0, "private", "complete")
        server.send(req(3, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}))
        assert server.read_message()["result"] == {
            "resultType": "complete",
            "content": [{"type": "text", "text": "echo:hi"}],
            "isError": False,
            "_meta": HAND_META,
        }
        server.send(req(4, "tools/call", {"name": "nope", "arguments": {}}))
        assert server.read_message()["result"]["content"] == [{"type": "text", "text": "Unknown tool: nope"}]


def test_hand_refusals() -> None:
    old = {**E, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}
    with spawn(hand()) as server:
        server.send(req(1, "tools/list", envelope=False))
        assert server.read_message()["error"] == {"code": -32602, "message": "Missing required _meta envelope keys"}
        server.send(ew.request(2, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}))
        assert server.read_message()["error"]["code"] == -32602
        server.send(ew.request(3, "tools/list", ew.enveloped(meta=old)))
        assert server.read_message() == {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2026-07-28"], "requested": "1900-01-01"},
            },
        }
        for request_id, method in ((4, "ping"), (5, "subscriptions/listen"), (6, "resources/list")):
            server.send(req(request_id, method))
            assert server.read_message() == {
                "jsonrpc": "2.0",
                "id": request_id,
                "error": {"code": -32601, "message": "Method not found"},
            }
        server.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"x"}}')
        server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        assert server.silent_for(0.3)
        server.close_stdin()
        assert server.read_line() is None
        assert server.process.wait(timeout=10) == 0


@pytest.mark.parametrize(
    "error",
    [
        {"code": -32603, "message": "boom"},
        {"code": -32022, "message": "x", "data": {"supported": ["2099-01-01"], "requested": "2025-11-25"}},
    ],
)
def test_hand_init_error(error: dict[str, Any]) -> None:
    with spawn(hand(), {"ERA_INIT_ERROR": json.dumps(error)}) as server:
        server.send(ew.INITIALIZE_LINE)
        assert server.read_line() == json.dumps({"jsonrpc": "2.0", "id": 0, "error": error})


def test_hand_ttl() -> None:
    with spawn(hand(), {"ERA_TTL_MS": "60000"}) as server:
        server.send(req(1, "server/discover"))
        assert server.read_message()["result"]["ttlMs"] == 60000
        server.send(req(2, "tools/list"))
        assert server.read_message()["result"]["ttlMs"] == 60000


def test_hand_list_changed() -> None:
    subscription = {"_meta": {"io.modelcontextprotocol/subscriptionId": 2}}
    with spawn(hand(), {"ERA_LIST_CHANGED": "300"}) as server:
        server.send(req(1, "server/discover"))
        assert server.read_message()["result"]["capabilities"] == {"tools": {"listChanged": True}}
        started = time.monotonic()
        server.send(req(2, "subscriptions/listen", {"notifications": {"toolsListChanged": True}}))
        assert server.read_message() == {
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {"notifications": {"toolsListChanged": True}, **subscription},
        }
        assert server.read_message() == {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": subscription,
        }
        assert time.monotonic() - started >= 0.25
        assert server.silent_for(0.3)  # the stream stays open: no result


def test_hand_input_required_state() -> None:
    call = {"name": "echo", "arguments": {"text": "hi"}}
    with spawn(hand(), {"ERA_INPUT_REQUIRED": "state"}) as server:
        server.send(req(1, "tools/call", call))
        assert server.read_message()["result"] == {
            "resultType": "input_required",
            "_meta": HAND_META,
            "requestState": "s1",
        }
        server.send(req(2, "tools/call", {**call, "requestState": "s1"}))
        assert server.read_message()["result"]["content"] == [{"type": "text", "text": "echo:hi"}]


def test_hand_input_required_elicit() -> None:
    with spawn(hand(), {"ERA_INPUT_REQUIRED": "elicit"}) as server:
        server.send(req(1, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}))
        result = server.read_message()["result"]
        assert result["resultType"] == "input_required"
        assert "requestState" not in result
        assert [(key, value["method"]) for key, value in result["inputRequests"].items()] == [
            ("confirm", "elicitation/create")
        ]


def test_hand_delays_and_cancellation() -> None:
    env = {"ERA_DELAY_DISCOVER_MS": "400", "ERA_SLOW_CALL_MS": "400"}
    with spawn(hand(), env) as server:
        started = time.monotonic()
        server.send(req(1, "server/discover"))
        server.send(req(2, "tools/list"))
        assert server.read_message()["id"] == 2  # not held up by the delayed discover
        assert server.read_message()["id"] == 1
        assert time.monotonic() - started >= 0.35
        server.send(req(3, "tools/call", {"name": "echo", "arguments": {"text": "a"}}))
        server.send(req(4, "tools/call", {"name": "echo", "arguments": {"text": "b"}}))
        server.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"timeout"}}')
        answer = server.read_message()
        assert answer["id"] == 4
        assert answer["result"]["content"] == [{"type": "text", "text": "echo:b"}]
        assert server.silent_for(0.6)
        server.send(req(5, "tools/call", {"name": "echo", "arguments": {"text": "c"}}))
        server.close_stdin()  # pending answers are still written at end of input
        assert server.read_message()["id"] == 5
        assert server.read_line() is None
        assert server.process.wait(timeout=10) == 0


# ---------------------------------------------------------------- the tap


def test_tap_records_both_directions(tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    with spawn([ew.PYTHON, str(ew.TAP), str(log), *hand()]) as tap:
        tap.send(ew.INITIALIZE_LINE)
        assert tap.read_line() == OBS3_HAND
        tap.send(req(1, "server/discover"))
        discover = tap.read_line()
        tap.close_stdin()
        assert tap.read_line() is None
        assert tap.process.wait(timeout=10) == 0
    assert log.read_text(encoding="utf-8") == (
        f"C> {ew.INITIALIZE_LINE}\nS> {OBS3_HAND}\nC> {req(1, 'server/discover')}\nS> {discover}\n"
    )


EXITING = """
import sys
sys.stderr.write("to stderr\\n"); sys.stderr.flush()
print(sys.stdin.readline().strip().upper(), flush=True)
sys.stdout.write("no newline")
sys.exit(7)
"""

TRAPPING = """
import signal, sys
def stop(signum, frame):
    print(f"got {signum}", flush=True)
    sys.exit(3)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
signal.pause()
"""


def test_tap_passes_stderr_and_exit_code(tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    with spawn([ew.PYTHON, str(ew.TAP), str(log), ew.PYTHON, "-c", EXITING], stderr=tmp_path / "err") as tap:
        tap.send("hello")
        assert tap.read_line() == "HELLO"
        assert tap.read_line() is None
        assert bytes(tap.buffer) == b"no newline"
        assert tap.process.wait(timeout=10) == 7
    assert (tmp_path / "err").read_text() == "to stderr\n"
    assert log.read_text(encoding="utf-8") == "C> hello\nS> HELLO\nS> no newline\n"


def test_tap_forwards_sigterm(tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    with spawn([ew.PYTHON, str(ew.TAP), str(log), ew.PYTHON, "-c", TRAPPING]) as tap:
        assert tap.read_line() == "ready"
        tap.process.send_signal(signal.SIGTERM)
        assert tap.read_line() == f"got {int(signal.SIGTERM)}"
        assert tap.read_line() is None
        assert tap.process.wait(timeout=10) == 3


# ---------------------------------------------------------------- HTTP modes


@contextmanager
def http_server(mode: str, tmp_path: Path) -> Iterator[ew.HttpServer]:
    server = ew.start_http_server(mode, wire_log=tmp_path / "http.log", stderr=tmp_path / "server.err")
    try:
        yield server
    finally:
        assert ew.stop_http_server(server) == 0


def post(
    port: int, body: str, headers: Mapping[str, str] | None = None, method: str = "POST"
) -> tuple[int, dict[str, str], str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_TIMEOUT_S)
    try:
        sent = {"accept": "application/json, text/event-stream", "content-type": "application/json", **(headers or {})}
        connection.request(method, "/mcp", body=body.encode() if body else None, headers=sent)
        response = connection.getresponse()
        payload = response.read().decode()
        return response.status, {key.lower(): value for key, value in response.getheaders()}, payload
    finally:
        connection.close()


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    return headers


def test_http_modern(tmp_path: Path) -> None:
    with http_server("http-modern", tmp_path) as server:
        status, headers, body = post(server.port, ew.INITIALIZE_LINE)
        assert (status, headers["content-type"], body) == (400, "application/json", OBS3_SDK_HTTP)
        status, headers, body = post(server.port, req(1, "server/discover"), modern_headers("server/discover"))
        assert (status, body) == (200, OBS4_DISCOVER)
        assert "mcp-session-id" not in headers
        call = req(3, "tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        status, _, body = post(server.port, call, modern_headers("tools/call", "echo"))
        assert (status, body) == (200, OBS4_CALL)
        status, headers, _ = post(server.port, "", method="GET")
        assert (status, headers["allow"]) == (405, "POST")
    records = ew.exchanges((tmp_path / "http.log").read_text(encoding="utf-8"))
    assert [(item.method, item.rpc_method, item.status) for item in records] == [
        ("POST", "initialize", 400),
        ("POST", "server/discover", 200),
        ("POST", "tools/call", 200),
        ("GET", None, 405),
    ]
    assert "mcp-protocol-version" not in records[0].request_headers
    assert records[2].request_headers["mcp-name"] == "echo"
    assert records[2].request_headers["mcp-protocol-version"] == "2026-07-28"
    assert records[2].response_body == OBS4_CALL
    assert records[0].response_body == OBS3_SDK_HTTP


def test_http_legacy_and_dual(tmp_path: Path) -> None:
    discover = req(1, "server/discover")
    with http_server("http-legacy", tmp_path) as server:
        status, headers, body = post(server.port, discover, modern_headers("server/discover"))
        assert (status, headers["content-type"], body) == (400, "application/json", OBS2_TS_HTTP)
        status, headers, _ = post(server.port, ew.INITIALIZE_LINE)
        assert status == 200 and len(headers["mcp-session-id"]) == 32
    dual = tmp_path / "dual"
    dual.mkdir()
    with http_server("http-dual", dual) as server:
        status, headers, body = post(server.port, discover, modern_headers("server/discover"))
        assert (status, body) == (200, OBS4_DISCOVER)
        assert "mcp-session-id" not in headers
        status, headers, body = post(server.port, ew.INITIALIZE_LINE)
        assert status == 200 and len(headers["mcp-session-id"]) == 32
        assert '"protocolVersion":"2025-11-25"' in body
    legacy = ew.exchanges((tmp_path / "http.log").read_text(encoding="utf-8"))
    assert [(item.rpc_method, item.status) for item in legacy] == [("server/discover", 400), ("initialize", 200)]
    assert "<sid>" in ew.normalise(legacy[1].text)


# ---------------------------------------------------------------- era_wire.py


def test_normalise() -> None:
    home = Path("/tmp/era-golden-abc")
    placeholders = ew.placeholders_for(home, source_root=Path("/tmp/golden-src"))
    text = (
        f"{ew.PYTHON} {ew.ROOT}/tests/fixtures/stdio_tap.py {home}/wire.log at /tmp/golden-src/x.py\n"
        "mcp-session-id: 0123456789abcdef0123456789abcdef\nhttp://127.0.0.1:41234/mcp "
        '"generatedAt": "2026-12-07T20:59:28.443Z"\n'
    )
    assert ew.normalise(text, placeholders) == (
        "<python> <root>/tests/fixtures/stdio_tap.py <home>/wire.log at <src>/x.py\n"
        'mcp-session-id: <sid>\nhttp://127.0.0.1:<port>/mcp "generatedAt": "<date>"\n'
    )


def test_canonical_http_log_moves_get_after_initialized() -> None:
    def record(method: str, body: str) -> str:
        return f"=== {method} /mcp\naccept: */*\n\n{body}\n--- 200\ncontent-length: 0\n\n\n\n"

    initialized = record("POST", '{"jsonrpc":"2.0","method":"notifications/initialized"}')
    listing = record("POST", '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    raw = record("POST", "{}") + initialized + listing + record("GET", "") + record("DELETE", "")
    canonical = ew.canonical_http_log(raw)
    assert [item.method for item in ew.exchanges(canonical)] == ["POST", "POST", "GET", "POST", "DELETE"]
    assert ew.canonical_http_log(canonical) == canonical
    parsed = ew.exchanges(canonical)[2]
    assert (parsed.request_headers, parsed.request_body, parsed.status) == ({"accept": "*/*"}, "", 200)


def test_goldens_are_normalised() -> None:
    goldens = sorted(ew.ERA_GOLDENS.glob("legacy-*"))
    if not goldens:
        pytest.skip("legacy goldens not recorded")
    for path in goldens:
        text = path.read_text(encoding="utf-8")
        for raw in ("/tmp/", str(ew.ROOT), ew.PYTHON, str(Path.home())):
            assert raw not in text, (path.name, raw)
