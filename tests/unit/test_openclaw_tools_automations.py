"""The ``automations`` tool's local rules (spec openclaw-tools.md §5, §6.1–§6.3; acceptance t6, t8, t10).

Expected texts were observed on the reference (``openclaw-tools-serve.js`` 2026.9.6).
"""

from __future__ import annotations

from typing import Any

import pytest

from openclaw_mcp.domain.openclaw_tools._automation_checks import parse_duration_ms
from openclaw_mcp.domain.openclaw_tools.automations import (
    IDENTITY_ERROR,
    TRUSTED_CONTEXT_ERROR,
    CallStatus,
    Fail,
    FetchHistoryThenFail,
    plan_automations_call,
)
from openclaw_mcp.domain.openclaw_tools.tool_gateway import (
    GatewayTargetError,
    resolve_call_target,
    resolve_gateway_port,
    resolve_tool_gateway,
)

PORT = 50907
CONFIG: dict[str, Any] = {"gateway": {"port": PORT, "auth": {"mode": "token", "token": "tok"}}}
SE_JOB: dict[str, Any] = {
    "schedule": {"kind": "every", "everyMs": 1000},
    "payload": {"kind": "systemEvent", "text": "x"},
}
AT_JOB: dict[str, Any] = {
    "schedule": {"kind": "every", "everyMs": 1000},
    "payload": {"kind": "agentTurn", "message": "x"},
}
COMMAND = (
    "automation command payloads cannot be created or edited through the agent automations tool; "
    "use the CLI or Gateway API."
)
ON_EXIT = (
    "automation on-exit schedules cannot be created or edited through the agent automations tool; "
    "use the CLI or Gateway API."
)
WEBHOOK = 'delivery.mode="webhook" requires delivery.to to be a valid http(s) URL'
REJECTED = (
    f"gatewayUrl override rejected. Allowed: ws(s) loopback on port {PORT} (127.0.0.1/localhost/[::1]) "
    "Or: configure gateway.remote.url and omit gatewayUrl to use the configured remote gateway."
)


