"""The ``automations`` executor against a fake Gateway caller (spec openclaw-tools.md §6.1–§6.3; acceptance
t7–t12 at the port level)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.gateway_caller import InMemoryGatewayCaller
from openclaw_mcp.application.openclaw_tools._automations import AutomationsTool
from openclaw_mcp.application.ports.gateway import (
    GatewayCallTarget,
    GatewayClosed,
    GatewayError,
    GatewayRequestError,
    GatewayTimeout,
    GatewayUnreachable,
)

pytestmark = pytest.mark.asyncio

PORT = 50907
CONFIG_PATH = "/state/openclaw.json"
IDENTITY = "Tool error: trusted operational run instance required for this gateway call"
STATUS = {"enabled": True, "triggersEnabled": True, "storage": "sqlite", "jobs": 0, "nextWakeAtMs": None}
SE_JOB = {"schedule": {"kind": "every", "everyMs": 60000}, "payload": {"kind": "systemEvent", "text": "x"}}


def fake_caller(answers: dict[str, Any] | None = None, error: GatewayError | None = None) -> InMemoryGatewayCaller:
    """The in-memory caller (no auth check): ``answers`` per method, or every call raising ``error``."""
    caller = InMemoryGatewayCaller()
    for method, payload in (answers or {}).items():
        caller.answer(method, payload)
    if error is not None:

        def fail(_params: Any) -> Any:
            raise error

        for method in ("cron.status", "chat.history"):
            caller.handle(method, fail)
    return caller


def token_config(token: str = "tok123") -> dict[str, Any]:
    return {"gateway": {"port": PORT, "auth": {"mode": "token", "token": token}}}


def make_tool(
    caller: InMemoryGatewayCaller, config: dict[str, Any] | None = None, env: dict[str, str] | None = None
) -> AutomationsTool:
    return AutomationsTool(
        session_key="agent:main:main",
        agent_id="main",
        config=token_config() if config is None else config,
        config_path=CONFIG_PATH,
        env=env or {},
        caller=caller,
        log=lambda line: None,
    )


async def call(tool: AutomationsTool, args: dict[str, Any] | None) -> dict[str, Any]:
    with anyio.fail_after(5):
        return await tool.call(args)


def text(result: dict[str, Any]) -> str:
    value = result["content"][0]["text"]
    assert isinstance(value, str)
    return value


async def test_status_returns_the_payload_as_a_json_result() -> None:
    caller = fake_caller(answers={"cron.status": STATUS})
    tool = make_tool(caller)
    first, second = await call(tool, {"action": "status"}), await call(tool, {"action": "status"})
    for result in (first, second):
        assert "isError" not in result
        assert text(result) == json.dumps(STATUS, indent=2, ensure_ascii=False)
        assert text(result).startswith('{\n  "enabled": true,\n')
    assert [c.method for c in caller.calls] == ["cron.status", "cron.status"]
    sent = caller.calls[0]
    assert sent.params == {} and sent.scopes == ("operator.read",) and sent.timeout_ms == 60000
    assert sent.target == GatewayCallTarget(url=f"ws://127.0.0.1:{PORT}", token="tok123")


async def test_identity_gated_actions_send_nothing() -> None:
    caller = fake_caller()
    tool = make_tool(caller)
    for args in ({"action": "list"}, {"action": "add", "job": SE_JOB}, {"action": "wake", "text": "hi"}):
        result = await call(tool, args)
        assert result == {"content": [{"type": "text", "text": IDENTITY}], "isError": True}
    assert caller.calls == []


async def test_add_with_context_messages_requests_history_then_fails() -> None:
    caller = fake_caller(answers={"chat.history": {"messages": []}})
    result = await call(make_tool(caller), {"action": "add", "contextMessages": 3, "job": SE_JOB})
    assert text(result) == IDENTITY and result["isError"] is True
    assert [(c.method, c.params, c.scopes) for c in caller.calls] == [
        ("chat.history", {"sessionKey": "agent:main:main", "agentId": "main", "limit": 3}, ("operator.read",))
    ]


async def test_history_errors_are_ignored() -> None:
    caller = fake_caller(error=GatewayUnreachable("connect ECONNREFUSED", "ECONNREFUSED"))
    result = await call(make_tool(caller), {"action": "add", "contextMessages": 3, "job": SE_JOB})
    assert text(result) == IDENTITY


async def test_history_without_credentials_is_skipped_and_still_fails_with_identity() -> None:
    caller = fake_caller()
    result = await call(make_tool(caller, config={}), {"action": "add", "contextMessages": 3, "job": SE_JOB})
    assert text(result) == IDENTITY and caller.calls == []


async def test_refused_connection_gives_the_refused_block() -> None:
    caller = fake_caller(error=GatewayUnreachable("connect ECONNREFUSED 127.0.0.1", "ECONNREFUSED"))
    result = await call(make_tool(caller), {"action": "status"})
    assert result["isError"] is True
    assert text(result) == (
        f"Tool error: Gateway not reachable at ws://127.0.0.1:{PORT} (ECONNREFUSED).\n"
        "Start it with `openclaw gateway run` or check `openclaw gateway status`.\n"
        f"Gateway target: ws://127.0.0.1:{PORT}\nSource: local loopback\nConfig: {CONFIG_PATH}\nBind: loopback"
    )


async def test_refused_override_names_the_cli_source_without_bind() -> None:
    caller = fake_caller(error=GatewayUnreachable("refused", "ECONNREFUSED"))
    result = await call(make_tool(caller), {"action": "status", "gatewayUrl": f"ws://localhost:{PORT}"})
    assert text(result).endswith(f"Gateway target: ws://localhost:{PORT}\nSource: cli --url\nConfig: {CONFIG_PATH}")
    assert caller.calls[0].target.token == "tok123"


async def test_other_socket_errors_keep_their_message() -> None:
    caller = fake_caller(error=GatewayUnreachable("self-signed certificate", "DEPTH_ZERO_SELF_SIGNED_CERT"))
    assert text(await call(make_tool(caller), {"action": "status"})) == "Tool error: self-signed certificate"


async def test_timeout_gives_the_timeout_text_and_details() -> None:
    caller = fake_caller(error=GatewayTimeout("gateway timeout after 1500ms"))
    result = await call(make_tool(caller), {"action": "status", "timeoutMs": 1500})
    assert caller.calls[0].timeout_ms == 1500
    assert text(result) == (
        "Tool error: gateway timeout after 1500ms\n"
        f"Gateway target: ws://127.0.0.1:{PORT}\nSource: local loopback\nConfig: {CONFIG_PATH}\nBind: loopback"
    )


async def test_closed_socket_appends_the_details() -> None:
    caller = fake_caller(error=GatewayClosed("gateway closed (1006): no close reason"))
    result = await call(make_tool(caller), {"action": "status"})
    assert text(result).startswith("Tool error: gateway closed (1006): no close reason\nGateway target: ")


async def test_rejected_connect_gives_the_gateway_message() -> None:
    message = "unauthorized: gateway token mismatch (provide gateway auth token)"
    caller = fake_caller(error=GatewayRequestError(message, "INVALID_REQUEST"))
    result = await call(make_tool(caller, config=token_config("wrong")), {"action": "status"})
    assert result == {"content": [{"type": "text", "text": f"Tool error: {message}"}], "isError": True}


async def test_missing_credentials_fail_before_any_socket() -> None:
    caller = fake_caller()
    result = await call(make_tool(caller, config={}), {"action": "status"})
    assert text(result) == (
        "Tool error: gateway cron.status requires credentials before opening a websocket\n"
        "Fix: configure gateway.auth token/password, pair this device, or pass --token/--password.\n"
        f"Config: {CONFIG_PATH}"
    )
    assert caller.calls == []


async def test_override_errors_are_redacted_like_the_reference() -> None:
    caller = fake_caller()
    config = {"gateway": {"port": PORT, "auth": {"mode": "password", "password": "pw"}}}
    result = await call(make_tool(caller, config=config), {"action": "status", "gatewayUrl": f"ws://127.0.0.1:{PORT}"})
    assert text(result) == (
        "Tool error: gateway url override requires explicit credentials\n"
        "Fix: pass --token or --password *** --url (or gatewayToken in tools).\n"
        "For the default local or SSH-tunneled Gateway, remove --url to use the configured target.\n"
        f"Config: {CONFIG_PATH}"
    )
    assert caller.calls == []


async def test_password_mode_sends_the_password() -> None:
    caller = fake_caller(answers={"cron.status": STATUS})
    config = {"gateway": {"port": PORT, "auth": {"mode": "password", "password": "pw"}}}
    await call(make_tool(caller, config=config), {"action": "status"})
    assert caller.calls[0].target == GatewayCallTarget(url=f"ws://127.0.0.1:{PORT}", password="pw")


async def test_local_errors_and_url_errors_send_nothing() -> None:
    caller = fake_caller()
    tool = make_tool(caller)
    assert text(await call(tool, None)) == "Tool error: action required"
    invalid = await call(tool, {"action": "status", "gatewayUrl": "not a url"})
    assert text(invalid) == "Tool error: invalid gatewayUrl: not a url (Invalid URL) | ERR_INVALID_URL"
    assert caller.calls == []
