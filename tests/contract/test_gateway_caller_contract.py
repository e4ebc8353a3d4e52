"""Contract of the ``GatewayCaller`` port (application/ports/gateway.py; openclaw-tools.md §6.3): must pass
for every implementation.

Harnesses (one per adapter; each test gets a fresh one):

- ``memory``: ``InMemoryGatewayCaller`` (token ``contract-token``, the canned ``cron.status`` /
  ``chat.history`` answers of the real Gateway's shapes).
- ``websockets``: ``WebsocketsGatewayCaller`` against the loopback fake Gateway of
  tests/fixtures/fake_gateway_server.py (same token and answers).

The contract cases assert through the port only, plus the harness's controls and records of the Gateway
side. The cases after them are specific to the websockets adapter: the exact frames on the wire.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from openclaw_mcp.adapters.memory.gateway_caller import InMemoryGatewayCaller
from openclaw_mcp.adapters.ws.oneshot import WebsocketsGatewayCaller
from openclaw_mcp.application.ports.gateway import (
    DeviceIdentity,
    GatewayCaller,
    GatewayCallTarget,
    GatewayClosed,
    GatewayRequestError,
    GatewayTimeout,
    GatewayUnreachable,
)
from tests.fixtures.fake_gateway_server import OneShotFakeGateway
from tests.fixtures.http_servers import closed_port

pytestmark = pytest.mark.asyncio

TOKEN = "contract-token"
PASSWORD = "contract-password"
TOKEN_MISMATCH = "unauthorized: gateway token mismatch (provide gateway auth token)"
READ = ("operator.read",)
STATUS = {
    "enabled": True,
    "triggersEnabled": True,
    "storePath": "/state/cron",
    "storage": "sqlite",
    "sqlitePath": "/state/state/openclaw.sqlite",
    "jobs": 0,
    "nextWakeAtMs": None,
}
HISTORY = {
    "messages": [
        {"role": "user", "content": "remind me later"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    ]
}
MISSING_SCOPE = {
    "code": "FORBIDDEN",
    "message": "missing scope: operator.admin",
    "details": {"code": "MISSING_SCOPE", "missingScope": "operator.admin", "requiredScopes": ["operator.admin"]},
}


# --- harnesses -----------------------------------------------------------------------------------------


@dataclass
class Harness:
    """One adapter wired to a Gateway, plus the controls and records of the Gateway side."""

    name: str
    caller: GatewayCaller
    url: str
    fail: Callable[[str, dict[str, Any]], None]
    silence: Callable[[], None]
    hang: Callable[[str], None]
    garble: Callable[[], None]
    connections: Callable[[], int]
    open_connections: Callable[[], int]
    requests: Callable[[], list[tuple[str, Any, tuple[str, ...]]]]
    """``(method, params, connect scopes)`` of every request the Gateway received."""
    unreachable: Callable[[], AbstractAsyncContextManager[tuple[GatewayCaller, str]]]
    logs: list[str] = field(default_factory=list)

    def target(self, **changes: Any) -> GatewayCallTarget:
        values: dict[str, Any] = {"url": self.url, "token": TOKEN}
        values.update(changes)
        return GatewayCallTarget(**values)

    async def call(
        self,
        method: str = "cron.status",
        params: dict[str, Any] | None = None,
        *,
        target: GatewayCallTarget | None = None,
        scopes: tuple[str, ...] = READ,
        timeout_ms: int = 4_000,
    ) -> Any:
        return await self.caller.call(
            target or self.target(),
            method,
            {} if params is None else params,
            scopes=scopes,
            timeout_ms=timeout_ms,
            log=self.logs.append,
        )


@asynccontextmanager
async def memory_harness() -> AsyncIterator[Harness]:
    caller = InMemoryGatewayCaller(token=TOKEN, password=PASSWORD)
    caller.answer("cron.status", STATUS)
    caller.answer("chat.history", HISTORY)
    hanging: set[str] = set()

    def fail(method: str, shape: dict[str, Any]) -> None:
        def handler(params: dict[str, Any]) -> Any:
            raise GatewayRequestError(shape["message"], shape["code"], shape.get("details"))

        caller.handle(method, handler)

    async def never(params: dict[str, Any]) -> Any:
        await anyio.sleep_forever()

    def hang(method: str) -> None:
        hanging.add(method)
        caller.handle(method, never)

    @asynccontextmanager
    async def unreachable() -> AsyncIterator[tuple[GatewayCaller, str]]:
        down = InMemoryGatewayCaller(mode="refuse")
        yield down, "ws://127.0.0.1:9"

    def accepted() -> list[tuple[str, Any, tuple[str, ...]]]:
        # What the Gateway received: calls whose connect was accepted.
        return [
            (call.method, call.params, call.scopes)
            for call in caller.calls
            if call.target.token == TOKEN or call.target.password == PASSWORD
        ]

    yield Harness(
        name="memory",
        caller=caller,
        url="ws://127.0.0.1:18789",
        fail=fail,
        silence=caller.hang,
        hang=hang,
        garble=lambda: None,
        connections=lambda: caller.connections,
        open_connections=lambda: caller.open_connections,
        requests=accepted,
        unreachable=unreachable,
    )


@asynccontextmanager
async def _unreachable_websockets() -> AsyncIterator[tuple[GatewayCaller, str]]:
    with closed_port() as port:
        yield WebsocketsGatewayCaller(), f"ws://127.0.0.1:{port}"


@asynccontextmanager
async def websockets_harness() -> AsyncIterator[Harness]:
    async with OneShotFakeGateway(token=TOKEN, password=PASSWORD) as fake:
        fake.answer("cron.status", STATUS)
        fake.answer("chat.history", HISTORY)

        def silence() -> None:
            fake.silent = True

        def garble() -> None:
            fake.garbage = True

        def requests() -> list[tuple[str, Any, tuple[str, ...]]]:
            seen: list[tuple[str, Any, tuple[str, ...]]] = []
            for connection in fake.connections:
                connect = connection.connect_params or {}
                for frame in connection.frames:
                    if frame.get("method") != "connect":
                        seen.append((frame["method"], frame.get("params"), tuple(connect.get("scopes", []))))
            return seen

        yield Harness(
            name="websockets",
            caller=WebsocketsGatewayCaller(),
            url=fake.url,
            fail=fake.fail,
            silence=silence,
            hang=fake.hang,
            garble=garble,
            connections=lambda: len(fake.connections),
            open_connections=lambda: fake.open_connections,
            requests=requests,
            unreachable=_unreachable_websockets,
        )
        assert fake.violations == []


HarnessFactory = Callable[[], AbstractAsyncContextManager[Harness]]


@pytest.fixture(params=[pytest.param(memory_harness, id="memory"), pytest.param(websockets_harness, id="websockets")])
def harness_factory(request: pytest.FixtureRequest) -> HarnessFactory:
    factory: HarnessFactory = request.param
    return factory


async def eventually(predicate: Callable[[], bool]) -> None:
    while not predicate():
        await anyio.sleep(0.005)


# --- the contract --------------------------------------------------------------------------------------


async def test_a_call_returns_the_gateway_payload(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness:
        with anyio.fail_after(5):
            assert await harness.call("cron.status") == STATUS
            params = {"sessionKey": "agent:main:main", "limit": 20}
            assert await harness.call("chat.history", params) == HISTORY
        assert harness.requests() == [("cron.status", {}, READ), ("chat.history", params, READ)]
        assert harness.logs == []


async def test_every_call_opens_its_own_connection_and_closes_it(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness:
        with anyio.fail_after(5):
            await harness.call()
            await harness.call(scopes=("operator.admin",))
            await eventually(lambda: harness.open_connections() == 0)
        assert harness.connections() == 2
        assert [scopes for _, _, scopes in harness.requests()] == [READ, ("operator.admin",)]


async def test_password_auth_is_accepted(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness:
        with anyio.fail_after(5):
            assert await harness.call(target=harness.target(token=None, password=PASSWORD)) == STATUS


async def test_a_token_mismatch_is_a_request_error_and_logged(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness:
        with anyio.fail_after(5), pytest.raises(GatewayRequestError) as caught:
            await harness.call(target=harness.target(token="wrong-token"))
        assert str(caught.value) == TOKEN_MISMATCH
        assert caught.value.code == "INVALID_REQUEST"
        assert caught.value.details is not None and caught.value.details["code"] == "AUTH_TOKEN_MISMATCH"
        assert harness.logs == [f"gateway connect failed: GatewayClientRequestError: {TOKEN_MISMATCH}"]
        assert harness.requests() == []
        with anyio.fail_after(5):
            await eventually(lambda: harness.open_connections() == 0)


async def test_a_rejected_request_is_a_request_error_not_logged(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness:
        harness.fail("cron.add", MISSING_SCOPE)
        with anyio.fail_after(5), pytest.raises(GatewayRequestError) as caught:
            await harness.call("cron.add", {"job": {}})
        assert str(caught.value) == "missing scope: operator.admin"
        assert caught.value.code == "FORBIDDEN"
        assert caught.value.details == MISSING_SCOPE["details"]
        with anyio.fail_after(5), pytest.raises(GatewayRequestError, match=r"^unknown method: nope$") as unknown:
            await harness.call("nope")
        assert unknown.value.code == "INVALID_REQUEST"
        assert harness.logs == []


async def test_a_refused_port_is_unreachable_econnrefused(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness, harness.unreachable() as (caller, url):
        with anyio.fail_after(5), pytest.raises(GatewayUnreachable) as caught:
            await caller.call(
                GatewayCallTarget(url=url, token=TOKEN), "cron.status", {}, scopes=READ, timeout_ms=4_000, log=print
            )
        assert caught.value.code == "ECONNREFUSED"
        assert str(caught.value) == f"connect ECONNREFUSED {url.removeprefix('ws://')}"


async def test_a_silent_gateway_times_out_after_the_whole_budget(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness:
        harness.silence()
        started = time.monotonic()
        with anyio.fail_after(5), pytest.raises(GatewayTimeout, match=r"^gateway timeout after 300ms$"):
            await harness.call(timeout_ms=300)
        assert 0.25 <= time.monotonic() - started < 3
        with anyio.fail_after(5):
            await eventually(lambda: harness.open_connections() == 0)
        assert harness.logs == []


async def test_an_unanswered_request_times_out_too(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness:
        harness.hang("chat.history")
        started = time.monotonic()
        with anyio.fail_after(5), pytest.raises(GatewayTimeout, match=r"^gateway timeout after 400ms$"):
            await harness.call("chat.history", {"sessionKey": "main"}, timeout_ms=400)
        assert 0.35 <= time.monotonic() - started < 3
        with anyio.fail_after(5):
            await eventually(lambda: harness.open_connections() == 0)


async def test_cancelling_a_call_closes_its_connection_and_leaves_no_task(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness:
        harness.hang("cron.status")
        baseline = len(asyncio.all_tasks())
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(harness.call)
                await eventually(lambda: harness.open_connections() == 1 and bool(harness.requests()))
                tg.cancel_scope.cancel()
            await eventually(lambda: harness.open_connections() == 0)
            await eventually(lambda: len(asyncio.all_tasks()) <= baseline)
        assert harness.logs == []


async def test_garbage_frames_before_the_answer_are_ignored(harness_factory: HarnessFactory) -> None:
    async with harness_factory() as harness:
        harness.garble()
        with anyio.fail_after(5):
            assert await harness.call() == STATUS
        assert harness.logs == []


# --- websockets adapter: the wire ----------------------------------------------------------------------


@asynccontextmanager
async def fake_gateway(**kwargs: Any) -> AsyncIterator[OneShotFakeGateway]:
    async with OneShotFakeGateway(**kwargs) as fake:
        fake.answer("cron.status", STATUS)
        yield fake
        assert fake.violations == []


def _caller() -> WebsocketsGatewayCaller:
    return WebsocketsGatewayCaller(platform=("linux", "Linux"))


def _id_parts(frame_id: str) -> tuple[str, uuid.UUID]:
    number, _, rest = frame_id.partition(":")
    return number, uuid.UUID(rest)


async def test_connect_and_request_frames_are_the_references() -> None:
    async with fake_gateway(token=TOKEN) as fake:
        target = GatewayCallTarget(url=fake.url, token=TOKEN)
        with anyio.fail_after(5):
            assert await _caller().call(target, "cron.status", {}, scopes=READ, timeout_ms=4_000, log=print) == STATUS
            await eventually(lambda: fake.open_connections == 0)
        (connection,) = fake.connections
        connect, request = connection.frames
        instance_id = connect["params"]["client"]["instanceId"]
        assert uuid.UUID(instance_id).version == 4
        assert connect == {
            "type": "req",
            "id": connect["id"],
            "method": "connect",
            "params": {
                "minProtocol": 4,
                "maxProtocol": 4,
                "client": {
                    "id": "gateway-client",
                    "displayName": "agent",
                    "version": "2026.9.6",
                    "platform": "linux",
                    "deviceFamily": "Linux",
                    "mode": "backend",
                    "instanceId": instance_id,
                },
                "caps": [],
                "auth": {"token": TOKEN},
                "role": "operator",
                "scopes": ["operator.read"],
            },
        }
        assert list(connect["params"]) == ["minProtocol", "maxProtocol", "client", "caps", "auth", "role", "scopes"]
        assert request == {"type": "req", "id": request["id"], "method": "cron.status", "params": {}}
        assert _id_parts(connect["id"])[0] == "1" and _id_parts(request["id"])[0] == "2"
        assert connection.close == (1000, "")


async def test_every_call_has_a_fresh_instance_id() -> None:
    async with fake_gateway(token=TOKEN) as fake:
        target = GatewayCallTarget(url=fake.url, token=TOKEN)
        caller = _caller()
        with anyio.fail_after(5):
            for _ in range(2):
                await caller.call(target, "cron.status", {}, scopes=READ, timeout_ms=4_000, log=print)
        ids = [c.connect_params["client"]["instanceId"] for c in fake.connections if c.connect_params]
        assert len(set(ids)) == 2


async def test_password_mode_sends_only_the_password() -> None:
    async with fake_gateway(token=None, password=PASSWORD) as fake:
        target = GatewayCallTarget(url=fake.url, password=PASSWORD)
        with anyio.fail_after(5):
            await _caller().call(target, "cron.status", {}, scopes=READ, timeout_ms=4_000, log=print)
        params = fake.connections[0].connect_params
        assert params is not None and params["auth"] == {"password": PASSWORD} and "device" not in params


def _identity() -> DeviceIdentity:
    key = Ed25519PrivateKey.generate()
    public = key.public_key()
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return DeviceIdentity(
        device_id=hashlib.sha256(raw).hexdigest(),
        public_key_pem=public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode(),
        private_key_pem=key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode(),
    )


async def test_a_device_target_signs_connect_with_the_challenge_nonce() -> None:
    identity = _identity()
    async with fake_gateway(token=TOKEN) as fake:
        target = GatewayCallTarget(url=fake.url, token=TOKEN, device=identity, device_token="stored-device-token")
        with anyio.fail_after(5):
            assert await _caller().call(target, "cron.status", {}, scopes=READ, timeout_ms=4_000, log=print) == STATUS
        (connection,) = fake.connections
        params = connection.connect_params
        assert params is not None
        # A shared token wins over the stored device token (gateway-protocol §2.4); the fake Gateway verified
        # the v3 signature over the token and the nonce.
        assert params["auth"] == {"token": TOKEN}
        assert params["device"]["id"] == identity.device_id
        assert params["device"]["nonce"] == connection.nonce
        assert list(params)[-1] == "device"


async def test_a_device_target_without_a_secret_sends_its_device_token() -> None:
    identity = _identity()
    async with fake_gateway(token=None) as fake:
        target = GatewayCallTarget(url=fake.url, device=identity, device_token="stored-device-token")
        with anyio.fail_after(5):
            await _caller().call(target, "cron.status", {}, scopes=READ, timeout_ms=4_000, log=print)
        params = fake.connections[0].connect_params
        assert params is not None and params["auth"] == {"deviceToken": "stored-device-token"}
        assert params["device"]["nonce"] == fake.connections[0].nonce


async def test_a_rejected_connect_closes_1008_connect_failed() -> None:
    async with fake_gateway(token=TOKEN) as fake:
        target = GatewayCallTarget(url=fake.url, token="wrong")
        logs: list[str] = []
        with anyio.fail_after(5), pytest.raises(GatewayRequestError, match="token mismatch"):
            await _caller().call(target, "cron.status", {}, scopes=READ, timeout_ms=4_000, log=logs.append)
        with anyio.fail_after(5):
            await eventually(lambda: fake.open_connections == 0)
        assert [frame["method"] for frame in fake.connections[0].frames] == ["connect"]
        assert fake.connections[0].close is not None and fake.connections[0].close[0] == 1008


@pytest.mark.parametrize(
    ("close", "message"),
    [
        ((1008, "unauthorized"), "gateway closed (1008): unauthorized"),
        ((1000, ""), "gateway closed (1000 normal closure): no close reason"),
        ((1012, "service restart"), "gateway closed (1012): service restart"),
    ],
)
async def test_a_close_before_the_answer_is_gateway_closed(close: tuple[int, str], message: str) -> None:
    async with fake_gateway(token=TOKEN) as fake:
        fake.close_before_answer = close
        target = GatewayCallTarget(url=fake.url, token=TOKEN)
        with anyio.fail_after(5), pytest.raises(GatewayClosed) as caught:
            await _caller().call(target, "cron.status", {}, scopes=READ, timeout_ms=4_000, log=print)
        assert str(caught.value) == message
