"""The protocol-era facts (``domain.mcp_eras``) equal the SDK's (D-PE16: the servers restate them to answer
without importing the SDK), and the era rules of spec protocol-eras.md §3.1, §3.4, §4.1–§4.3."""

from __future__ import annotations

from typing import Any

import mcp_types
import mcp_types.jsonrpc
import pytest
from mcp.shared import inbound
from mcp_types import version

from openclaw_mcp.domain import mcp_eras

E = mcp_eras.request_envelope({"name": "openclaw-bundle-mcp", "version": "0.0.0"}, {})
SERVED = frozenset({"server/discover", "tools/list", "tools/call"})


def test_the_facts_are_the_sdks() -> None:
    assert mcp_eras.HANDSHAKE_VERSIONS == version.HANDSHAKE_PROTOCOL_VERSIONS
    assert mcp_eras.MODERN_VERSIONS == version.MODERN_PROTOCOL_VERSIONS
    assert mcp_eras.PROTOCOL_VERSION_KEY == mcp_types.PROTOCOL_VERSION_META_KEY
    assert mcp_eras.CLIENT_CAPABILITIES_KEY == mcp_types.CLIENT_CAPABILITIES_META_KEY
    assert mcp_eras.CLIENT_INFO_KEY == mcp_types.CLIENT_INFO_META_KEY
    assert mcp_eras.LOG_LEVEL_KEY == mcp_types.LOG_LEVEL_META_KEY
    assert mcp_eras.SERVER_INFO_KEY == mcp_types.SERVER_INFO_META_KEY
    assert mcp_eras.UNSUPPORTED_PROTOCOL_VERSION == mcp_types.jsonrpc.UNSUPPORTED_PROTOCOL_VERSION
    assert mcp_eras.HEADER_MISMATCH == mcp_types.jsonrpc.HEADER_MISMATCH
    assert mcp_eras.MISSING_REQUIRED_CLIENT_CAPABILITY == mcp_types.jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert mcp_eras.INVALID_PARAMS == mcp_types.jsonrpc.INVALID_PARAMS
    assert mcp_eras.METHOD_NOT_FOUND == mcp_types.jsonrpc.METHOD_NOT_FOUND
    assert mcp_eras.MCP_PROTOCOL_VERSION_HEADER == inbound.MCP_PROTOCOL_VERSION_HEADER
    assert mcp_eras.MCP_METHOD_HEADER == inbound.MCP_METHOD_HEADER
    assert mcp_eras.MCP_NAME_HEADER == inbound.MCP_NAME_HEADER
    assert dict(mcp_eras.NAME_BEARING_METHODS) == dict(inbound.NAME_BEARING_METHODS)


@pytest.mark.parametrize(
    "params",
    [
        None,
        {},
        {"_meta": []},
        {"_meta": {}},
        {"_meta": {mcp_eras.PROTOCOL_VERSION_KEY: "2026-07-28"}},
        {"_meta": {mcp_eras.CLIENT_CAPABILITIES_KEY: {}}},
        {"_meta": {mcp_eras.PROTOCOL_VERSION_KEY: 7, mcp_eras.CLIENT_CAPABILITIES_KEY: {}}},
        {"_meta": {mcp_eras.PROTOCOL_VERSION_KEY: "1900-01-01", mcp_eras.CLIENT_CAPABILITIES_KEY: {}}},
        {"_meta": {mcp_eras.PROTOCOL_VERSION_KEY: "2025-11-25", mcp_eras.CLIENT_CAPABILITIES_KEY: {}}},
        {"_meta": E},
        {"_meta": {**E, mcp_eras.CLIENT_INFO_KEY: None}},
    ],
)
def test_the_envelope_rungs_answer_as_the_sdks_ladder(params: Any) -> None:
    """Rung 2 of §4.2 gives the SDK's ``classify_inbound_request`` answer (code, message, data) on stdio."""
    ours = mcp_eras.modern_request_error("tools/list", params, SERVED)
    theirs = inbound.classify_inbound_request({"method": "tools/list", "params": params})
    if isinstance(theirs, inbound.InboundModernRoute):
        assert ours is None
    else:
        assert ours is not None
        expected = {"code": theirs.code, "message": theirs.message}
        if theirs.data is not None:
            expected["data"] = theirs.data
        assert ours.to_json() == expected


def test_initialize_and_unserved_methods_on_a_2026_connection() -> None:
    refused = mcp_eras.modern_request_error("initialize", {"protocolVersion": "2025-11-25"}, SERVED)
    assert refused is not None and refused.to_json() == {
        "code": -32022,
        "message": "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
        "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"},
    }
    odd = mcp_eras.modern_request_error("initialize", {"protocolVersion": 1}, SERVED)
    assert odd is not None and odd.to_json()["data"] == {"supported": ["2026-07-28"]}
    for method in ("ping", "logging/setLevel", "subscriptions/listen", "resources/list"):
        missing = mcp_eras.modern_request_error(method, {"_meta": E}, SERVED)
        assert missing is not None
        assert missing.to_json() == {"code": -32601, "message": "Method not found", "data": method}
    assert mcp_eras.modern_request_error("tools/call", {"name": "x", "_meta": E}, SERVED) is None


