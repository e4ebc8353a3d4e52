"""The websockets Gateway client against the loopback fake Gateway, and its pure wire helpers (spec
gateway-protocol §1–§8, serve-bridge §2.2, §11.3). Behaviour every adapter shares is in
tests/contract/test_gateway_contract.py."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from openclaw_mcp.adapters.memory.device_identity import InMemoryDeviceIdentityStore
from openclaw_mcp.adapters.ws import WebsocketsGateway, WebsocketsGatewayConnection
from openclaw_mcp.adapters.ws._backoff import Backoff
from openclaw_mcp.adapters.ws._frames import (
    MAX_PAYLOAD_BYTES,
    EventFrame,
    ResponseFrame,
    encode_request,
    format_connect_error_message,
    parse_frame,
    request_error,
)
from openclaw_mcp.adapters.ws._handshake import (
    device_payload_v3,
    parse_challenge,
    parse_hello,
    platform_identity,
    select_auth,
    should_pause_reconnect,
    startup_retry_after_ms,
)
from openclaw_mcp.application.ports.gateway import (
    DeviceIdentity,
    GatewayClosed,
    GatewayError,
    GatewayEvent,
    GatewayNotConnected,
    GatewayRequestError,
    GatewaySettings,
    GatewayStopped,
    GatewayTimeout,
)
from openclaw_mcp.entrypoints.settings import challenge_timeout_ms, preauth_handshake_timeout_ms
from openclaw_mcp.jscompat.undefined import UNDEFINED
from tests.fixtures.fake_gateway import (
    DEVICE_TOKEN_MISMATCH,
    METADATA_UPGRADE,
    TOKEN_MISMATCH,
    FakeGateway,
    MethodError,
)
from tests.fixtures.http_servers import closed_port, make_certificates

pytestmark = pytest.mark.asyncio

UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
CONNECTED = "fake-token"


# --- helpers -------------------------------------------------------------------------------------------


@dataclass
class Probe:
    """What the connection reported: events, log lines, reconnect delays (seconds)."""

    events: list[GatewayEvent] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    on_sleep: Callable[[int], Awaitable[None]] | None = None

    async def sleep(self, seconds: float) -> None:
        self.delays.append(seconds)
        if self.on_sleep is not None:
            await self.on_sleep(len(self.delays))
        await anyio.sleep(0.001)


@asynccontextmanager
async def running(
    url: str,
    probe: Probe,
    *,
    store: InMemoryDeviceIdentityStore | None = None,
    token: str | None = CONNECTED,
    password: str | None = None,
    platform: str = "linux",
    env: dict[str, str] | None = None,
    **settings: Any,
) -> AsyncIterator[WebsocketsGatewayConnection]:
    gateway = WebsocketsGateway(
        store if store is not None else InMemoryDeviceIdentityStore(),
        open_timeout_ms=preauth_handshake_timeout_ms(env or {}),
        challenge_timeout_ms=challenge_timeout_ms(env or {}),
        platform=platform,
        sleep=probe.sleep,
        tick_watch_min_interval_ms=settings.pop("tick_watch_min_interval_ms", 1_000),
        connect_timeout_ms=settings.pop("connect_timeout_ms", 15_000),
    )
    config = GatewaySettings(url=url, token=token, password=password, **settings)
    async with gateway.connect(config, on_event=probe.events.append, log=probe.logs.append) as connection:
        yield connection


async def eventually(predicate: Callable[[], bool]) -> None:
    while not predicate():
        await anyio.sleep(0.002)


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


async def ready_connection_count(fake: FakeGateway, count: int) -> None:
    await eventually(lambda: len([s for s in fake.connections if s.subscribed]) >= count)


# --- pure helpers --------------------------------------------------------------------------------------


async def test_request_frames_omit_params_when_none_and_keep_key_order() -> None:
    assert encode_request("1:x", "health") == '{"type":"req","id":"1:x","method":"health"}'
    assert encode_request("2:y", "sessions.subscribe", {}) == (
        '{"type":"req","id":"2:y","method":"sessions.subscribe","params":{}}'
    )
    assert encode_request("3:z", "send", {"message": "héllo"}) == (
        '{"type":"req","id":"3:z","method":"send","params":{"message":"héllo"}}'
    )


async def test_inbound_frames_the_client_ignores() -> None:
    for text in [
        "not json",
        "[1,2]",
        "NaN",
        '{"type":"event","event":"x","seq":NaN}',
        '{"type":"event","event":""}',
        '{"type":"event","event":"x","seq":-1}',
        '{"type":"event","event":"x","seq":1.5}',
        '{"type":"event","event":"x","seq":true}',
        '{"type":"res","id":"","ok":true}',
        '{"type":"res","id":"1:a","ok":"yes"}',
        '{"type":"res","id":"1:a","ok":false,"error":{"code":"X"}}',
        '{"type":"res","id":"1:a","ok":false,"error":{"code":"X","message":"m","retryable":"no"}}',
        '{"type":"res","id":"1:a","ok":false,"error":{"code":"X","message":"m","retryAfterMs":-5}}',
        '{"type":"req","id":"1:a","method":"x"}',
    ]:
        assert parse_frame(text) is None, text


async def test_inbound_frames_the_client_reads() -> None:
    assert parse_frame('{"type":"event","event":"tick"}') == EventFrame("tick", UNDEFINED, None)
    assert parse_frame(b'{"type":"event","event":"e","payload":null,"seq":2.0}') == EventFrame("e", None, 2)
    assert parse_frame('{"type":"res","id":"1:a","ok":true,"payload":{"a":1}}') == ResponseFrame(
        "1:a", True, {"a": 1}, None
    )
    assert parse_frame('{"type":"res","id":"1:a","ok":false,"error":{"code":"X","message":"m"}}') == ResponseFrame(
        "1:a", False, None, {"code": "X", "message": "m"}
    )


async def test_rejection_messages_are_rewritten_like_the_reference_client() -> None:
    pairing = {"code": "PAIRING_REQUIRED", "reason": "metadata-upgrade", "requestId": "214db76d-6f4c"}
    assert format_connect_error_message(METADATA_UPGRADE, pairing) == (
        "device metadata change pending approval (requestId: 214db76d-6f4c)"
    )
    assert format_connect_error_message("x", {"code": "PAIRING_REQUIRED", "reason": "role-upgrade"}) == (
        "role upgrade pending approval"
    )
    assert format_connect_error_message("x", {"code": "PAIRING_REQUIRED", "reason": "scope-upgrade"}) == (
        "scope upgrade pending approval"
    )
    assert format_connect_error_message("x", {"code": "PAIRING_REQUIRED", "requestId": "bad id!"}) == (
        "device pairing required"
    )
    mismatch = {
        "code": "PROTOCOL_MISMATCH",
        "clientMinProtocol": 3,
        "clientMaxProtocol": 3,
        "expectedProtocol": 4,
        "minimumProbeProtocol": 3,
    }
    assert format_connect_error_message("protocol mismatch", mismatch) == (
        "protocol mismatch: Control UI v3, Gateway v4, probe min v3"
    )
    ranged = {**mismatch, "clientMinProtocol": 5, "clientMaxProtocol": 6}
    assert format_connect_error_message(" ", ranged) == "protocol mismatch: Control UI v5-v6, Gateway v4, probe min v3"
    assert format_connect_error_message("  spaced  ", None) == "spaced"
    assert format_connect_error_message(" \u00a0", {"code": "OTHER"}) == "gateway request failed"
    assert format_connect_error_message(None, None) == "gateway request failed"


async def test_response_errors_become_request_errors_with_their_fields() -> None:
    error = request_error(
        {"code": "UNAVAILABLE", "message": "later", "details": {"reason": "startup-sidecars"}, "retryable": True}
        | {"retryAfterMs": 250}
    )
    assert (str(error), error.code, error.details, error.retryable, error.retry_after_ms) == (
        "later",
        "UNAVAILABLE",
        {"reason": "startup-sidecars"},
        True,
        250,
    )
    bare = request_error({})
    assert (str(bare), bare.code, bare.details, bare.retryable, bare.retry_after_ms) == (
        "gateway request failed",
        "UNAVAILABLE",
        None,
        False,
        None,
    )


def _settings(token: str | None = None, password: str | None = None) -> GatewaySettings:
    return GatewaySettings(url="ws://127.0.0.1:1", token=token, password=password)


async def test_auth_selection_follows_the_spec_table() -> None:
    def pick(token: str | None, password: str | None, stored: str | None, retry: bool = False) -> Any:
        chosen = select_auth(_settings(token, password), stored, pending_device_token_retry=retry, trusted=True)
        return chosen.auth, chosen.signature_token

    assert pick(" T ", None, "D") == ({"token": "T"}, "T")
    assert pick("T", "P", "D") == ({"token": "T", "password": "P"}, "T")
    assert pick(None, "P", "D") == ({"password": "P"}, None)
    assert pick(None, None, "D") == ({"deviceToken": "D"}, "D")
    assert pick("  ", None, None) == (None, None)
    assert pick("T", None, "D", retry=True) == ({"token": "T", "deviceToken": "D"}, "T")
    untrusted = select_auth(_settings("T"), "D", pending_device_token_retry=True, trusted=False)
    assert untrusted.auth == {"token": "T"}


async def test_the_signed_payload_is_the_v3_form() -> None:
    payload = device_payload_v3(
        device_id="d26845e70a714ad809af2f19ffb24002fd923a25ddd23fd04b556d029b1ed83c",
        client_id="cli",
        client_mode="cli",
        role="operator",
        scopes=["operator.read", "operator.write", "operator.approvals"],
        signed_at_ms=1795954391385,
        token="<token>",
        nonce="a9234e74-1f21-491f-a01a-180f8182493e",
        platform="linux",
        device_family="Linux",
    )
    assert payload == (
        "v3|d26845e70a714ad809af2f19ffb24002fd923a25ddd23fd04b556d029b1ed83c|cli|cli|operator|"
        "operator.read,operator.write,operator.approvals|1795954391385|<token>|"
        "a9234e74-1f21-491f-a01a-180f8182493e|linux|linux"
    )
    other = device_payload_v3(
        device_id="d",
        client_id="cli",
        client_mode="cli",
        role="operator",
        scopes=[],
        signed_at_ms=0,
        token=None,
        nonce="n",
        platform=" MacOS ",
        device_family=None,
    )
    assert other == "v3|d|cli|cli|operator||0||n|macos|"


async def test_platform_and_device_family_use_node_names() -> None:
    assert platform_identity("linux") == ("linux", "Linux")
    assert platform_identity("darwin") == ("macos", "Mac")
    assert platform_identity("win32") == ("windows", "Windows")
    assert platform_identity("freebsd14") == ("freebsd", None)


async def test_challenge_timeout_comes_from_the_environment() -> None:
    assert challenge_timeout_ms({}) == 15_000
    assert challenge_timeout_ms({"OPENCLAW_CONNECT_CHALLENGE_TIMEOUT_MS": "300"}) == 300
    assert challenge_timeout_ms({"OPENCLAW_CONNECT_CHALLENGE_TIMEOUT_MS": "100"}) == 250
    assert challenge_timeout_ms({"OPENCLAW_CONNECT_CHALLENGE_TIMEOUT_MS": "+40000"}) == 40_000
    assert challenge_timeout_ms({"OPENCLAW_HANDSHAKE_TIMEOUT_MS": "20000"}) == 20_000
    assert challenge_timeout_ms({"OPENCLAW_CONNECT_CHALLENGE_TIMEOUT_MS": "1.5"}) == 15_000
    assert challenge_timeout_ms({"OPENCLAW_HANDSHAKE_TIMEOUT_MS": "0"}) == 15_000


async def test_challenge_parsing_requires_a_nonce_and_a_safe_integer_timestamp() -> None:
    assert parse_challenge({"nonce": " n ", "ts": 5}) == parse_challenge({"nonce": "n", "ts": 5.0})
    assert parse_challenge({"nonce": "n", "ts": 5}).nonce == "n"
    assert parse_challenge({"ts": 5}).nonce == ""
    assert parse_challenge({"nonce": "n", "ts": -1}).ts is None
    assert parse_challenge({"nonce": "n", "ts": 2**53}).ts is None
    assert parse_challenge({"nonce": "n", "ts": "5"}).ts is None
    assert parse_challenge(None).nonce == ""


async def test_backoff_doubles_to_thirty_seconds_and_resets() -> None:
    backoff = Backoff()
    assert [backoff.next_delay_ms() for _ in range(8)] == [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
    backoff.reset()
    assert backoff.next_delay_ms() == 1000
    backoff.override_next(700)
    assert backoff.next_delay_ms() == 700
    assert backoff.next_delay_ms() == 2000
    assert backoff.next_delay_ms(minimum_ms=9000) == 9000
    backoff.reset(250)
    assert [backoff.next_delay_ms() for _ in range(3)] == [250, 500, 1000]


async def test_which_rejections_stop_reconnecting() -> None:
    for code in ["AUTH_TOKEN_MISSING", "PAIRING_REQUIRED", "PROTOCOL_MISMATCH", "AUTH_DEVICE_TOKEN_MISMATCH"]:
        assert should_pause_reconnect({"code": code}, device_token_retry_pending=False)
    assert should_pause_reconnect({"code": "AUTH_TOKEN_MISMATCH"}, device_token_retry_pending=False)
    assert not should_pause_reconnect({"code": "AUTH_TOKEN_MISMATCH"}, device_token_retry_pending=True)
    assert not should_pause_reconnect(
        {"code": "PAIRING_REQUIRED", "pauseReconnect": False}, device_token_retry_pending=False
    )
    assert not should_pause_reconnect(
        {"code": "PAIRING_REQUIRED", "recommendedNextStep": "wait_then_retry"}, device_token_retry_pending=False
    )
    assert not should_pause_reconnect({"code": "DEVICE_AUTH_SIGNATURE_INVALID"}, device_token_retry_pending=False)
    assert not should_pause_reconnect(None, device_token_retry_pending=False)


async def test_startup_rejections_retry_after_a_clamped_delay() -> None:
    def startup(retry_after: int | None, **changes: Any) -> int | None:
        fields: dict[str, Any] = {"code": "UNAVAILABLE", "details": {"reason": "startup-sidecars"}, "retryable": True}
        fields.update(changes)
        return startup_retry_after_ms(
            GatewayRequestError("starting", fields["code"], fields["details"], fields["retryable"], retry_after)
        )

    assert startup(None) == 500
    assert startup(50) == 100
    assert startup(5000) == 2000
    assert startup(700) == 700
    assert startup(700, retryable=False) is None
    assert startup(700, details={"reason": "other"}) is None
    assert startup(700, code="INVALID_REQUEST") is None


async def test_hello_parsing_keeps_methods_events_and_tick_interval() -> None:
    hello = parse_hello({"features": {"methods": ["a", 1, "b"], "events": ["tick"]}, "policy": {"tickIntervalMs": 50}})
    assert (hello.methods, hello.events, hello.tick_interval_ms) == (frozenset({"a", "b"}), frozenset({"tick"}), 50)
    assert parse_hello({}).tick_interval_ms == 30_000
    assert parse_hello({"policy": {"tickIntervalMs": "50"}}).tick_interval_ms == 30_000


# --- handshake -----------------------------------------------------------------------------------------


async def test_the_connect_frame_has_the_reference_shape_and_a_verifiable_signature() -> None:
    store = InMemoryDeviceIdentityStore()
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, probe, store=store) as connection:
            await connection.wait_ready()
            identity = await store.load_or_create_identity()
            served = fake.live()[0]
    frame = json.loads(fake.connect_frames[0])
    assert list(frame) == ["type", "id", "method", "params"]
    assert re.fullmatch(rf"1:{UUID4}", frame["id"])
    params = frame["params"]
    assert list(params) == ["minProtocol", "maxProtocol", "client", "caps", "auth", "role", "scopes", "device"]
    assert params["minProtocol"] == params["maxProtocol"] == 4
    assert params["client"] == {
        "id": "cli",
        "displayName": "OpenClaw MCP",
        "version": "2026.9.6",
        "platform": "linux",
        "deviceFamily": "Linux",
        "mode": "cli",
    }
    assert list(params["client"]) == ["id", "displayName", "version", "platform", "deviceFamily", "mode"]
    assert params["caps"] == ["approvals"]
    assert params["auth"] == {"token": CONNECTED}
    assert params["role"] == "operator"
    assert params["scopes"] == ["operator.read", "operator.write", "operator.approvals"]
    device = params["device"]
    assert list(device) == ["id", "publicKey", "signature", "signedAt", "nonce"]
    assert device["id"] == identity.device_id
    raw_key = b64url_decode(device["publicKey"])
    assert "=" not in device["publicKey"] and len(raw_key) == 32
    assert hashlib.sha256(raw_key).hexdigest() == identity.device_id
    assert (device["signedAt"], device["nonce"]) == (served.challenge_ts, served.nonce)
    pem_key = serialization.load_pem_public_key(identity.public_key_pem.encode())
    assert isinstance(pem_key, Ed25519PublicKey)
    signed = (
        f"v3|{identity.device_id}|cli|cli|operator|operator.read,operator.write,operator.approvals|"
        f"{served.challenge_ts}|{CONNECTED}|{served.nonce}|linux|linux"
    )
    pem_key.verify(b64url_decode(device["signature"]), signed.encode())
    subscribe = json.loads(fake.raw_requests[0])
    assert re.fullmatch(rf"2:{UUID4}", subscribe["id"])
    assert (subscribe["method"], subscribe["params"]) == ("sessions.subscribe", {})
    assert fake.violations == [] and probe.logs == []


async def test_the_hello_device_token_is_stored_and_later_authenticates_alone() -> None:
    store = InMemoryDeviceIdentityStore()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            async with running(fake.url, Probe(), store=store) as connection:
                await connection.wait_ready()
            identity = await store.load_or_create_identity()
            issued = await store.load_token(identity.device_id, "operator")
            assert issued == "fake-device-token-1"
            assert store.stored_scopes(identity.device_id, "operator") == [
                "operator.approvals",
                "operator.read",
                "operator.write",
            ]
            async with running(fake.url, Probe(), store=store, token=None) as connection:
                await connection.wait_ready()
                assert connection.state == "ready"
            second = fake.connect_params[1]
            assert second["auth"] == {"deviceToken": "fake-device-token-1"}
            key = serialization.load_pem_public_key(identity.public_key_pem.encode())
            assert isinstance(key, Ed25519PublicKey)
            signed = "|".join(
                [
                    "v3",
                    identity.device_id,
                    "cli",
                    "cli",
                    "operator",
                    "operator.read,operator.write,operator.approvals",
                    str(second["device"]["signedAt"]),
                    "fake-device-token-1",
                    second["device"]["nonce"],
                    "linux",
                    "linux",
                ]
            )
            key.verify(b64url_decode(second["device"]["signature"]), signed.encode())
            assert await store.load_token(identity.device_id, "operator") == "fake-device-token-2"


async def test_a_password_is_sent_alone_or_next_to_the_token() -> None:
    with anyio.fail_after(5):
        async with FakeGateway(token="T", password="pw") as fake:
            async with running(fake.url, Probe(), token=None, password=" pw ") as connection:
                await connection.wait_ready()
            async with running(fake.url, Probe(), token="T", password="pw") as connection:
                await connection.wait_ready()
    assert [params["auth"] for params in fake.connect_params] == [{"password": "pw"}, {"token": "T", "password": "pw"}]


async def test_a_macos_client_reports_mac_and_signs_lower_cased_metadata() -> None:
    store = InMemoryDeviceIdentityStore()
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, Probe(), store=store, platform="darwin") as connection:
            await connection.wait_ready()
    assert fake.connect_params[0]["client"]["platform"] == "macos"
    assert fake.connect_params[0]["client"]["deviceFamily"] == "Mac"


async def test_changed_device_metadata_fails_the_start_with_the_pairing_message() -> None:
    store = InMemoryDeviceIdentityStore()
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            async with running(fake.url, Probe(), store=store) as connection:
                await connection.wait_ready()
            async with running(fake.url, probe, store=store, platform="darwin") as connection:
                with pytest.raises(GatewayRequestError) as caught:
                    await connection.wait_ready()
                await eventually(lambda: connection.state == "disconnected")
    message = "device metadata change pending approval (requestId: 214db76d-6f4c-4a43-9d0e-3c1f0b1f9a11)"
    assert str(caught.value) == message
    assert caught.value.code == "NOT_PAIRED"
    assert probe.logs == [f"gateway connect failed: GatewayClientRequestError: {message}"]
    assert probe.delays == []


# --- start failures (serve-bridge §2.2) ----------------------------------------------------------------


async def test_an_unreachable_gateway_fails_the_start_at_once_with_a_node_style_error() -> None:
    probe = Probe()
    with closed_port() as port, anyio.fail_after(5):
        async with running(f"ws://127.0.0.1:{port}", probe) as connection:
            with pytest.raises(GatewayError) as caught:
                await connection.wait_ready()
            assert connection.state == "disconnected"
    assert str(caught.value) == f"connect ECONNREFUSED 127.0.0.1:{port}"
    assert isinstance(caught.value.__cause__, ConnectionRefusedError)
    assert probe.logs == [f"gateway client error: Error: connect ECONNREFUSED 127.0.0.1:{port}"]
    assert probe.delays == []


async def test_an_unknown_host_fails_the_start_with_enotfound(monkeypatch: pytest.MonkeyPatch) -> None:
    async def unknown(host: str, port: int, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(anyio, "getaddrinfo", unknown)  # no resolver traffic
    probe = Probe()
    with anyio.fail_after(5):
        async with running("ws://gateway.example:18789", probe) as connection:
            with pytest.raises(GatewayError, match=r"^getaddrinfo ENOTFOUND gateway.example$") as caught:
                await connection.wait_ready()
    assert isinstance(caught.value.__cause__, socket.gaierror)
    assert probe.logs == ["gateway client error: Error: getaddrinfo ENOTFOUND gateway.example"]


async def test_a_rejected_connect_is_the_start_error_and_is_logged() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, probe, token="wrong") as connection:
            with pytest.raises(GatewayRequestError) as caught:
                await connection.wait_ready()
            await eventually(lambda: len(fake.closes) == 1)
    assert str(caught.value) == TOKEN_MISMATCH
    assert caught.value.code == "INVALID_REQUEST"
    assert caught.value.details is not None and caught.value.details["code"] == "AUTH_TOKEN_MISMATCH"
    assert caught.value.retryable is False
    assert probe.logs == [f"gateway connect failed: GatewayClientRequestError: {TOKEN_MISMATCH}"]
    assert fake.closes[0][0] == 1008
    assert probe.delays == []


async def test_a_protocol_mismatch_rejection_is_reported_with_the_versions() -> None:
    probe = Probe()
    shape = {
        "code": "INVALID_REQUEST",
        "message": "protocol mismatch",
        "details": {
            "code": "PROTOCOL_MISMATCH",
            "clientMinProtocol": 4,
            "clientMaxProtocol": 4,
            "expectedProtocol": 5,
            "minimumProbeProtocol": 3,
        },
    }
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, probe) as connection:
            fake.reject_connects(shape, close=(1002, "protocol mismatch"))
            with pytest.raises(
                GatewayRequestError, match=r"^protocol mismatch: Control UI v4, Gateway v5, probe min v3$"
            ):
                await connection.wait_ready()


async def test_a_startup_rejection_waits_retry_after_ms_and_is_not_a_failure() -> None:
    shape = {
        "code": "UNAVAILABLE",
        "message": "gateway starting",
        "details": {"reason": "startup-sidecars"},
        "retryable": True,
        "retryAfterMs": 150,
    }
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.reject_connects(shape, close=(1013, "gateway starting"))

            async def recover(calls: int) -> None:
                fake.reject_connects(None)

            probe.on_sleep = recover
            async with running(fake.url, probe) as connection:
                await connection.wait_ready()
    assert probe.delays == [0.15]
    assert probe.logs == []


async def test_a_retryable_rejection_keeps_the_start_waiting() -> None:
    shape = {"code": "UNAVAILABLE", "message": "busy", "retryable": True}
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.reject_connects(shape)

            async def recover(calls: int) -> None:
                if calls == 2:
                    fake.reject_connects(None)

            probe.on_sleep = recover
            async with running(fake.url, probe) as connection:
                await connection.wait_ready()
    assert probe.delays == [1.0, 2.0]
    assert probe.logs == ["gateway connect failed: GatewayClientRequestError: busy"] * 2


async def test_a_rejected_websocket_upgrade_is_retried() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.upgrade_rejection = (503, "  gateway \n starting ")

            async def recover(calls: int) -> None:
                fake.upgrade_rejection = None

            probe.on_sleep = recover
            async with running(fake.url, probe) as connection:
                await connection.wait_ready()
    assert probe.delays == [1.0]
    assert probe.logs == []


async def test_a_missing_challenge_times_out_and_is_retried() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.send_challenge = False

            async def recover(calls: int) -> None:
                fake.send_challenge = True

            probe.on_sleep = recover
            env = {"OPENCLAW_CONNECT_CHALLENGE_TIMEOUT_MS": "250"}
            async with running(fake.url, probe, env=env) as connection:
                await connection.wait_ready()
    assert fake.closes[0] == (1008, "connect challenge timeout")
    assert probe.delays == [1.0]
    assert probe.logs == []


async def test_a_challenge_without_nonce_fails_the_start() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.challenge_payload = lambda nonce, ts: {"nonce": "  ", "ts": ts}
            async with running(fake.url, probe) as connection:
                with pytest.raises(GatewayError, match=r"^gateway connect challenge missing nonce$"):
                    await connection.wait_ready()
                await eventually(lambda: len(fake.closes) == 1)
    assert fake.closes == [(1008, "connect challenge missing nonce")]
    assert fake.connect_frames == []


async def test_an_invalid_challenge_timestamp_stops_the_client() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.challenge_payload = lambda nonce, ts: {"nonce": nonce, "ts": -1}
            async with running(fake.url, probe) as connection:
                with pytest.raises(GatewayError, match=r"^gateway connect challenge timestamp invalid$"):
                    await connection.wait_ready()
                await eventually(lambda: len(fake.closes) == 1)
    assert fake.closes == [(1008, "connect failed")]
    assert probe.logs == ["gateway connect failed: Error: gateway connect challenge timestamp invalid"]
    assert probe.delays == []


async def test_a_close_after_connect_and_before_hello_is_logged_and_fails_the_start() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.close_on_connect = (1008, "bye")
            async with running(fake.url, probe) as connection:
                with pytest.raises(GatewayClosed, match=r"^gateway closed \(1008\): bye$"):
                    await connection.wait_ready()
    assert probe.logs == ["gateway connect failed: Error: gateway closed (1008): bye"]


async def test_the_first_clean_close_before_hello_fails_the_start_silently() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.close_on_connect = (1000, "")
            async with running(fake.url, probe) as connection:
                with pytest.raises(GatewayClosed, match=r"^gateway closed before ready \(1000\): $"):
                    await connection.wait_ready()
    assert probe.logs == []


async def test_an_unanswered_connect_is_closed_with_4000_connect_timeout() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.hold_connect = True
            async with running(fake.url, probe, connect_timeout_ms=100) as connection:
                with pytest.raises(GatewayClosed, match=r"^gateway closed \(4000\): connect timeout$"):
                    await connection.wait_ready()
                await eventually(lambda: len(fake.closes) == 1)
    assert fake.closes == [(4000, "connect timeout")]
    assert probe.logs == ["gateway connect failed: Error: gateway closed (4000): connect timeout"]
    assert fake.violations == []


async def test_a_failed_first_subscribe_fails_the_start() -> None:
    probe = Probe()
    error = {"code": "FORBIDDEN", "message": "missing scope: operator.read", "details": {"code": "MISSING_SCOPE"}}
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.subscribe_error = error
            async with running(fake.url, probe) as connection:
                with pytest.raises(GatewayRequestError, match=r"^missing scope: operator.read$") as caught:
                    await connection.wait_ready()
                assert caught.value.code == "FORBIDDEN"
                await eventually(lambda: connection.state == "disconnected")
    assert probe.logs == []
    assert probe.delays == []


class _BrokenStore(InMemoryDeviceIdentityStore):
    async def load_or_create_identity(self) -> DeviceIdentity:
        raise GatewayError("device identity store unavailable: disk I/O error")


async def test_an_identity_store_failure_is_the_start_error() -> None:
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, Probe(), store=_BrokenStore()) as connection:
            with pytest.raises(GatewayError, match=r"^device identity store unavailable: disk I/O error$"):
                await connection.wait_ready()
    assert fake.opened == 0


# --- the state machine (§7.3) --------------------------------------------------------------------------


async def test_requests_fail_fast_in_every_state_before_ready() -> None:
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.send_challenge = False
            async with running(fake.url, Probe()) as connection:
                await eventually(lambda: fake.opened == 1)
                assert connection.state == "connecting"
                with pytest.raises(GatewayNotConnected, match=r"^gateway not connected$"):
                    await connection.request("sessions.list", {})
            fake.send_challenge = True
            fake.hold_connect = True
            async with running(fake.url, Probe()) as connection:
                await eventually(lambda: connection.state == "handshaking")
                with pytest.raises(GatewayNotConnected):
                    await connection.request("sessions.list", {})
            fake.hold_connect = False
            fake.subscribe_gate = anyio.Event()
            async with running(fake.url, Probe()) as connection:
                await eventually(lambda: connection.state == "subscribing")
                with pytest.raises(GatewayNotConnected):
                    await connection.request("sessions.list", {})
                fake.subscribe_gate.set()
                await connection.wait_ready()
                assert connection.state == "ready"
    assert fake.violations == []
    assert [method for _, method, _ in fake.requests] == ["sessions.subscribe"]


async def test_reconnects_back_off_from_one_to_thirty_seconds_and_reset_after_hello() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:

            async def on_sleep(calls: int) -> None:
                if calls == 7:
                    await fake.start()

            probe.on_sleep = on_sleep
            async with running(fake.url, probe) as connection:
                await connection.wait_ready()
                await fake.stop()
                await eventually(lambda: connection.state != "ready")
                with pytest.raises(GatewayNotConnected):
                    await connection.request("sessions.list", {})
                await eventually(lambda: len(probe.delays) >= 7 and connection.state == "ready")
                assert probe.delays == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
                refused = f"gateway client error: Error: connect ECONNREFUSED 127.0.0.1:{fake.port}"
                assert probe.logs == [refused] * 6
                await fake.drop_connections()
                await eventually(lambda: len(probe.delays) == 8 and connection.state == "ready")
                assert probe.delays[-1] == 1.0
                assert [method for _, method, _ in fake.requests] == ["sessions.subscribe"] * 3


async def test_a_socket_failing_before_hello_keeps_growing_the_delay() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake:

            async def on_sleep(calls: int) -> None:
                if calls == 3:
                    fake.close_on_connect = None

            probe.on_sleep = on_sleep
            async with running(fake.url, probe) as connection:
                await connection.wait_ready()
                fake.close_on_connect = (1008, "nope")
                await fake.drop_connections()
                await eventually(lambda: len(probe.delays) == 3 and connection.state == "ready")
    assert probe.delays == [1.0, 2.0, 4.0]
    assert probe.logs == ["gateway connect failed: Error: gateway closed (1008): nope"] * 2


async def test_request_ids_count_per_connection_and_restart_after_a_reconnect() -> None:
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.handle("health", lambda params: {"ok": True})
            async with running(fake.url, Probe()) as connection:
                await connection.wait_ready()
                assert await connection.request("health") == {"ok": True}
                await fake.drop_connections()
                await eventually(lambda: len(fake.raw_requests) == 3 and connection.state == "ready")
                await connection.request("health", {"deep": True})
    ids = [json.loads(text)["id"].split(":")[0] for text in fake.raw_requests]
    assert ids == ["2", "3", "2", "3"]
    assert "params" not in json.loads(fake.raw_requests[1])


async def test_a_failed_subscribe_after_a_reconnect_is_logged_and_retried() -> None:
    probe = Probe()
    error = {"code": "FORBIDDEN", "message": "missing scope: operator.read"}
    with anyio.fail_after(5):
        async with FakeGateway() as fake:

            async def on_sleep(calls: int) -> None:
                if calls == 2:
                    fake.subscribe_error = None

            probe.on_sleep = on_sleep
            async with running(fake.url, probe) as connection:
                await connection.wait_ready()
                fake.subscribe_error = error
                await fake.drop_connections()
                await eventually(lambda: len(probe.delays) == 2 and connection.state == "ready")
    assert probe.logs == ["gateway connect failed: GatewayClientRequestError: missing scope: operator.read"]
    assert (1000, "") in fake.closes
    assert probe.delays == [1.0, 1.0]


async def test_a_token_mismatch_on_reconnect_retries_once_with_the_device_token() -> None:
    probe = Probe()
    store = InMemoryDeviceIdentityStore()
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, probe, store=store) as connection:
            await connection.wait_ready()
            fake.token = "rotated"
            await fake.drop_connections()
            await eventually(lambda: len(fake.connect_params) == 3 and connection.state == "ready")
    assert [params["auth"] for params in fake.connect_params] == [
        {"token": CONNECTED},
        {"token": CONNECTED},
        {"token": CONNECTED, "deviceToken": "fake-device-token-1"},
    ]
    assert probe.delays == [1.0, 0.25]
    assert probe.logs == [f"gateway connect failed: GatewayClientRequestError: {TOKEN_MISMATCH}"]


async def test_a_rejected_stored_device_token_is_cleared() -> None:
    store = InMemoryDeviceIdentityStore()
    identity = await store.load_or_create_identity()
    await store.save_token(identity.device_id, "operator", "stale", ["operator.read"])
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, probe, store=store, token=None) as connection:
            with pytest.raises(GatewayRequestError, match=re.escape(DEVICE_TOKEN_MISMATCH)):
                await connection.wait_ready()
            await eventually(lambda: len(fake.closes) == 1)
    assert fake.connect_params[0]["auth"] == {"deviceToken": "stale"}
    assert await store.load_token(identity.device_id, "operator") is None


async def test_a_non_recoverable_rejection_after_ready_stops_reconnecting() -> None:
    probe = Probe()
    shape = {
        "code": "NOT_PAIRED",
        "message": METADATA_UPGRADE,
        "details": {"code": "PAIRING_REQUIRED", "reason": "not-paired"},
    }
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, probe) as connection:
            await connection.wait_ready()
            fake.reject_connects(shape)
            await fake.drop_connections()
            await eventually(lambda: len(probe.logs) == 1)
            await anyio.sleep(0.05)
            assert connection.state == "disconnected"
            with pytest.raises(GatewayNotConnected):
                await connection.request("sessions.list", {})
    assert probe.logs == ["gateway connect failed: GatewayClientRequestError: device pairing required"]
    assert probe.delays == [1.0]
    assert len(fake.connect_frames) == 2


# --- requests ------------------------------------------------------------------------------------------


async def test_a_request_times_out_with_the_method_name_and_a_late_answer_is_ignored() -> None:
    gate = anyio.Event()

    async def slow(params: Any) -> Any:
        await gate.wait()
        return {"late": True}

    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, Probe(), request_timeout_ms=50) as connection:
            fake.handle("slow.method", slow)
            fake.handle("health", lambda params: {"ok": True})
            await connection.wait_ready()
            with pytest.raises(GatewayTimeout, match=r"^gateway request timeout for slow.method$"):
                await connection.request("slow.method", {})
            gate.set()
            assert await connection.request("health") == {"ok": True}
            assert connection.state == "ready"


async def test_gateway_errors_keep_code_message_and_details() -> None:
    def fail(params: Any) -> Any:
        raise MethodError(
            {"code": "INVALID_REQUEST", "message": "approval already resolved", "details": {"reason": "X"}}
        )

    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, Probe()) as connection:
            fake.handle("exec.approval.resolve", fail)
            await connection.wait_ready()
            with pytest.raises(GatewayRequestError) as caught:
                await connection.request("exec.approval.resolve", {"id": "x", "decision": "deny"})
    assert (str(caught.value), caught.value.code, caught.value.details) == (
        "approval already resolved",
        "INVALID_REQUEST",
        {"reason": "X"},
    )


async def test_a_request_needs_a_method_name() -> None:
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, Probe()) as connection:
            await connection.wait_ready()
            with pytest.raises(GatewayError, match=r"^invalid request frame: method must be a non-empty string$"):
                await connection.request("")


async def test_requests_in_flight_fail_with_the_close_code_and_reason() -> None:
    async def never(params: Any) -> Any:
        await anyio.sleep_forever()

    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, Probe()) as connection:
            fake.handle("agent.wait", never)
            await connection.wait_ready()
            outcome: list[BaseException] = []

            async def call() -> None:
                try:
                    await connection.request("agent.wait", {})
                except GatewayError as exc:
                    outcome.append(exc)

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                await eventually(lambda: len(fake.requests) == 2)
                await fake.drop_connections(1012, "service restart")
    assert [type(exc) for exc in outcome] == [GatewayClosed]
    assert str(outcome[0]) == "gateway closed (1012): service restart"


# --- inbound frames ------------------------------------------------------------------------------------


async def test_only_bridge_events_after_hello_reach_on_event_in_order() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, probe) as connection:
            fake.handle("health", lambda params: {})
            await connection.wait_ready()
            await fake.push_event("tick", {"ts": 1})
            await fake.push_event("health", {"ok": True}, seq=1)
            await fake.push_event("session.message", {"sessionKey": "a"}, seq=2)
            await fake.push_event("exec.approval.requested", {"id": "e"}, seq=3)
            await fake.push_event("plugin.approval.resolved", seq=7)
            await fake.push_event("connect.challenge", {"nonce": "x", "ts": 1})
            await fake.push_event("exec.approval.resolved", {"id": "e"}, seq=8)
            await fake.push_event("plugin.approval.requested", {"id": "p"}, seq=9)
            await connection.request("health")
    assert probe.events == [
        GatewayEvent("session.message", {"sessionKey": "a"}, 2),
        GatewayEvent("exec.approval.requested", {"id": "e"}, 3),
        GatewayEvent("plugin.approval.resolved", UNDEFINED, 7),
        GatewayEvent("exec.approval.resolved", {"id": "e"}, 8),
        GatewayEvent("plugin.approval.requested", {"id": "p"}, 9),
    ]


async def test_an_event_callback_failure_is_logged_and_the_connection_carries_on() -> None:
    logs: list[str] = []
    seen: list[GatewayEvent] = []

    def on_event(event: GatewayEvent) -> None:
        seen.append(event)
        if len(seen) == 1:
            raise ValueError("boom")

    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.handle("health", lambda params: {})
            gateway = WebsocketsGateway(InMemoryDeviceIdentityStore(), platform="linux")
            settings = GatewaySettings(url=fake.url, token=CONNECTED)
            async with gateway.connect(settings, on_event=on_event, log=logs.append) as connection:
                await connection.wait_ready()
                await fake.push_event("session.message", {"n": 1})
                await fake.push_event("session.message", {"n": 2})
                await connection.request("health")
    assert [event.payload for event in seen] == [{"n": 1}, {"n": 2}]
    assert logs == ["gateway client event handler error: ValueError: boom"]


async def test_garbage_frames_are_ignored() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway() as fake, running(fake.url, probe) as connection:
            fake.handle("health", lambda params: {"ok": True})
            await connection.wait_ready()
            for data in [
                "not json",
                "[1,2]",
                "NaN",
                '{"type":"res","id":"99:unknown","ok":true,"payload":1}',
                '{"type":"event","event":"session.message","seq":-1}',
                '{"type":"res"}',
                b"\xff\xfe",
                b'{"type":"event","event":"session.message","payload":{"binary":true}}',
            ]:
                await fake.send_raw(data)
            assert await connection.request("health") == {"ok": True}
            assert connection.state == "ready"
    assert probe.events == [GatewayEvent("session.message", {"binary": True}, None)]
    assert fake.opened == 1


async def test_a_message_of_exactly_25_mib_is_accepted() -> None:
    probe = Probe()
    head = '{"type":"event","event":"session.message","payload":"'
    text = head + "x" * (MAX_PAYLOAD_BYTES - len(head) - 2) + '"}'
    assert len(text) == MAX_PAYLOAD_BYTES
    with anyio.fail_after(10):
        async with FakeGateway() as fake, running(fake.url, probe) as connection:
            await connection.wait_ready()
            await fake.send_raw(text)
            await eventually(lambda: len(probe.events) == 1)
            assert connection.state == "ready"


async def test_an_oversized_message_closes_the_socket_with_1009_and_the_client_reconnects() -> None:
    probe = Probe()

    async def never(params: Any) -> Any:
        await anyio.sleep_forever()

    with anyio.fail_after(10):
        async with FakeGateway() as fake, running(fake.url, probe) as connection:
            fake.handle("agent.wait", never)
            await connection.wait_ready()
            outcome: list[BaseException] = []

            async def call() -> None:
                try:
                    await connection.request("agent.wait", {})
                except GatewayError as exc:
                    outcome.append(exc)

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                await eventually(lambda: len(fake.requests) == 2)
                await fake.send_raw("x" * (MAX_PAYLOAD_BYTES + 1))
            await eventually(lambda: fake.opened == 2 and connection.state == "ready")
    assert [type(exc) for exc in outcome] == [GatewayClosed]
    assert str(outcome[0]).startswith("gateway closed (1009): ")
    assert fake.closes[0][0] == 1009
    assert probe.delays == [1.0]


async def test_silence_longer_than_two_tick_intervals_closes_with_4000_and_reconnects() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with (
            FakeGateway(tick_interval_ms=20) as fake,
            running(fake.url, probe, tick_watch_min_interval_ms=10) as connection,
        ):
            await connection.wait_ready()
            await eventually(lambda: len(fake.closes) >= 1)
            await eventually(lambda: connection.state == "ready" and fake.opened >= 2)
    assert fake.closes[0] == (4000, "tick timeout")
    assert probe.delays[0] == 1.0
    assert probe.logs == []


# --- stop ----------------------------------------------------------------------------------------------


async def test_leaving_the_block_fails_pending_requests_and_closes_the_socket() -> None:
    outcome: list[BaseException] = []

    async def never(params: Any) -> Any:
        await anyio.sleep_forever()

    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.handle("agent.wait", never)
            async with anyio.create_task_group() as tg, running(fake.url, Probe()) as connection:
                await connection.wait_ready()

                async def call() -> None:
                    try:
                        await connection.request("agent.wait", {})
                    except GatewayError as exc:
                        outcome.append(exc)

                tg.start_soon(call)
                await eventually(lambda: len(fake.requests) == 2)
            assert connection.state == "stopped"
            with pytest.raises(GatewayStopped, match=r"^gateway client stopped$"):
                await connection.request("health")
            await eventually(lambda: len(fake.closes) == 1)
    assert [str(exc) for exc in outcome] == ["gateway client stopped"]
    assert isinstance(outcome[0], GatewayStopped)
    assert fake.closes == [(1000, "")]


async def test_leaving_before_ready_releases_wait_ready_with_stopped() -> None:
    outcome: list[BaseException] = []
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            fake.hold_connect = True
            async with anyio.create_task_group() as tg, running(fake.url, Probe()) as connection:

                async def wait() -> None:
                    try:
                        await connection.wait_ready()
                    except GatewayError as exc:
                        outcome.append(exc)

                tg.start_soon(wait)
                await eventually(lambda: connection.state == "handshaking")
            await eventually(lambda: len(fake.closes) == 1)
    assert [type(exc) for exc in outcome] == [GatewayStopped]
    assert fake.closes == [(1000, "")]


async def test_a_cancelled_caller_still_closes_the_socket() -> None:
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            with anyio.CancelScope() as scope:
                async with running(fake.url, Probe()) as connection:
                    await connection.wait_ready()
                    scope.cancel()
                    await anyio.sleep_forever()
            assert scope.cancelled_caught
            await eventually(lambda: len(fake.closes) == 1)
    assert fake.closes == [(1000, "")]
    assert connection.state == "stopped"


async def test_an_error_in_the_block_propagates_unwrapped() -> None:
    with anyio.fail_after(5):
        async with FakeGateway() as fake:
            with pytest.raises(KeyError):
                async with running(fake.url, Probe()) as connection:
                    await connection.wait_ready()
                    raise KeyError("mine")
            await eventually(lambda: len(fake.closes) == 1)


# --- TLS -----------------------------------------------------------------------------------------------


def _server_context(tmp_path: Path) -> tuple[ssl.SSLContext, str]:
    certificates = make_certificates(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates.server_cert, certificates.server_key)
    certificate = x509.load_pem_x509_certificate(certificates.server_cert.read_bytes())
    der = certificate.public_bytes(serialization.Encoding.DER)
    return context, hashlib.sha256(der).hexdigest()


async def test_a_pinned_tls_fingerprint_is_checked(tmp_path: Path) -> None:
    context, fingerprint = _server_context(tmp_path)
    colon_form = ":".join(fingerprint[i : i + 2] for i in range(0, 64, 2)).upper()
    probe = Probe()
    with anyio.fail_after(5):
        async with FakeGateway(ssl_context=context) as fake:
            assert fake.url.startswith("wss://127.0.0.1:")
            async with running(fake.url, Probe(), tls_fingerprint=f"sha256:{colon_form}") as connection:
                await connection.wait_ready()
            async with running(fake.url, probe, tls_fingerprint="ab" * 32) as connection:
                with pytest.raises(GatewayError, match=r"^gateway tls fingerprint mismatch$"):
                    await connection.wait_ready()
            async with running(fake.url, Probe()) as connection:
                with pytest.raises(GatewayError, match=r"^self-signed certificate$"):
                    await connection.wait_ready()
    assert probe.logs == ["gateway client error: Error: gateway tls fingerprint mismatch"]
    assert len(fake.connect_params) == 1


async def test_a_fingerprint_with_plain_ws_is_a_configuration_error() -> None:
    probe = Probe()
    with anyio.fail_after(5):
        async with running("ws://127.0.0.1:9", probe, tls_fingerprint="ab" * 32) as connection:
            with pytest.raises(GatewayError, match=r"^gateway tls fingerprint requires wss:// gateway url$"):
                await connection.wait_ready()
    assert probe.delays == []
