"""Server canonicalisation (spec cli-registry §2.4).

Each expectation was observed on the reference (OpenClaw 2026.9.6) by running
``openclaw mcp set s '<json>'`` on an existing config and reading the saved server back from the file, key
order included.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from openclaw_mcp.domain.canonical import canonicalize_server, is_known_type_alias, transport_for_type_alias
from openclaw_mcp.domain.validation import validate_config


def _keys_deep(value: Any) -> Any:
    """The value with every object turned into a list of (key, value) pairs, so order is compared."""
    if isinstance(value, dict):
        return [(key, _keys_deep(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_keys_deep(item) for item in value]
    return value


OBSERVED: list[tuple[str, str]] = [
    (
        '{"command":"uvx","workingDirectory":"/srv","supports_parallel_tool_calls":true,"sslVerify":true,'
        '"ssl_verify":false,"codex":{"default_tools_approval_mode":"approve"}}',
        '{"command":"uvx","sslVerify":true,"codex":{"defaultToolsApprovalMode":"approve"},"cwd":"/srv",'
        '"supportsParallelToolCalls":true}',
    ),
    (
        '{"type":"sse","transport":"streamable-http","url":"https://x"}',
        '{"transport":"streamable-http","url":"https://x"}',
    ),
    ('{"type":"http","url":"https://x"}', '{"url":"https://x","transport":"streamable-http"}'),
    ('{"type":"stdio","command":"uvx"}', '{"command":"uvx"}'),
    (
        '{"type":"websocket","command":"uvx","customKey":{"kept":true}}',
        '{"type":"websocket","command":"uvx","customKey":{"kept":true}}',
    ),
    (
        # a padded upper-case alias; an existing cwd wins; an existing non-string clientCert is replaced in
        # place; a non-string client_key is dropped; an existing defaultToolsApprovalMode wins.
        '{"type":" SSE ","cwd":"/a","workingDirectory":"/b","client_cert":"c","clientCert":5,"client_key":7,'
        '"codex":{"defaultToolsApprovalMode":"auto","default_tools_approval_mode":"prompt","agents":["x"]},'
        '"command":"c"}',
        '{"cwd":"/a","clientCert":"c","codex":{"defaultToolsApprovalMode":"auto","agents":["x"]},'
        '"command":"c","transport":"sse"}',
    ),
    (
        # a non-string transport is overwritten in place; aliases of the wrong type are dropped.
        '{"codex":{"default_tools_approval_mode":5},"transport":5,"type":"http","command":"c",'
        '"ssl_verify":"no","supports_parallel_tool_calls":true,"supportsParallelToolCalls":"x"}',
        '{"codex":{},"transport":"streamable-http","command":"c","supportsParallelToolCalls":true}',
    ),
]


@pytest.mark.parametrize(("given", "saved"), OBSERVED)
def test_set_saves_the_canonical_server_with_the_reference_key_order(given: str, saved: str) -> None:
    result = canonicalize_server(json.loads(given))
    assert _keys_deep(result) == _keys_deep(json.loads(saved))
    # and every observed result was accepted by the reference's validation
    assert validate_config({"mcp": {"servers": {"s": result}}}) == []


def test_the_input_is_not_modified_and_codex_is_copied() -> None:
    codex = {"default_tools_approval_mode": "auto"}
    server: dict[str, Any] = {"type": "http", "url": "https://x", "codex": codex, "args": ["a"]}
    result = canonicalize_server(server)
    assert server == {"type": "http", "url": "https://x", "codex": codex, "args": ["a"]}
    assert codex == {"default_tools_approval_mode": "auto"}
    assert result["codex"] == {"defaultToolsApprovalMode": "auto"}
    assert result["codex"] is not codex
    assert result is not server


def test_retired_keys_without_a_canonical_twin_are_left_for_validation() -> None:
    server = {"command": "c", "timeout": 1, "connectTimeout": 2, "connect_timeout": 3, "disabled": True}
    assert canonicalize_server(server) == server


def test_a_codex_value_that_is_not_an_object_is_left_alone() -> None:
    assert canonicalize_server({"codex": ["x"]}) == {"codex": ["x"]}
    assert canonicalize_server({"codex": None}) == {"codex": None}


def test_a_stdio_alias_never_sets_a_transport() -> None:
    assert canonicalize_server({"type": "STDIO", "url": "https://x"}) == {"url": "https://x"}


@pytest.mark.parametrize(
    ("value", "known", "transport"),
    [
        ("http", True, "streamable-http"),
        (" Streamable-HTTP\n", True, "streamable-http"),
        ("\u00a0sse\u3000", True, "sse"),
        ("stdio", True, None),
        ("websocket", False, None),
        ("", False, None),
        (5, False, None),
        (None, False, None),
    ],
)
def test_type_aliases_are_trimmed_and_case_insensitive(value: object, known: bool, transport: str | None) -> None:
    assert is_known_type_alias(value) is known
    assert transport_for_type_alias(value) == transport
