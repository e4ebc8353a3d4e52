"""One plaintext rule for Gateway URLs (``isSecureWebSocketUrl``), used by ``openclaw mcp serve`` and
``openclaw-tools`` alike: a table of hosts recorded from OpenClaw 2026.9.6 (``tests/fixtures/gateway_urls.json``),
checked again against the installed reference, and both servers refusing exactly the same URLs; and the one
target resolver (``domain.gateway_target``) on a table of configs, environments and overrides recorded from the
reference's ``buildGatewayConnectionDetails`` (``tests/fixtures/gateway_targets.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.application.bridge.target import serve_gateway_settings
from openclaw_mcp.domain.gateway_target import resolve_gateway_target
from openclaw_mcp.domain.gateway_url import GatewayTargetError, is_secure_websocket_url
from openclaw_mcp.domain.ip_ranges import is_loopback_host, is_private_or_loopback_host, normalize_ip
from openclaw_mcp.domain.openclaw_tools.tool_gateway import ToolGateway, resolve_call_target
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
        serve_gateway_settings({}, env, "/cfg/openclaw.json", cli_url=url, token="t")
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
        serve_gateway_settings({}, {}, "/c.json", cli_url=url, token="t")
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


# --- the one target resolver: URL, source and connection details -------------------------------------------

TARGETS_PATH = Path(__file__).resolve().parents[1] / "fixtures" / "gateway_targets.json"
TARGETS: list[dict[str, Any]] = json.loads(TARGETS_PATH.read_text(encoding="utf-8"))

TARGET_PROBE = r"""
import fs from "node:fs";
const d = process.env.OPENCLAW_REFERENCE_DIR + "/node_modules/openclaw/dist/";
const details = await import(d + "connection-details-Dr91v3w1.mjs");
const rows = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const ours = (key) => key.startsWith("OPENCLAW_GATEWAY") || key === "OPENCLAW_PROFILE"
  || key === "OPENCLAW_ALLOW_INSECURE_PRIVATE_WS";
console.log(JSON.stringify(rows.map((row) => {
  for (const key of Object.keys(process.env)) if (ours(key)) delete process.env[key];
  Object.assign(process.env, row.env);
  try {
    const found = details.t({
      config: row.config, configPath: "/cfg/openclaw.json", ...(row.cliUrl !== null ? { url: row.cliUrl } : {}),
    });
    return { ...row, expected: { url: found.url, source: found.urlSource, message: found.message } };
  } catch (error) {
    return { ...row, expected: { error: String(error.message) } };
  }
})));
"""


def _resolved(row: dict[str, Any]) -> dict[str, str]:
    try:
        target = resolve_gateway_target(
            row["config"], row["env"], "/cfg/openclaw.json", override_url=row["cliUrl"], explicit_token="t"
        )
    except GatewayTargetError as error:
        return {"error": str(error)}
    return {"url": target.url, "source": target.url_source, "message": target.details.message}


@pytest.mark.parametrize("row", TARGETS, ids=[row["name"] for row in TARGETS])
def test_the_target_resolver_equals_the_recorded_reference(row: dict[str, Any]) -> None:
    """``buildGatewayConnectionDetails`` recorded from OpenClaw 2026.9.6: URL, source, the detail lines, or the
    refusal text."""
    assert _resolved(row) == row["expected"]


@pytest.mark.parametrize("row", [row for row in TARGETS if row["cliUrl"] is None], ids=lambda row: row["name"])
def test_serve_and_openclaw_tools_resolve_the_same_target(row: dict[str, Any]) -> None:
    """Both servers go through the one resolver: the same URL, details and secrets (the tool call adds only its
    refusal of remote mode without ``gateway.remote.url``)."""
    config = {**row["config"], "gateway": {**row["config"].get("gateway", {}), "auth": {"token": "cfg"}}}
    env = {**row["env"], "OPENCLAW_GATEWAY_TOKEN": "env"}
    try:
        served = serve_gateway_settings(config, env, "/cfg/openclaw.json")
    except GatewayTargetError as error:
        with pytest.raises(GatewayTargetError) as caught:
            resolve_call_target(config, env, "/cfg/openclaw.json", ToolGateway(None, None, "local", False))
        assert caught.value.text == str(error)
        return
    try:
        called = resolve_call_target(config, env, "/cfg/openclaw.json", ToolGateway(None, None, "local", False))
    except GatewayTargetError as error:
        assert row["expected"]["source"] == "missing gateway.remote.url (fallback local)"
        assert error.text.startswith("gateway remote mode misconfigured")
        return
    assert (called.url, called.token, called.password) == (served.url, served.token, served.password)
    assert called.details.message == row["expected"]["message"]


@pytest.mark.reference
def test_the_recorded_targets_are_what_the_installed_reference_answers(reference: Reference, tmp_path: Path) -> None:
    probe = tmp_path / "targets.mjs"
    probe.write_text(TARGET_PROBE, encoding="utf-8")
    assert json.loads(run_node(reference, tmp_path, str(probe), str(TARGETS_PATH))) == TARGETS