def plan(args: Any, config: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> Any:
    return plan_automations_call(
        args, session_key="agent:main:main", agent_id="main", config=CONFIG if config is None else config, env=env or {}
    )


def job(**extra: Any) -> dict[str, Any]:
    return {**SE_JOB, **extra}


def failure(args: Any, **kw: Any) -> str:
    outcome = plan(args, **kw)
    assert isinstance(outcome, Fail), outcome
    return outcome.message


LOCAL_ERRORS = [
    # acceptance t6
    ({}, "action required"),
    ({"action": 5}, "action required"),
    ({"action": "  "}, "action required"),
    ({"Action": "status"}, "action required"),
    ({"action": "bogus"}, "Unknown action: bogus"),
    ({"action": "get"}, "jobId required (id accepted for backward compatibility)"),
    ({"action": "list", "limit": 500}, "limit must be a positive integer no greater than 200"),
    ({"action": "list", "offset": -1}, "offset must be a non-negative integer"),
    ({"action": "wake"}, "text required"),
    ({"action": "wake", "text": " "}, "text required"),
    ({"action": "next_check", "in": "5m"}, "cron next_check is only available to the currently running job"),
    ({"action": "add"}, "job required"),
    ({"action": "update", "jobId": "j1"}, "job required"),
    (
        {"action": "add", "job": {"schedule": {"kind": "every", "everyMs": 1000}, "payload": {"kind": "command"}}},
        COMMAND,
    ),
    ({"action": "add", "job": job(declarationKey=" ")}, "declarationKey must be a non-empty string"),
    # integers and ids
    ({"action": "status", "timeoutMs": "abc"}, "timeoutMs must be a positive integer"),
    ({"action": "status", "timeoutMs": 0}, "timeoutMs must be a positive integer"),
    ({"action": "status", "timeout_ms": 1.5}, "timeoutMs must be a positive integer"),
    ({"action": "bogus", "timeoutMs": -5}, "timeoutMs must be a positive integer"),
    ({"action": "list", "limit": 0}, "limit must be a positive integer no greater than 200"),
    ({"action": "list", "limit": "abc"}, "limit must be a positive integer no greater than 200"),
    ({"action": "list", "limit": 1.5}, "limit must be a positive integer no greater than 200"),
    ({"action": "list", "limit": True}, "limit must be a positive integer no greater than 200"),
    ({"action": "list", "offset": 1.5}, "offset must be a non-negative integer"),
    ({"action": "run"}, "jobId required (id accepted for backward compatibility)"),
    ({"action": "runs", "id": " "}, "jobId required (id accepted for backward compatibility)"),
    ({"action": "remove", "jobId": 5}, "jobId required (id accepted for backward compatibility)"),
    ({"action": "get", "JobId": "x"}, "jobId required (id accepted for backward compatibility)"),
    ({"action": "update", "job": {"enabled": False}}, "jobId required (id accepted for backward compatibility)"),
    # §6.2 add
    ({"action": "add", "job": "str"}, "job required"),
    ({"action": "add", "job": job(pacing=5)}, "cron pacing must be an object"),
    ({"action": "add", "job": job(pacing=[])}, "cron pacing must be an object"),
    ({"action": "add", "job": job(pacing={})}, "cron pacing requires at least one of min or max"),
    ({"action": "add", "job": job(pacing={"min": "bad"})}, "cron pacing min must be a positive duration"),
    ({"action": "add", "job": job(pacing={"min": "0m"})}, "cron pacing min must be a positive duration"),
    ({"action": "add", "job": job(pacing={"max": 5})}, "cron pacing max must be a positive duration"),
    ({"action": "add", "job": job(pacing={"min": "4h", "max": "1h"})}, "cron pacing min must not exceed max"),
    ({"action": "add", "job": job(delivery={"channel": " "})}, "delivery.channel must be a non-empty string"),
    ({"action": "add", "job": job(delivery={"to": 5})}, "delivery.to must be a non-empty string"),
    (
        {"action": "add", "job": job(delivery={"failureDestination": {"channel": ""}})},
        "delivery.failureDestination.channel must be a non-empty string",
    ),
    (
        {"action": "add", "job": job(delivery={"failureDestination": {"to": " "}})},
        "delivery.failureDestination.to must be a non-empty string",
    ),
    (
        {"action": "add", "job": job(delivery={"completionDestination": {"to": " "}})},
        "delivery.completionDestination.to must be a non-empty string",
    ),
    ({"action": "add", "job": job(delivery={"channel": " "}, pacing=5)}, "delivery.channel must be a non-empty string"),
    ({"action": "add", "job": job(pacing=5, declarationKey=" ")}, "cron pacing must be an object"),
    (
        {"action": "add", "job": {"schedule": {"kind": "on-exit", "command": ["ls"]}, "payload": SE_JOB["payload"]}},
        ON_EXIT,
    ),
    ({"action": "add", "command": ["ls"], "text": "x"}, ON_EXIT),
    ({"action": "add", "job": {"payload": {"kind": "command"}, "schedule": {"kind": "on-exit"}}}, COMMAND),
    ({"action": "add", "job": job(payload={"kind": "COMMAND"})}, COMMAND),
    ({"action": "add", "job": {"schedule ": {"kind": "every"}, "payload": {"kind": "command"}}}, COMMAND),
    ({"action": "add", "job": {"data": {"payload": {"kind": "command"}}}}, COMMAND),
    ({"action": "add", "job": job(displayName=" ")}, "displayName must be a non-empty string"),
    ({"action": "add", "job": {**AT_JOB, "delivery": {"mode": "webhook", "to": "ftp://x"}}}, WEBHOOK),
    ({"action": "add", "job": {**AT_JOB, "delivery": {"mode": "Webhook"}}}, WEBHOOK),
    ({"action": "add", "job": {**AT_JOB, "delivery": {"mode": "webhook", "to": "https://u:p@x"}}}, WEBHOOK),
    ({"action": "add", "message": "x", "every": 1000, "delivery": {"mode": "webhook", "to": "nope"}}, WEBHOOK),
    ({"action": "add", "job": SE_JOB, "contextMessages": -1}, "contextMessages must be a non-negative integer"),
    ({"action": "add", "job": SE_JOB, "contextMessages": "abc"}, "contextMessages must be a non-negative integer"),
    # update
    (
        {"action": "update", "jobId": "j1", "job": {"displayName": " "}},
        "displayName must be a non-empty string or null",
    ),
    ({"action": "update", "jobId": "j1", "payload": {}}, "job required"),
    ({"action": "update", "jobId": "j1", "job": "str"}, "job required"),
    ({"action": "update", "jobId": "j1", "job": {"payload": {"kind": "command"}}}, COMMAND),
    ({"action": "update", "jobId": "j1", "job": {"schedule": {"kind": "on-exit"}}}, ON_EXIT),
    ({"action": "update", "jobId": "j1", "job": {"pacing": {}}}, "cron pacing requires at least one of min or max"),
    ({"action": "update", "jobId": "j1", "job": {"delivery": {"to": ""}}}, "delivery.to must be a non-empty string"),
    # §6.3 gatewayUrl checks come before the identity error and before any call
    ({"action": "status", "gatewayUrl": "not a url"}, "invalid gatewayUrl: not a url (Invalid URL) | ERR_INVALID_URL"),
    (
        {"action": "status", "gatewayUrl": "  not a url  "},
        "invalid gatewayUrl: not a url (Invalid URL) | ERR_INVALID_URL",
    ),
    (
        {"action": "status", "gatewayUrl": f"ws://u:p@127.0.0.1:{PORT}"},
        "invalid gatewayUrl: credentials are not allowed",
    ),
    ({"action": "status", "gatewayUrl": f"ws://127.0.0.1:{PORT}/?x=1"}, "invalid gatewayUrl: query/hash not allowed"),
    ({"action": "status", "gatewayUrl": f"ws://127.0.0.1:{PORT}#h"}, "invalid gatewayUrl: query/hash not allowed"),
    ({"action": "status", "gatewayUrl": f"ws://127.0.0.1:{PORT}/x"}, "invalid gatewayUrl: path not allowed"),
    ({"action": "status", "gatewayUrl": "ftp://x"}, "invalid gatewayUrl protocol: ftp: (expected ws:// or wss://)"),
    (
        {"action": "status", "gatewayUrl": "http://127.0.0.1:1"},
        "invalid gatewayUrl protocol: http: (expected ws:// or wss://)",
    ),
    ({"action": "status", "gatewayUrl": "ws://example.com:1"}, REJECTED),
    ({"action": "list", "gatewayUrl": "not a url"}, "invalid gatewayUrl: not a url (Invalid URL) | ERR_INVALID_URL"),
    ({"action": "list", "gatewayUrl": "ws://example.com:1"}, REJECTED),
]


@pytest.mark.parametrize(("args", "message"), LOCAL_ERRORS)
def test_local_checks_fail_with_the_reference_text(args: dict[str, Any], message: str) -> None:
    assert failure(args) == message


IDENTITY_GATED = [
    {"action": "list"},
    {"action": "list", "includeDisabled": True, "limit": 5},
    {"action": "list", "limit": "5", "offset": "2"},
    {"action": "list", "limit": " ", "gatewayToken": " "},
    {"action": "list", "limit": None},
    {"action": "get", "jobId": "j1"},
    {"action": "get", "job_id": "x"},
    {"action": "add", "job": {"name": "t", **SE_JOB}},
    {"action": "add", "message": "hi", "every": 60000},
    {"action": "add", "job": job(pacing=None)},
    {"action": "add", "job": job(pacing={"min": "1h30m", "max": "2h"})},
    {"action": "add", "job": job(delivery={"channel": None})},
    {"action": "add", "job": job(displayName=5, declarationKey=5)},
    {"action": "add", "job": {**SE_JOB, "delivery": {"mode": "webhook", "to": "ftp://x"}}},
    {"action": "add", "job": []},
    {"action": "add", "job": {}},
    {"action": "add", "job": {}, "name": "x"},
    {"action": "add", "job": {}, "cron": "* * * * *"},
    {"action": "update", "jobId": "j1", "job": {"enabled": False}},
    {"action": "update", "jobId": "j1", "name": "x"},
    {"action": "update", "jobId": "j1", "enabled": False},
    {"action": "update", "jobId": "j1", "job": {"declarationKey": " "}},
    {"action": "update", "jobId": "j1", "job": {"displayName": None}},
    {"action": "remove", "jobId": "j1"},
    {"action": "remove", "id": "j1"},
    {"action": "run", "jobId": "j1", "runMode": "force"},
    {"action": "runs", "job_id": "j1"},
    {"action": "wake", "text": "hi", "mode": "now"},
]


@pytest.mark.parametrize("args", IDENTITY_GATED)
def test_identity_gated_actions_fail_locally_with_the_identity_error(args: dict[str, Any]) -> None:
    assert failure(args) == IDENTITY_ERROR


@pytest.mark.parametrize("extra", [{"gatewayUrl": f"ws://localhost:{PORT}"}, {"gatewayToken": "x"}])
def test_explicit_gateway_options_need_the_trusted_local_context(extra: dict[str, str]) -> None:
    assert failure({"action": "list", **extra}) == TRUSTED_CONTEXT_ERROR


def test_a_remote_target_needs_the_trusted_local_context() -> None:
    env = {"OPENCLAW_GATEWAY_URL": f"ws://127.0.0.1:{PORT}"}
    assert failure({"action": "list"}, env=env) == TRUSTED_CONTEXT_ERROR
    remote = {"gateway": {"mode": "remote", "remote": {"url": "wss://gw.example.com"}}}
    assert failure({"action": "wake", "text": "x"}, config=remote) == TRUSTED_CONTEXT_ERROR
    assert failure({"action": "list"}, config={"gateway": {"mode": "remote"}}) == IDENTITY_ERROR


def test_status_plans_cron_status_with_read_scope_and_default_timeout() -> None:
    outcome = plan({"action": " status "})
    assert isinstance(outcome, CallStatus)
    request = outcome.request
    assert (request.method, request.params, request.scopes, request.timeout_ms) == (
        "cron.status",
        {},
        ("operator.read",),
        60000,
    )
    assert request.gateway.url is None and request.gateway.target == "local"


def test_timeout_ms_accepts_numeric_strings() -> None:
    outcome = plan({"action": "status", "timeoutMs": "700"})
    assert isinstance(outcome, CallStatus) and outcome.request.timeout_ms == 700


def test_blank_gateway_url_is_absent() -> None:
    outcome = plan({"action": "status", "gatewayUrl": "   "})
    assert isinstance(outcome, CallStatus) and outcome.request.gateway.url is None


def test_allowed_override_is_canonicalised_and_takes_the_config_token() -> None:
    outcome = plan({"action": "status", "gatewayUrl": f"WS://LOCALHOST:{PORT}/"})
    assert isinstance(outcome, CallStatus)
    assert outcome.request.gateway.url == f"ws://localhost:{PORT}"
    assert outcome.request.gateway.token == "tok"


def test_add_with_context_messages_fetches_history_then_fails() -> None:
    outcome = plan({"action": "add", "contextMessages": 3, "job": SE_JOB})
    assert isinstance(outcome, FetchHistoryThenFail)
    assert outcome.message == IDENTITY_ERROR
    request = outcome.request
    assert request.method == "chat.history" and request.scopes == ("operator.read",)
    assert request.params == {"sessionKey": "agent:main:main", "agentId": "main", "limit": 3}


def test_context_messages_are_capped_at_ten_and_need_a_system_event_text() -> None:
    outcome = plan({"action": "add", "context_messages": "12", "job": SE_JOB})
    assert isinstance(outcome, FetchHistoryThenFail) and outcome.request.params["limit"] == 10
    assert isinstance(plan({"action": "add", "contextMessages": 3, "job": AT_JOB}), Fail)
    assert isinstance(plan({"action": "add", "contextMessages": 0, "job": SE_JOB}), Fail)
    blank = {**SE_JOB, "payload": {"kind": "systemEvent", "text": " "}}
    assert isinstance(plan({"action": "add", "contextMessages": 2, "job": blank}), Fail)


def test_history_with_explicit_token_ends_in_the_trusted_context_error() -> None:
    outcome = plan({"action": "add", "contextMessages": 1, "gatewayToken": "x", "job": SE_JOB})
    assert isinstance(outcome, FetchHistoryThenFail) and outcome.message == TRUSTED_CONTEXT_ERROR


def test_arguments_none_means_no_action() -> None:
    assert failure(None) == "action required"


@pytest.mark.parametrize(
    ("text", "ms"),
    [("500", 500), ("30s", 30000), ("5m", 300000), ("1h30m", 5400000), ("1.5h", 5400000), (" 2D ", 172800000)],
)
def test_durations_parse_like_the_reference(text: str, ms: int) -> None:
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("text", ["", "bad", "1e3", "5 m", "m5", "1h 30m", 5, None])
def test_invalid_durations_are_rejected(text: object) -> None:
    assert parse_duration_ms(text) is None


# --- target resolution (§6.3) ------------------------------------------------------------------------------


def test_port_precedence_env_then_config_then_default() -> None:
    assert resolve_gateway_port({}, {}) == 18789
    assert resolve_gateway_port({"gateway": {"port": 1234}}, {}) == 1234
    assert resolve_gateway_port({"gateway": {"port": 1234}}, {"OPENCLAW_GATEWAY_PORT": "4321"}) == 4321
    assert resolve_gateway_port({}, {"OPENCLAW_GATEWAY_PORT": "127.0.0.1:4000"}) == 4000
    assert resolve_gateway_port({"gateway": {"port": 0}}, {"OPENCLAW_GATEWAY_PORT": "x"}) == 18789


def target(
    config: dict[str, Any], env: dict[str, str] | None = None, url: str | None = None, token: str | None = None
) -> Any:
    env = env or {}
    return resolve_call_target(config, env, "/cfg.json", resolve_tool_gateway(config, env, url, token))


def test_local_target_uses_loopback_port_and_config_token_over_env() -> None:
    resolved = target({"gateway": {"port": 9, "auth": {"token": "cfg"}}}, {"OPENCLAW_GATEWAY_TOKEN": "env"})
    assert (resolved.url, resolved.token, resolved.needs_device) == ("ws://127.0.0.1:9", "cfg", False)
    assert (
        resolved.details.message
        == "Gateway target: ws://127.0.0.1:9\nSource: local loopback\nConfig: /cfg.json\nBind: loopback"
    )


def test_env_token_is_used_without_config_token_and_gateway_token_wins() -> None:
    assert target({}, {"OPENCLAW_GATEWAY_TOKEN": "env"}).token == "env"
    assert target({"gateway": {"auth": {"token": "cfg"}}}, token="mine").token == "mine"


def test_password_mode_sends_the_password_and_config_beats_env() -> None:
    config = {"gateway": {"auth": {"mode": "password", "password": "pw"}}}
    resolved = target(config, {"OPENCLAW_GATEWAY_PASSWORD": "envpw"})
    assert (resolved.token, resolved.password, resolved.needs_device) == (None, "pw", False)


def test_missing_secret_is_reported_for_token_and_password_modes_only() -> None:
    assert target({}).missing_credentials
    assert target({"gateway": {"auth": {"mode": "password"}}}).missing_credentials
    none_mode = target({"gateway": {"auth": {"mode": "none"}}})
    assert not none_mode.missing_credentials and none_mode.needs_device


def test_tls_and_bind_shape_the_local_target() -> None:
    resolved = target({"gateway": {"port": 7, "bind": "lan", "tls": {"enabled": True}, "auth": {"token": "t"}}})
    assert resolved.url == "wss://127.0.0.1:7" and resolved.details.bind == "lan"


def test_env_url_is_a_remote_target_needing_env_credentials() -> None:
    env = {"OPENCLAW_GATEWAY_URL": "ws://127.0.0.1:5"}
    with pytest.raises(GatewayTargetError) as caught:
        target(CONFIG, env)
    assert caught.value.text == (
        "gateway url override requires explicit credentials\n"
        "Fix: pass --token or --password with --url (or gatewayToken in tools).\n"
        "Set OPENCLAW_GATEWAY_TOKEN or OPENCLAW_GATEWAY_PASSWORD alongside OPENCLAW_GATEWAY_URL; "
        "config credentials are intentionally not reused.\nConfig: /cfg.json"
    )
    resolved = target(CONFIG, {**env, "OPENCLAW_GATEWAY_TOKEN": "t"})
    assert (resolved.url, resolved.token, resolved.details.source) == (
        "ws://127.0.0.1:5",
        "t",
        "env OPENCLAW_GATEWAY_URL",
    )
    assert resolved.details.bind is None


def test_override_without_a_token_for_its_target_needs_explicit_credentials() -> None:
    config = {"gateway": {"port": 5, "auth": {"mode": "password", "password": "pw"}}}
    with pytest.raises(GatewayTargetError) as caught:
        target(config, url="ws://127.0.0.1:5")
    assert caught.value.text.startswith("gateway url override requires explicit credentials\n")
    assert "For the default local or SSH-tunneled Gateway, remove --url" in caught.value.text


def test_remote_mode_uses_remote_url_and_token() -> None:
    config = {"gateway": {"mode": "remote", "remote": {"url": "wss://gw.example.com", "token": "r"}}}
    resolved = target(config)
    assert (resolved.url, resolved.token, resolved.details.source) == (
        "wss://gw.example.com",
        "r",
        "config gateway.remote.url",
    )
    assert resolved.needs_device
    override = resolve_tool_gateway(config, {}, "wss://gw.example.com/", None)
    assert (override.url, override.target, override.token) == ("wss://gw.example.com", "remote", "r")


def test_remote_mode_without_url_is_misconfigured() -> None:
    with pytest.raises(GatewayTargetError) as caught:
        target({"gateway": {"mode": "remote", "auth": {"token": "t"}}})
    assert caught.value.text == (
        "gateway remote mode misconfigured: gateway.remote.url missing\nConfig: /cfg.json\n"
        "Fix: set gateway.remote.url, or set gateway.mode=local."
    )


def test_plaintext_remote_ws_url_is_a_security_error() -> None:
    config = {"gateway": {"mode": "remote", "remote": {"url": "ws://gw.example.com", "token": "r"}}}
    with pytest.raises(GatewayTargetError) as caught:
        target(config)
    assert caught.value.text.startswith('SECURITY ERROR: Gateway URL "ws://gw.example.com" uses plaintext ws://')
