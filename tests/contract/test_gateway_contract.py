"""Contract of the ``Gateway`` port (application/gateway_ports.py): must pass for every implementation.

Harnesses (one per adapter; each test gets a fresh one with a fresh device identity store):

- ``memory``: ``InMemoryGateway`` (token ``contract-token``, canned answers like the real Gateway's).
- ``websockets``: ``WebsocketsGateway`` + ``SqliteDeviceIdentityStore`` against the loopback fake Gateway of
  tests/fixtures/fake_gateway.py (same token and canned answers).
- ``reference``: ``WebsocketsGateway`` + ``SqliteDeviceIdentityStore`` against a real OpenClaw 2026.9.6
  Gateway, marked ``reference``. It is consumed through two environment variables, set by whoever started
  that Gateway (the real-Gateway fixture, see gateway-protocol.md §9.5):

  * ``OPENCLAW_TEST_GATEWAY_URL`` — e.g. ``ws://127.0.0.1:18931``; unset → these cases are skipped;
  * ``OPENCLAW_TEST_GATEWAY_TOKEN`` — the Gateway's shared token (``gateway run --auth token --token …``).

  Every case connects a fresh device (a new ``<tmp>/state/openclaw.sqlite``), which the Gateway pairs
  silently on loopback. Only stock methods are called (``sessions.describe`` of an unknown key,
  ``exec.approval.resolve`` of an unknown id), two cases send a wrong / no token (mind ``AUTH_RATE_LIMITED``
  when running the suite many times against one Gateway), nothing is written to the Gateway's sessions.
  Cases that need to script the Gateway (handlers, events, outages, rejections) are skipped for it.

Only the port is used for assertions, plus the harness's controls of the Gateway side.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.device_identity import InMemoryDeviceIdentityStore
from openclaw_mcp.adapters.memory.gateway import InMemoryGateway, hang
from openclaw_mcp.adapters.sqlite.device_identity import SqliteDeviceIdentityStore
from openclaw_mcp.adapters.ws import WebsocketsGateway
from openclaw_mcp.application.ports.gateway import (
    DeviceIdentityStore,
    Gateway,
    GatewayClosed,
    GatewayConnection,
    GatewayError,
    GatewayEvent,
    GatewayNotConnected,
    GatewayRequestError,
    GatewaySettings,
    GatewayStopped,
    GatewayTimeout,
)
from openclaw_mcp.jscompat.undefined import UNDEFINED
from tests.fixtures.fake_gateway import FakeGateway, MethodError
from tests.fixtures.http_servers import closed_port

pytestmark = pytest.mark.asyncio

TOKEN = "contract-token"
TOKEN_MISMATCH = "unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)"
TOKEN_MISSING = "unauthorized: gateway token missing (use this gateway's gateway.auth.token or pair the device)"
UNKNOWN_APPROVAL = {
    "code": "INVALID_REQUEST",
    "message": "unknown or expired approval id",
    "details": {
        "reason": "APPROVAL_NOT_FOUND",
        "remediation": "Re-request the action; pending approvals are cleared after expiry or restart.",
    },
}
UNAVAILABLE = {"code": "UNAVAILABLE", "message": "gateway busy", "retryable": True}


# --- harnesses -----------------------------------------------------------------------------------------


@dataclass
class Harness:
    """One adapter wired to a Gateway, plus the controls a test may use on the Gateway side."""

    name: str
    gateway: Gateway
    store: DeviceIdentityStore
    url: str
    token: str | None
    timeout: float = 5.0
    features: frozenset[str] = frozenset()
    """``script`` (handlers, rejections, connect counts), ``events``, ``outage``."""
    unreachable: Callable[[], AbstractAsyncContextManager[tuple[Gateway, GatewaySettings, str]]] | None = None
    answer: Callable[[str, Any], None] = field(default=lambda method, payload: None)
    fail: Callable[[str, dict[str, Any]], None] = field(default=lambda method, shape: None)
    hang: Callable[[str], None] = field(default=lambda method: None)
    push: Callable[[str, Any, int | None], Awaitable[None]] | None = None
    outage: Callable[[], Awaitable[None]] | None = None
    restore: Callable[[], Awaitable[None]] | None = None
    reject_connects: Callable[[dict[str, Any] | None], None] = field(default=lambda shape: None)
    handshakes: Callable[[], int] = field(default=lambda: 0)
    subscribes: Callable[[], int] = field(default=lambda: 0)

    def settings(self, **changes: Any) -> GatewaySettings:
        return replace(GatewaySettings(url=self.url, token=self.token), **changes)

    def require(self, *features: str) -> None:
        missing = [feature for feature in features if feature not in self.features]
        if missing:
            pytest.skip(f"the {self.name} harness cannot {', '.join(missing)}")


def _request_error(shape: dict[str, Any]) -> GatewayRequestError:
    return GatewayRequestError(
        shape["message"], shape["code"], shape.get("details"), shape.get("retryable") is True, shape.get("retryAfterMs")
    )


@asynccontextmanager
async def memory_harness(tmp_path: Path) -> AsyncIterator[Harness]:
    store = InMemoryDeviceIdentityStore()
    gateway = InMemoryGateway(identity_store=store, token=TOKEN)
    gateway.handle("sessions.describe", lambda params: {"session": None})
    gateway.handle("exec.approval.resolve", _raiser(UNKNOWN_APPROVAL))

    @asynccontextmanager
    async def unreachable() -> AsyncIterator[tuple[Gateway, GatewaySettings, str]]:
        down = InMemoryGateway(up=False)
        yield down, GatewaySettings(url="ws://127.0.0.1:9"), "connect ECONNREFUSED 127.0.0.1:9"

    async def outage() -> None:
        gateway.outage(1012, "service restart")

    async def restore() -> None:
        gateway.restore()

    async def push(event: str, payload: Any, seq: int | None) -> None:
        gateway.push_event(event, payload, seq)

    yield Harness(
        name="memory",
        gateway=gateway,
        store=store,
        url="ws://127.0.0.1:18789",
        token=TOKEN,
        features=frozenset({"script", "events", "outage"}),
        unreachable=unreachable,
        answer=lambda method, payload: gateway.handle(method, lambda params: payload),
        fail=lambda method, shape: gateway.handle(method, _raiser(shape)),
        hang=lambda method: gateway.handle(method, hang),
        push=push,
        outage=outage,
        restore=restore,
        reject_connects=lambda shape: gateway.reject_connects(None if shape is None else _request_error(shape)),
        handshakes=lambda: gateway.handshakes,
        subscribes=lambda: sum(1 for r in gateway.requests if r.method == "sessions.subscribe"),
    )


def _raiser(shape: dict[str, Any]) -> Callable[[Any], Any]:
    def handler(params: Any) -> Any:
        raise _request_error(shape)

    return handler


def _method_error(shape: dict[str, Any]) -> Callable[[Any], Any]:
    def handler(params: Any) -> Any:
        raise MethodError(shape)

    return handler


async def _fast_sleep(seconds: float) -> None:
    await anyio.sleep(min(seconds, 0.01))


@asynccontextmanager
async def _unreachable_websockets() -> AsyncIterator[tuple[Gateway, GatewaySettings, str]]:
    with closed_port() as port:
        gateway = WebsocketsGateway(InMemoryDeviceIdentityStore(), sleep=_fast_sleep)
        yield gateway, GatewaySettings(url=f"ws://127.0.0.1:{port}"), f"connect ECONNREFUSED 127.0.0.1:{port}"


@asynccontextmanager
async def websockets_harness(tmp_path: Path) -> AsyncIterator[Harness]:
    store = SqliteDeviceIdentityStore(tmp_path / "state" / "state" / "openclaw.sqlite")
    async with FakeGateway(token=TOKEN) as fake:
        fake.handle("sessions.describe", lambda params: {"session": None})
        fake.handle("exec.approval.resolve", _method_error(UNKNOWN_APPROVAL))

        async def never(params: Any) -> Any:
            await anyio.sleep_forever()

        async def push(event: str, payload: Any, seq: int | None) -> None:
            await fake.push_event(event, ... if payload is UNDEFINED else payload, seq)

        yield Harness(
            name="websockets",
            gateway=WebsocketsGateway(store, sleep=_fast_sleep),
            store=store,
            url=fake.url,
            token=TOKEN,
            features=frozenset({"script", "events", "outage"}),
            unreachable=_unreachable_websockets,
            answer=lambda method, payload: fake.handle(method, lambda params: payload),
            fail=lambda method, shape: fake.handle(method, _method_error(shape)),
            hang=lambda method: fake.handle(method, never),
            push=push,
            outage=fake.stop,
            restore=fake.start,
            reject_connects=lambda shape: fake.reject_connects(shape),
            handshakes=lambda: len(fake.connect_frames),
            subscribes=lambda: sum(1 for _, method, _ in fake.requests if method == "sessions.subscribe"),
        )


REFERENCE_URL = os.environ.get("OPENCLAW_TEST_GATEWAY_URL", "").strip()
REFERENCE_TOKEN = os.environ.get("OPENCLAW_TEST_GATEWAY_TOKEN", "").strip() or None


@asynccontextmanager
async def reference_harness(tmp_path: Path) -> AsyncIterator[Harness]:
    store = SqliteDeviceIdentityStore(tmp_path / "state" / "state" / "openclaw.sqlite")
    yield Harness(
        name="reference",
        gateway=WebsocketsGateway(store),
        store=store,
        url=REFERENCE_URL,
        token=REFERENCE_TOKEN,
        timeout=60.0,
        unreachable=_unreachable_websockets,
    )


HarnessFactory = Callable[[Path], AbstractAsyncContextManager[Harness]]


@pytest.fixture(
    params=[
        pytest.param(memory_harness, id="memory"),
        pytest.param(websockets_harness, id="websockets"),
        pytest.param(
            reference_harness,
            id="reference",
            marks=[
                pytest.mark.reference,
                pytest.mark.skipif(not REFERENCE_URL, reason="OPENCLAW_TEST_GATEWAY_URL is not set"),
            ],
        ),
    ]
)
def harness_factory(request: pytest.FixtureRequest) -> HarnessFactory:
    factory: HarnessFactory = request.param
    return factory


@dataclass
class Seen:
    events: list[GatewayEvent] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)


@asynccontextmanager
async def connected(
    harness: Harness, gateway: Gateway | None = None, **changes: Any
) -> AsyncIterator[tuple[GatewayConnection, Seen]]:
    seen = Seen()
    settings = harness.settings(**changes)
    async with (gateway or harness.gateway).connect(
        settings, on_event=seen.events.append, log=seen.logs.append
    ) as connection:
        yield connection, seen


async def eventually(predicate: Callable[[], bool]) -> None:
    while not predicate():
        await anyio.sleep(0.002)


# --- readiness -----------------------------------------------------------------------------------------


async def test_wait_ready_returns_the_hello_and_the_connection_is_ready(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with harness_factory(tmp_path) as harness:
        with anyio.fail_after(harness.timeout):
            async with connected(harness) as (connection, seen):
                hello = await connection.wait_ready()
                assert connection.state == "ready"
                assert {"sessions.subscribe", "sessions.list", "chat.message.get"} <= hello.methods
                assert hello.tick_interval_ms == 30_000
                assert hello.raw["type"] == "hello-ok"
                assert await connection.wait_ready() == hello
            assert connection.state == "stopped"
    assert seen.logs == []


async def test_a_request_returns_the_gateway_payload(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    async with harness_factory(tmp_path) as harness:
        with anyio.fail_after(harness.timeout):
            async with connected(harness) as (connection, _):
                await connection.wait_ready()
                params = {"key": "agent:main:contract-nope", "includeDerivedTitles": True, "includeLastMessage": True}
                assert await connection.request("sessions.describe", params) == {"session": None}


async def test_send_request_sends_at_once_and_its_answers_come_back_in_any_order(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with harness_factory(tmp_path) as harness:
        with anyio.fail_after(harness.timeout):
            async with connected(harness) as (connection, _):
                await connection.wait_ready()
                describe = connection.send_request(
                    "sessions.describe",
                    {"key": "agent:main:contract-nope", "includeDerivedTitles": True, "includeLastMessage": True},
                )
                rejected = connection.send_request("exec.approval.resolve", {"id": "nope", "decision": "deny"})
                with pytest.raises(GatewayRequestError):
                    await rejected()
                assert await describe() == {"session": None}
                with pytest.raises(GatewayError, match="method must be a non-empty string"):
                    connection.send_request("", {})
            with pytest.raises(GatewayStopped):
                connection.send_request("sessions.list", {})


async def test_a_gateway_rejection_raises_request_error_with_code_message_and_details(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with harness_factory(tmp_path) as harness:
        with anyio.fail_after(harness.timeout):
            async with connected(harness) as (connection, _):
                await connection.wait_ready()
                with pytest.raises(GatewayRequestError) as caught:
                    await connection.request("exec.approval.resolve", {"id": "nope", "decision": "deny"})
                assert connection.state == "ready"
    error = caught.value
    assert isinstance(error, GatewayError)
    assert (str(error), error.code, error.retryable) == ("unknown or expired approval id", "INVALID_REQUEST", False)
    assert error.details is not None and error.details["reason"] == "APPROVAL_NOT_FOUND"


async def test_the_device_token_from_hello_is_stored_and_authenticates_alone(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with harness_factory(tmp_path) as harness:
        with anyio.fail_after(harness.timeout):
            async with connected(harness) as (connection, _):
                await connection.wait_ready()
            identity = await harness.store.load_or_create_identity()
            token = await harness.store.load_token(identity.device_id, "operator")
            assert isinstance(token, str) and token
            async with connected(harness, token=None) as (connection, seen):
                await connection.wait_ready()
                assert connection.state == "ready"
            assert seen.logs == []
            assert (await harness.store.load_or_create_identity()) == identity


async def test_a_wrong_token_fails_wait_ready_with_the_gateway_message(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with harness_factory(tmp_path) as harness:
        with anyio.fail_after(harness.timeout):
            async with connected(harness, token="contract-wrong-token") as (connection, seen):
                with pytest.raises(GatewayRequestError) as caught:
                    await connection.wait_ready()
                with pytest.raises(GatewayNotConnected, match=r"^gateway not connected$"):
                    await connection.request("sessions.list", {})
    assert str(caught.value) == TOKEN_MISMATCH
    assert caught.value.code == "INVALID_REQUEST"
    assert caught.value.details is not None and caught.value.details["code"] == "AUTH_TOKEN_MISMATCH"
    assert seen.logs == [f"gateway connect failed: GatewayClientRequestError: {TOKEN_MISMATCH}"]


async def test_no_credentials_and_no_stored_token_fail_with_token_missing(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with harness_factory(tmp_path) as harness:
        with anyio.fail_after(harness.timeout):
            async with connected(harness, token=None) as (connection, _):
                with pytest.raises(
                    GatewayRequestError, match=r"^" + TOKEN_MISSING.replace("(", r"\(").replace(")", r"\)")
                ):
                    await connection.wait_ready()


async def test_an_unreachable_gateway_fails_wait_ready_at_once(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    async with harness_factory(tmp_path) as harness:
        assert harness.unreachable is not None
        with anyio.fail_after(harness.timeout):
            async with harness.unreachable() as (gateway, settings, message):
                seen = Seen()
                async with gateway.connect(settings, on_event=seen.events.append, log=seen.logs.append) as connection:
                    with pytest.raises(GatewayError) as caught:
                        await connection.wait_ready()
                    assert connection.state == "disconnected"
    assert str(caught.value) == message
    assert seen.logs == [f"gateway client error: Error: {message}"]


# --- stop ----------------------------------------------------------------------------------------------


async def test_after_the_block_the_connection_is_stopped(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    async with harness_factory(tmp_path) as harness:
        with anyio.fail_after(harness.timeout):
            async with connected(harness) as (connection, _):
                await connection.wait_ready()
            assert connection.state == "stopped"
            with pytest.raises(GatewayStopped, match=r"^gateway client stopped$"):
                await connection.request("sessions.list", {})


async def test_a_pending_request_fails_with_stopped_when_the_block_ends(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    failures: list[BaseException] = []
    async with harness_factory(tmp_path) as harness:
        harness.require("script")
        harness.hang("contract.hang")
        with anyio.fail_after(harness.timeout):
            async with anyio.create_task_group() as tg, connected(harness) as (connection, _):
                await connection.wait_ready()
                started = anyio.Event()

                async def call() -> None:
                    started.set()
                    try:
                        await connection.request("contract.hang", {})
                    except GatewayError as exc:
                        failures.append(exc)

                tg.start_soon(call)
                await started.wait()
                await anyio.sleep(0.05)
    assert [type(exc) for exc in failures] == [GatewayStopped]
    assert str(failures[0]) == "gateway client stopped"


async def test_leaving_before_ready_releases_wait_ready_with_stopped(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    failures: list[BaseException] = []
    async with harness_factory(tmp_path) as harness:
        harness.require("script")
        harness.reject_connects(UNAVAILABLE)
        with anyio.fail_after(harness.timeout):
            async with anyio.create_task_group() as tg, connected(harness) as (connection, _):

                async def wait() -> None:
                    try:
                        await connection.wait_ready()
                    except GatewayError as exc:
                        failures.append(exc)

                tg.start_soon(wait)
                await eventually(lambda: harness.handshakes() >= 2)
    assert [type(exc) for exc in failures] == [GatewayStopped]


# --- requests ------------------------------------------------------------------------------------------


async def test_a_request_past_its_timeout_fails_with_the_method_named(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with harness_factory(tmp_path) as harness:
        harness.require("script")
        harness.hang("contract.slow")
        harness.answer("contract.echo", {"ok": True})
        with anyio.fail_after(harness.timeout):
            async with connected(harness, request_timeout_ms=50) as (connection, _):
                await connection.wait_ready()
                with pytest.raises(GatewayTimeout, match=r"^gateway request timeout for contract.slow$"):
                    await connection.request("contract.slow", {})
                assert connection.state == "ready"
                assert await connection.request("contract.echo", {}) == {"ok": True}


async def test_a_retryable_rejection_keeps_wait_ready_waiting(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    async with harness_factory(tmp_path) as harness:
        harness.require("script")
        harness.reject_connects(UNAVAILABLE)
        with anyio.fail_after(harness.timeout):
            async with connected(harness) as (connection, _):
                await eventually(lambda: harness.handshakes() >= 2)
                assert connection.state != "ready"
                with pytest.raises(GatewayNotConnected):
                    await connection.request("sessions.list", {})
                harness.reject_connects(None)
                await connection.wait_ready()
                assert connection.state == "ready"


# --- events and outages --------------------------------------------------------------------------------


async def test_bridge_events_reach_on_event_in_order_and_others_do_not(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with harness_factory(tmp_path) as harness:
        harness.require("events", "script")
        assert harness.push is not None
        harness.answer("contract.echo", {"ok": True})
        with anyio.fail_after(harness.timeout):
            async with connected(harness) as (connection, seen):
                await connection.wait_ready()
                await harness.push("tick", {"ts": 1}, None)
                await harness.push("session.message", {"sessionKey": "agent:main:main"}, 1)
                await harness.push("health", {}, 2)
                await harness.push("presence", {}, 3)
                await harness.push("exec.approval.requested", {"id": "e1"}, 4)
                await harness.push("plugin.approval.requested", {"id": "plugin:p1"}, 5)
                await harness.push("exec.approval.resolved", {"id": "e1", "decision": "deny"}, 6)
                await harness.push("plugin.approval.resolved", UNDEFINED, 7)
                await connection.request("contract.echo", {})
                await eventually(lambda: len(seen.events) == 5)
    assert seen.events == [
        GatewayEvent("session.message", {"sessionKey": "agent:main:main"}, 1),
        GatewayEvent("exec.approval.requested", {"id": "e1"}, 4),
        GatewayEvent("plugin.approval.requested", {"id": "plugin:p1"}, 5),
        GatewayEvent("exec.approval.resolved", {"id": "e1", "decision": "deny"}, 6),
        GatewayEvent("plugin.approval.resolved", UNDEFINED, 7),
    ]


async def test_an_outage_fails_in_flight_requests_then_fails_fast_until_resubscribed(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    failures: list[BaseException] = []
    async with harness_factory(tmp_path) as harness:
        harness.require("outage", "script", "events")
        assert harness.outage is not None and harness.restore is not None and harness.push is not None
        harness.hang("contract.hang")
        harness.answer("contract.echo", {"ok": True})
        with anyio.fail_after(harness.timeout):
            async with connected(harness) as (connection, seen):
                await connection.wait_ready()
                async with anyio.create_task_group() as tg:
                    started = anyio.Event()

                    async def call() -> None:
                        started.set()
                        try:
                            await connection.request("contract.hang", {})
                        except GatewayError as exc:
                            failures.append(exc)

                    tg.start_soon(call)
                    await started.wait()
                    await anyio.sleep(0.05)
                    await harness.outage()
                await eventually(lambda: connection.state != "ready")
                with pytest.raises(GatewayNotConnected, match=r"^gateway not connected$"):
                    await connection.request("contract.echo", {})
                await harness.restore()
                await eventually(lambda: connection.state == "ready")
                assert harness.subscribes() == 2
                assert await connection.request("contract.echo", {}) == {"ok": True}
                await harness.push("session.message", {"after": "restart"}, 1)
                await eventually(lambda: len(seen.events) == 1)
    assert [type(exc) for exc in failures] == [GatewayClosed]
    assert str(failures[0]).startswith("gateway closed (")
    assert seen.events == [GatewayEvent("session.message", {"after": "restart"}, 1)]
    assert not any(line.startswith("gateway connect failed") for line in seen.logs)
