"""Gateway URL and credential resolution of ``openclaw mcp serve`` (spec serve-bridge §3.4, §3.5). URLs, ports
and the SECURITY ERROR text were checked against the reference (node 24, OpenClaw 2026.9.6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from openclaw_mcp.application.bridge.target import serve_gateway_settings
from openclaw_mcp.domain.gateway_port import resolve_gateway_port
from openclaw_mcp.domain.gateway_target import remote_tls_fingerprint, resolve_gateway_target
from openclaw_mcp.domain.gateway_url import GatewayTargetError


@dataclass(frozen=True)
class GatewayTarget:
    """What serve connects with: the URL, its source, the secrets and the pin."""

    url: str
    url_source: str
    token: str | None = None
    password: str | None = None
    tls_fingerprint: str | None = None


def _target(
    config: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    cli_url: str | None = None,
    explicit_token: str | None = None,
    explicit_password: str | None = None,
) -> GatewayTarget:
    config, env = config or {}, env or {}
    settings = serve_gateway_settings(
        config, env, "/s/openclaw.json", cli_url=cli_url, token=explicit_token, password=explicit_password
    )
    target = resolve_gateway_target(
        config,
        env,
        "/s/openclaw.json",
        override_url=cli_url,
        explicit_token=explicit_token,
        explicit_password=explicit_password,
    )
    assert (settings.url, settings.token, settings.password) == (target.url, target.token, target.password)
    assert settings.tls_fingerprint == remote_tls_fingerprint(config, target)
    return GatewayTarget(target.url, target.url_source, target.token, target.password, settings.tls_fingerprint)


def test_cli_url_wins_and_sends_only_explicit_credentials() -> None:
    env = {"OPENCLAW_GATEWAY_URL": "ws://127.0.0.1:2", "OPENCLAW_GATEWAY_TOKEN": "env-token"}
    config = {"gateway": {"auth": {"token": "cfg"}}}
    assert _target(config, env, cli_url=" ws://127.0.0.1:1 ") == GatewayTarget("ws://127.0.0.1:1", "cli --url")
    explicit = _target(config, env, cli_url="ws://127.0.0.1:1", explicit_token=" t ")
    assert (explicit.token, explicit.password) == ("t", None)


def test_env_url_uses_only_env_credentials() -> None:
    env = {"OPENCLAW_GATEWAY_URL": "ws://127.0.0.1:2", "OPENCLAW_GATEWAY_TOKEN": "env-token"}
    target = _target({"gateway": {"auth": {"token": "cfg", "password": "pw"}}}, env)
    assert target == GatewayTarget("ws://127.0.0.1:2", "env OPENCLAW_GATEWAY_URL", token="env-token")


def test_local_loopback_prefers_configured_local_credentials() -> None:
    config = {"gateway": {"auth": {"token": "cfg"}, "remote": {"token": "remote", "password": "rpw"}}}
    target = _target(config, {"OPENCLAW_GATEWAY_TOKEN": "env"})
    assert target == GatewayTarget("ws://127.0.0.1:18789", "local loopback", token="cfg", password="rpw")


def test_local_mode_falls_back_to_env_then_remote_token() -> None:
    assert _target({}, {"OPENCLAW_GATEWAY_TOKEN": "env"}).token == "env"
    assert _target({"gateway": {"remote": {"token": "remote"}}}).token == "remote"


def test_trusted_proxy_mode_does_not_reuse_the_remote_password() -> None:
    config = {"gateway": {"auth": {"mode": "trusted-proxy"}, "remote": {"password": "rpw"}}}
    assert _target(config).password is None


def test_remote_mode_uses_remote_then_env_then_local_credentials() -> None:
    config = {
        "gateway": {
            "mode": "remote",
            "remote": {"url": "wss://gw.example.com", "token": "remote"},
            "auth": {"token": "local", "password": "lpw"},
        }
    }
    target = _target(config, {"OPENCLAW_GATEWAY_PASSWORD": "envpw"})
    assert target == GatewayTarget(
        "wss://gw.example.com", "config gateway.remote.url", token="remote", password="envpw"
    )


def test_unresolved_placeholders_and_env_secret_refs() -> None:
    config = {"gateway": {"auth": {"token": "${MISSING_TOKEN}", "password": {"source": "env", "id": "PW"}}}}
    target = _target(config, {"PW": " secret "})
    assert (target.token, target.password) == (None, "secret")
    assert _target({"gateway": {"auth": {"token": "$MY_TOKEN"}}}, {"MY_TOKEN": "x"}).token == "x"


@pytest.mark.parametrize(
    ("config", "env", "url"),
    [
        ({"gateway": {"port": 1}}, {}, "ws://127.0.0.1:1"),
        ({}, {"OPENCLAW_GATEWAY_PORT": "localhost:2"}, "ws://127.0.0.1:2"),
        ({}, {"OPENCLAW_GATEWAY_PORT": "[::1]:3"}, "ws://127.0.0.1:3"),
        ({"gateway": {"port": 5}}, {"OPENCLAW_GATEWAY_PORT": "bogus"}, "ws://127.0.0.1:5"),
        ({}, {"OPENCLAW_PROFILE": "work"}, "ws://127.0.0.1:41984"),
        ({}, {"OPENCLAW_PROFILE": "Default"}, "ws://127.0.0.1:18789"),
        ({"gateway": {"tls": {"enabled": True}}}, {}, "wss://127.0.0.1:18789"),
        ({"gateway": {"mode": "remote"}}, {}, "ws://127.0.0.1:18789"),
    ],
)
def test_local_urls_follow_port_resolution(config: dict[str, Any], env: dict[str, str], url: str) -> None:
    assert _target(config, env).url == url


def test_remote_mode_without_a_url_falls_back_to_local() -> None:
    assert _target({"gateway": {"mode": "remote"}}).url_source == "missing gateway.remote.url (fallback local)"


def test_profile_port_is_derived_from_the_profile_name() -> None:
    assert resolve_gateway_port({}, {"OPENCLAW_PROFILE": "work"}) == 41984
    assert resolve_gateway_port({}, {"OPENCLAW_PROFILE": "bad name!"}) == 18789


@pytest.mark.parametrize(
    "url",
    [
        "ws://127.0.0.1:1",
        "ws://localhost:1",
        "ws://LOCALHOST.:1",
        "ws://[::1]:1",
        "ws://10.0.0.5",
        "ws://192.168.1.2",
        "ws://172.16.0.1",
        "ws://100.64.0.1",
        "ws://169.254.1.1",
        "ws://[fd00::1]",
        "ws://host.local",
        "ws://box.tail1234.ts.net",
        "wss://anything.example.com",
        "http://127.0.0.1:5",
    ],
)
def test_plaintext_is_allowed_to_loopback_private_and_local_names(url: str) -> None:
    assert _target(cli_url=url).url == url


def test_plaintext_to_a_public_address_is_a_security_error() -> None:
    with pytest.raises(GatewayTargetError) as caught:
        _target(cli_url="ws://user:pass@example.com/x?token=abc")
    assert str(caught.value).split("\n") == [
        'SECURITY ERROR: Gateway URL "ws://***:***@example.com/x?token=***" uses plaintext ws:// to a non-loopback '
        "address.",
        "Both credentials and chat data would be exposed to network interception.",
        "Source: cli --url",
        "Config: /s/openclaw.json",
        "Fix: Use wss:// for remote gateway URLs.",
        "Safe remote access defaults:",
        "- keep gateway.bind=loopback and use an SSH tunnel (ssh -N -L 18789:127.0.0.1:18789 user@gateway-host)",
        "- or use Tailscale Serve/Funnel for HTTPS remote access",
        "Break-glass (trusted private networks only): set OPENCLAW_ALLOW_INSECURE_PRIVATE_WS=1",
        "Doctor: openclaw doctor --fix",
        "Docs: https://docs.openclaw.ai/gateway/remote",
    ]


def test_break_glass_allows_private_dns_names_but_not_public_ips() -> None:
    env = {"OPENCLAW_ALLOW_INSECURE_PRIVATE_WS": "1"}
    assert _target(env=env, cli_url="ws://gateway.internal:1").url == "ws://gateway.internal:1"
    with pytest.raises(GatewayTargetError, match=r"Source: config gateway\.remote\.url") as caught:
        _target({"gateway": {"mode": "remote", "remote": {"url": "ws://203.0.113.9"}}}, env)
    assert "Break-glass" not in str(caught.value)


def test_remote_tls_pin_is_normalised_and_validated() -> None:
    pin = ":".join(["AB"] * 32)

    def config(fingerprint: str) -> dict[str, Any]:
        return {"gateway": {"mode": "remote", "remote": {"url": "wss://gw", "tlsFingerprint": fingerprint}}}

    assert _target(config(f"sha256:{pin}")).tls_fingerprint == "ab" * 32
    with pytest.raises(GatewayTargetError, match=r"^Invalid TLS fingerprint"):
        _target(config("nope"))
