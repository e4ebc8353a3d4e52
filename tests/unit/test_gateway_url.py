"""One plaintext rule for Gateway URLs (``isSecureWebSocketUrl``), used by ``openclaw mcp serve`` and
``openclaw-tools`` alike: a table of hosts recorded from OpenClaw 2026.9.6 (``tests/fixtures/gateway_urls.json``),
checked again against the installed reference, and both resolvers refusing exactly the same URLs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.application.bridge.target import resolve_gateway_target
from openclaw_mcp.domain.gateway_url import GatewayTargetError, is_secure_websocket_url
from openclaw_mcp.domain.ip_ranges import is_loopback_host, is_private_or_loopback_host, normalize_ip
from openclaw_mcp.domain.openclaw_tools.gateway_target import ToolGateway, resolve_call_target
from tests.docker.gateway_harness import Reference
from tests.unit.test_tool_policy_reference import reference, run_node

__all__ = ["reference"]  # the module-scoped fixture, shared with the tool-policy reference tier

TABLE_PATH = Path(__file__).resolve().parents[1] / "fixtures" / "gateway_urls.json"
TABLE: list[dict[str, Any]] = json.loads(TABLE_PATH.read_text(encoding="utf-8"))

PROBE = r"""
import fs from "node:fs";
const d = process.env.OPENCLAW_REFERENCE_DIR + "/node_modules/openclaw/dist/";
const net = await import(d + "net-DU4aWKLv.mjs");
const rows = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
console.log(JSON.stringify(rows.map((r) => ({
  url: r.url, secure: net.u(r.url), secureWithPrivateWs: net.u(r.url, { allowPrivateWs: true }),
}))));
"""


@pytest.mark.parametrize("row", TABLE, ids=[row["url"] for row in TABLE])
def test_the_plaintext_rule_equals_the_recorded_reference(row: dict[str, Any]) -> None:
    assert is_secure_websocket_url(row["url"], allow_private_ws=False) is row["secure"]
    assert is_secure_websocket_url(row["url"], allow_private_ws=True) is row["secureWithPrivateWs"]


@pytest.mark.reference
def test_the_recorded_table_is_what_the_installed_reference_answers(reference: Reference, tmp_path: Path) -> None:
    probe = tmp_path / "probe.mjs"
    probe.write_text(PROBE, encoding="utf-8")
    assert json.loads(run_node(reference, tmp_path, str(probe), str(TABLE_PATH))) == TABLE


def _serve_refuses(url: str, env: dict[str, str]) -> bool:
    try:
        resolve_gateway_target(config={}, env=env, config_path="/cfg/openclaw.json", cli_url=url, explicit_token="t")
    except GatewayTargetError as error:
        assert str(error).startswith("SECURITY ERROR: Gateway URL")
        return True
    return False


def _tools_refuse(url: str, env: dict[str, str]) -> bool:
    tool = ToolGateway(url=url, token="t", target="remote", explicit=True)
    try:
        resolve_call_target({}, env, "/cfg/openclaw.json", tool)
    except GatewayTargetError as error:
        # another refusal (credentials …) is not the plaintext rule's
        return error.text.startswith("SECURITY ERROR: Gateway URL")
    return False


@pytest.mark.parametrize("allow", [False, True], ids=["strict", "break-glass"])
def test_serve_and_openclaw_tools_refuse_the_same_plaintext_urls(allow: bool) -> None:
    env = {"OPENCLAW_ALLOW_INSECURE_PRIVATE_WS": "1"} if allow else {}
    key = "secureWithPrivateWs" if allow else "secure"
    for row in TABLE:
        url = row["url"]
        if not url.startswith(("ws://", "wss://")) or "://" not in url[:6]:
            continue
        assert _serve_refuses(url, env) is not row[key], url
        assert _tools_refuse(url, env) is not row[key], url


def test_the_refusal_text_is_one_text_for_both_servers() -> None:
    url = "ws://user:secret@8.8.8.8:1/"
    try:
        resolve_gateway_target(config={}, env={}, config_path="/c.json", cli_url=url, explicit_token="t")
    except GatewayTargetError as error:
        serve_text = str(error)
    try:
        resolve_call_target({}, {}, "/c.json", ToolGateway(url=url, token="t", target="remote", explicit=True))
    except GatewayTargetError as error:
        tools_text = error.text
    assert "secret" not in serve_text
    assert serve_text.splitlines()[0] == tools_text.splitlines()[0]
    assert serve_text.splitlines()[4:] == tools_text.splitlines()[4:]


@pytest.mark.parametrize(
    ("host", "loopback", "private"),
    [
        ("localhost", True, True),
        ("LOCALHOST..", True, True),
        ("127.0.0.1", True, True),
        ("[::1]", True, True),
        ("[::ffff:127.0.0.1]", True, True),
        ("10.0.0.1", False, True),
        ("[::]", False, False),
        ("[ff02::1]", False, False),
        ("[64:ff9b:1::a00:1]", False, False),
        ("example.com", False, False),
    ],
)
def test_hosts_classify_as_the_reference_does(host: str, loopback: bool, private: bool) -> None:
    assert is_loopback_host(host) is loopback
    assert is_private_or_loopback_host(host) is private


def test_normalize_ip_maps_ipv4_mapped_addresses_and_refuses_names_and_zones() -> None:
    assert normalize_ip("[::FFFF:10.0.0.1]") == "10.0.0.1"
    assert normalize_ip("FE80::1") == "fe80::1"
    assert normalize_ip("fe80::1%eth0") is None
    assert normalize_ip("127.1") is None
    assert normalize_ip("example.com") is None