@pytest.mark.parametrize(
    ("method", "params", "era"),
    [
        ("initialize", {"protocolVersion": "2025-11-25"}, "legacy"),
        ("initialize", {"_meta": E}, "legacy"),
        ("tools/list", None, "legacy"),
        ("tools/list", {"_meta": {}}, "legacy"),
        ("tools/list", {"_meta": {mcp_eras.PROTOCOL_VERSION_KEY: "1900-01-01"}}, "2026-07-28"),
        ("server/discover", {"_meta": E}, "2026-07-28"),
        ("ping", {"_meta": E}, "2026-07-28"),
    ],
)
def test_the_first_request_locks_the_era(method: str, params: Any, era: str) -> None:
    assert mcp_eras.first_request_era(method, params) == era


@pytest.mark.parametrize(
    ("error", "status", "modern"),
    [
        (
            {"code": -32022, "message": "x", "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}},
            None,
            True,
        ),
        ({"code": -32022, "message": "x", "data": {"supported": ["2099-01-01"]}}, None, False),
        ({"code": -32022, "message": "x"}, None, False),
        ({"code": -32601, "message": "Method not found"}, None, True),
        ({"code": -32601, "message": "Method not found"}, 404, True),
        ({"code": -32602, "message": "params._meta must be an object …"}, 400, True),
        ({"code": -32602, "message": "Missing required _meta envelope keys"}, None, True),
        ({"code": -32602, "message": "params._meta is missing …"}, 500, False),
        ({"code": -32602, "message": "Invalid params: protocolVersion"}, None, False),
        ({"code": -32020, "message": "mcp-protocol-version header does not match"}, 400, True),
        ({"code": -32021, "message": "capability"}, None, True),
        ({"code": -32603, "message": "boom"}, None, False),
        ({"code": -32000, "message": "Bad Request: Unsupported protocol version: 2026-07-28"}, 400, False),
        ("not an error", None, False),
    ],
)
def test_only_answers_that_name_the_2026_era_trigger_the_fallback(error: Any, status: int | None, modern: bool) -> None:
    assert mcp_eras.is_modern_refusal(error, http_status=status) is modern


def test_stamping_keeps_other_meta_keys_and_overwrites_ours() -> None:
    params = {"cursor": "c", "_meta": {"progressToken": 1, mcp_eras.PROTOCOL_VERSION_KEY: "old"}}
    assert mcp_eras.stamp_params(params, E) == {"cursor": "c", "_meta": {"progressToken": 1, **E}}
    assert mcp_eras.stamp_params(None, E) == {"_meta": E}
    assert params["_meta"][mcp_eras.PROTOCOL_VERSION_KEY] == "old"


@pytest.mark.parametrize(
    ("ttls", "fresh"), [([], 5000), ([0], 5000), ([-3], 5000), ([60000], 60000), ([60000, 7000], 7000), ([None], 5000)]
)
def test_a_2026_catalog_is_fresh_for_its_smallest_ttl_but_at_least_five_seconds(ttls: list[Any], fresh: int) -> None:
    assert mcp_eras.catalog_fresh_ms(ttls) == fresh


def test_results_in_the_2026_shape() -> None:
    info = {"name": "openclaw-plugin-tools", "version": "2026.9.6"}
    assert mcp_eras.discover_result(info, {"tools": {}}) == {
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": info},
    }
    listed = mcp_eras.modern_result({"tools": []}, info, cacheable=True)
    assert listed == {
        "resultType": "complete",
        "tools": [],
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": info},
    }
    own = {"io.modelcontextprotocol/serverInfo": {"name": "own"}, "k": 1}
    assert mcp_eras.modern_result({"content": [], "_meta": own}, info)["_meta"] == own
    assert mcp_eras.modern_result({"content": [], "_meta": {"k": 1}}, info)["_meta"] == {
        "k": 1,
        "io.modelcontextprotocol/serverInfo": info,
    }
    mcp_types.DiscoverResult.model_validate(mcp_eras.discover_result(info, {"tools": {}}))
    mcp_types.ListToolsResult.model_validate(listed)


def test_the_legacy_versions_are_the_reference_sdks() -> None:
    """OpenClaw 2026.9.6's TS SDK 1.30 ``SUPPORTED_PROTOCOL_VERSIONS``; the handshake versions of the Python SDK
    are among them."""
    assert mcp_eras.LEGACY_VERSIONS[0] == mcp_eras.LEGACY_LATEST_VERSION == version.HANDSHAKE_PROTOCOL_VERSIONS[-1]
    assert set(version.HANDSHAKE_PROTOCOL_VERSIONS) <= set(mcp_eras.LEGACY_VERSIONS)
    assert mcp_eras.MODERN_VERSION not in mcp_eras.LEGACY_VERSIONS
