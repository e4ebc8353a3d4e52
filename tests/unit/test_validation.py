"""Validation of the ``mcp`` block (spec cli-registry §1.2, §1.3, §1.4, §2.1–§2.3, D8).

Every expectation below was observed on the reference (OpenClaw 2026.9.6): the configs were written to an
isolated state directory and read back with ``openclaw mcp list --json`` (the ``issues`` of the stdout
envelope, which lists every issue with its ``allowedValues``) or ``openclaw mcp set`` (first issue only).
Servers were validated side by side in one config; each row here is one such server, renamed ``s``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from openclaw_mcp.domain.config_issues import Issue, ValidatorThrew, type_name
from openclaw_mcp.domain.config_legacy import legacy_lines
from openclaw_mcp.domain.validation import validate_config

Expected = list[tuple[str, str, tuple[str, ...] | None]]


def _issues(root: Any) -> Expected:
    return [(issue.dotted, issue.message, issue.allowed_values) for issue in validate_config(root)]


def _server_issues(server_json: str) -> Expected:
    # json.loads accepts NaN / Infinity like the reference's JSON5 fallback does.
    return _issues({"mcp": {"servers": {"s": json.loads(server_json)}}})


# The §2.3 table (and the §2.3 order examples), as the reference reports each row.
SPEC_TABLE_ROWS: list[tuple[str, Expected]] = [
    (
        '{"command": 5}',
        [
            (
                "mcp.servers.s.command",
                "Invalid input: expected string, received number",
                None,
            ),
        ],
    ),
    (
        '{"url": "not a url"}',
        [
            (
                "mcp.servers.s.url",
                "Invalid URL",
                None,
            ),
            (
                "mcp.servers.s.url",
                "Expected http:// or https:// URL",
                None,
            ),
        ],
    ),
    (
        '{"url": ""}',
        [
            (
                "mcp.servers.s.url",
                "Invalid URL",
                None,
            ),
            (
                "mcp.servers.s.url",
                "Expected http:// or https:// URL",
                None,
            ),
        ],
    ),
    (
        '{"url": "ws://x"}',
        [
            (
                "mcp.servers.s.url",
                "Expected http:// or https:// URL",
                None,
            ),
        ],
    ),
    (
        '{"transport": "http"}',
        [
            (
                "mcp.servers.s.transport",
                'Invalid input (allowed: "stdio", "sse", "streamable-http")',
                ("stdio", "sse", "streamable-http"),
            ),
        ],
    ),
    (
        '{"enabled": "yes", "supportsParallelToolCalls": 1, "sslVerify": null}',
        [
            (
                "mcp.servers.s.enabled",
                "Invalid input: expected boolean, received string (allowed: true, false)",
                ("true", "false"),
            ),
            (
                "mcp.servers.s.supportsParallelToolCalls",
                "Invalid input: expected boolean, received number (allowed: true, false)",
                ("true", "false"),
            ),
            (
                "mcp.servers.s.sslVerify",
                "Invalid input: expected boolean, received null (allowed: true, false)",
                ("true", "false"),
            ),
        ],
    ),
    (
        '{"auth": "OAuth"}',
        [
            (
                "mcp.servers.s.auth",
                'Invalid input: expected "oauth" (allowed: "oauth")',
                ("oauth",),
            ),
        ],
    ),
    (
        '{"connectionTimeoutMs": -1, "requestTimeoutMs": 0, "timeout": 1}',
        [
            (
                "mcp.servers.s.connectionTimeoutMs",
                "Too small: expected number to be >0 (must be greater than 0)",
                None,
            ),
            (
                "mcp.servers.s.requestTimeoutMs",
                "Too small: expected number to be >0 (must be greater than 0)",
                None,
            ),
            (
                "mcp.servers.s",
                'Unrecognized key: "timeout"',
                None,
            ),
        ],
    ),
    (
        '{"args": "a"}',
        [
            (
                "mcp.servers.s.args",
                "Invalid input: expected array, received string",
                None,
            ),
        ],
    ),
    (
        '{"args": [1, "x", null]}',
        [
            (
                "mcp.servers.s.args.0",
                "Invalid input: expected string, received number",
                None,
            ),
            (
                "mcp.servers.s.args.2",
                "Invalid input: expected string, received null",
                None,
            ),
        ],
    ),
    (
        '{"env": {"A": {"nested": true}, "B": 1, "C": true, "D": "s", "E": null}}',
        [
            (
                "mcp.servers.s.env.A",
                "Invalid input",
                None,
            ),
            (
                "mcp.servers.s.env.E",
                "Invalid input",
                None,
            ),
        ],
    ),
    (
        '{"headers": {"a": null}}',
        [
            (
                "mcp.servers.s.headers.a",
                "Invalid input",
                None,
            ),
        ],
    ),
    (
        '{"env": "x", "headers": [1]}',
        [
            (
                "mcp.servers.s.env",
                "Invalid input: expected record, received string",
                None,
            ),
            (
                "mcp.servers.s.headers",
                "Invalid input: expected record, received array",
                None,
            ),
        ],
    ),
    (
        '{"transport": "STDIO"}',
        [
            (
                "mcp.servers.s.transport",
                'Invalid input (allowed: "stdio", "sse", "streamable-http")',
                ("stdio", "sse", "streamable-http"),
            ),
        ],
    ),
    (
        '{"transport": "stdio"}',
        [
            (
                "mcp.servers.s.transport",
                '"stdio" transport requires a non-empty command',
                None,
            ),
        ],
    ),
    (
        '{"transport": "stdio", "command": "  "}',
        [
            (
                "mcp.servers.s.transport",
                '"stdio" transport requires a non-empty command',
                None,
            ),
        ],
    ),
    (
        '{"connectionTimeoutMs": "5"}',
        [
            (
                "mcp.servers.s.connectionTimeoutMs",
                "Invalid input: expected number, received string",
                None,
            ),
        ],
    ),
    (
        '{"auth": "basic"}',
        [
            (
                "mcp.servers.s.auth",
                'Invalid input: expected "oauth" (allowed: "oauth")',
                ("oauth",),
            ),
        ],
    ),
    (
        '{"oauth": {"scope": " "}}',
        [
            (
                "mcp.servers.s.oauth.scope",
                "Too small: expected string to have >=1 characters",
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"bogus": 1}}',
        [
            (
                "mcp.servers.s.oauth",
                'Unrecognized key: "bogus"',
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"identity": "mine"}}',
        [
            (
                "mcp.servers.s.oauth.identity",
                'Invalid option: expected one of "shared"|"per-requester"',
                ("shared", "per-requester"),
            ),
        ],
    ),
    (
        '{"oauth": {"redirectUrl": "ftp://x"}}',
        [
            (
                "mcp.servers.s.oauth.redirectUrl",
                "Expected http:// or https:// URL",
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"clientMetadataUrl": "http://x/meta"}}',
        [
            (
                "mcp.servers.s.oauth.clientMetadataUrl",
                "Expected https:// URL with a non-root pathname",
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"clientMetadataUrl": "https://x/"}}',
        [
            (
                "mcp.servers.s.oauth.clientMetadataUrl",
                "Expected https:// URL with a non-root pathname",
                None,
            ),
        ],
    ),
    (
        '{"toolFilter": {"include": []}}',
        [
            (
                "mcp.servers.s.toolFilter.include",
                "Too small: expected array to have >=1 items",
                None,
            ),
        ],
    ),
    (
        '{"toolFilter": {"include": [""]}}',
        [
            (
                "mcp.servers.s.toolFilter.include.0",
                "Too small: expected string to have >=1 characters",
                None,
            ),
        ],
    ),
    (
        '{"toolFilter": {"only": ["a"]}}',
        [
            (
                "mcp.servers.s.toolFilter",
                'Unrecognized key: "only"',
                None,
            ),
        ],
    ),
    (
        '{"toolFilter": []}',
        [
            (
                "mcp.servers.s.toolFilter",
                "Invalid input: expected object, received array",
                None,
            ),
        ],
    ),
    (
        '{"codex": {"defaultToolsApprovalMode": "sometimes"}}',
        [
            (
                "mcp.servers.s.codex.defaultToolsApprovalMode",
                'Invalid option: expected one of "auto"|"prompt"|"approve"',
                ("auto", "prompt", "approve"),
            ),
        ],
    ),
    (
        '{"codex": {"agents": []}}',
        [
            (
                "mcp.servers.s.codex.agents",
                "Too small: expected array to have >=1 items",
                None,
            ),
        ],
    ),
    (
        '{"codex": {"agents": ["bad name"]}}',
        [
            (
                "mcp.servers.s.codex.agents.0",
                "Invalid string: must match pattern /^[a-z0-9][a-z0-9_-]{0,63}$/i",
                None,
            ),
        ],
    ),
    (
        '{"codex": {"x": 1}}',
        [
            (
                "mcp.servers.s.codex",
                'Unrecognized key: "x"',
                None,
            ),
        ],
    ),
    (
        '{"codex": {"default_tools_approval_mode": "auto"}}',
        [
            (
                "mcp.servers.s.codex",
                'Unrecognized key: "default_tools_approval_mode"',
                None,
            ),
        ],
    ),
    (
        (
            '{"connectTimeout": 1, "connect_timeout": 1, "timeout": 1, "workingDirectory": "x",'
            ' "supports_parallel_tool_calls": true, "ssl_verify": true, "client_cert": "a",'
            ' "client_key": "b"}'
        ),
        [
            (
                "mcp.servers.s",
                'Unrecognized key: "connectTimeout"',
                None,
            ),
            (
                "mcp.servers.s",
                'Unrecognized key: "connect_timeout"',
                None,
            ),
            (
                "mcp.servers.s",
                'Unrecognized key: "timeout"',
                None,
            ),
            (
                "mcp.servers.s",
                'Unrecognized key: "workingDirectory"',
                None,
            ),
            (
                "mcp.servers.s",
                'Unrecognized key: "supports_parallel_tool_calls"',
                None,
            ),
            (
                "mcp.servers.s",
                'Unrecognized key: "ssl_verify"',
                None,
            ),
            (
                "mcp.servers.s",
                'Unrecognized key: "client_cert"',
                None,
            ),
            (
                "mcp.servers.s",
                'Unrecognized key: "client_key"',
                None,
            ),
        ],
    ),
    (
        '{"disabled": true}',
        [
            (
                "mcp.servers.s.disabled",
                (
                    'unsupported key "disabled"; use "enabled: false" instead, then run "openclaw'
                    ' doctor --fix" to migrate existing config'
                ),
                None,
            ),
        ],
    ),
    (
        '{"disabled": "no"}',
        [
            (
                "mcp.servers.s.disabled",
                'unsupported key "disabled"; use the canonical "enabled" boolean instead',
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"identity": "per-requester"}, "url": "https://x"}',
        [
            (
                "mcp.servers.s.oauth.identity",
                'oauth.identity "per-requester" requires auth: "oauth"',
                None,
            ),
        ],
    ),
    (
        ('{"oauth": {"identity": "per-requester", "authProfileId": "p"}, "auth": "oauth", "url": "https://x"}'),
        [
            (
                "mcp.servers.s.oauth.authProfileId",
                'oauth.authProfileId cannot be used with oauth.identity "per-requester"',
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"identity": "per-requester"}, "auth": "oauth"}',
        [
            (
                "mcp.servers.s.oauth.identity",
                'oauth.identity "per-requester" requires an HTTP server URL',
                None,
            ),
        ],
    ),
    (
        ('{"oauth": {"identity": "per-requester"}, "auth": "oauth", "url": "https://x", "command": "c"}'),
        [
            (
                "mcp.servers.s.oauth.identity",
                ('oauth.identity "per-requester" cannot be combined with a command or "stdio" transport'),
                None,
            ),
        ],
    ),
    (
        ('{"oauth": {"identity": "per-requester"}, "auth": "oauth", "url": "https://x", "transport": "stdio"}'),
        [
            (
                "mcp.servers.s.oauth.identity",
                ('oauth.identity "per-requester" cannot be combined with a command or "stdio" transport'),
                None,
            ),
            (
                "mcp.servers.s.transport",
                '"stdio" transport requires a non-empty command',
                None,
            ),
        ],
    ),
    (
        '{"command": 5, "timeout": 1}',
        [
            (
                "mcp.servers.s.command",
                "Invalid input: expected string, received number",
                None,
            ),
        ],
    ),
    (
        '{"timeout": 1, "disabled": true, "transport": "stdio"}',
        [
            (
                "mcp.servers.s",
                'Unrecognized key: "timeout"',
                None,
            ),
            (
                "mcp.servers.s.disabled",
                (
                    'unsupported key "disabled"; use "enabled: false" instead, then run "openclaw'
                    ' doctor --fix" to migrate existing config'
                ),
                None,
            ),
            (
                "mcp.servers.s.transport",
                '"stdio" transport requires a non-empty command',
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"identity": "per-requester", "bogus": 1}, "url": "https://x"}',
        [
            (
                "mcp.servers.s.oauth",
                'Unrecognized key: "bogus"',
                None,
            ),
            (
                "mcp.servers.s.oauth.identity",
                'oauth.identity "per-requester" requires auth: "oauth"',
                None,
            ),
        ],
    ),
]


@pytest.mark.parametrize(("server_json", "expected"), SPEC_TABLE_ROWS)
def test_each_row_of_the_message_table_reports_the_reference_issues(server_json: str, expected: Expected) -> None:
    assert _server_issues(server_json) == expected


# Further servers checked against the reference: multi-issue servers, nested paths, trimming, JSON5
# non-finite numbers, ``__proto__`` keys inside a server, aborting vs non-aborting issues.
MORE_VERIFIED_SERVERS: list[tuple[str, Expected]] = [
    (
        '{"connectionTimeoutMs": Infinity, "requestTimeoutMs": NaN}',
        [
            (
                "mcp.servers.s.connectionTimeoutMs",
                "Invalid input: expected number, received Infinity",
                None,
            ),
            (
                "mcp.servers.s.requestTimeoutMs",
                "Invalid input: expected number, received NaN",
                None,
            ),
        ],
    ),
    (
        '{"command": NaN, "cwd": -Infinity}',
        [
            (
                "mcp.servers.s.command",
                "Invalid input: expected string, received NaN",
                None,
            ),
            (
                "mcp.servers.s.cwd",
                "Invalid input: expected string, received -Infinity",
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"scope": []}}',
        [
            (
                "mcp.servers.s.oauth.scope",
                "Invalid input: expected string, received array",
                None,
            ),
            (
                "mcp.servers.s.oauth.scope",
                "Too small: expected array to have >=1 items",
                None,
            ),
        ],
    ),
    (
        '{"toolFilter": {"include": ""}}',
        [
            (
                "mcp.servers.s.toolFilter.include",
                "Invalid input: expected array, received string",
                None,
            ),
            (
                "mcp.servers.s.toolFilter.include",
                "Too small: expected string to have >=1 characters",
                None,
            ),
        ],
    ),
    (
        '{"toolFilter": {"include": "abc", "exclude": [[]]}}',
        [
            (
                "mcp.servers.s.toolFilter.include",
                "Invalid input: expected array, received string",
                None,
            ),
            (
                "mcp.servers.s.toolFilter.exclude.0",
                "Invalid input: expected string, received array",
                None,
            ),
            (
                "mcp.servers.s.toolFilter.exclude.0",
                "Too small: expected array to have >=1 items",
                None,
            ),
        ],
    ),
    (
        '{"url": " https://x "}',
        [],
    ),
    (
        '{"url": "", "oauth": {"identity": "per-requester"}, "auth": "oauth"}',
        [
            (
                "mcp.servers.s.url",
                "Invalid URL",
                None,
            ),
            (
                "mcp.servers.s.url",
                "Expected http:// or https:// URL",
                None,
            ),
            (
                "mcp.servers.s.oauth.identity",
                'oauth.identity "per-requester" requires an HTTP server URL',
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"a": 1, "b": 2, "identity": "shared"}}',
        [
            (
                "mcp.servers.s.oauth",
                'Unrecognized keys: "a", "b"',
                None,
            ),
        ],
    ),
    (
        '{"env": {"__proto__": {"x": 1}, "ok": "1"}}',
        [],
    ),
    (
        '{"disabled": false}',
        [
            (
                "mcp.servers.s.disabled",
                (
                    'unsupported key "disabled"; use "enabled: true" instead, then run "openclaw'
                    ' doctor --fix" to migrate existing config'
                ),
                None,
            ),
        ],
    ),
    (
        '{"type": "HTTP ", "command": 5}',
        [
            (
                "mcp.servers.s.command",
                "Invalid input: expected string, received number",
                None,
            ),
        ],
    ),
    (
        '{"codex": {"agents": [" ok ", "ok", 5, "-bad"]}}',
        [
            (
                "mcp.servers.s.codex.agents.2",
                "Invalid input: expected string, received number",
                None,
            ),
            (
                "mcp.servers.s.codex.agents.3",
                "Invalid string: must match pattern /^[a-z0-9][a-z0-9_-]{0,63}$/i",
                None,
            ),
        ],
    ),
    (
        '{"codex": {"agents": "x", "bogus": 1, "defaultToolsApprovalMode": 5}}',
        [
            (
                "mcp.servers.s.codex.agents",
                "Invalid input: expected array, received string",
                None,
            ),
            (
                "mcp.servers.s.codex.defaultToolsApprovalMode",
                'Invalid option: expected one of "auto"|"prompt"|"approve"',
                ("auto", "prompt", "approve"),
            ),
            (
                "mcp.servers.s.codex",
                'Unrecognized key: "bogus"',
                None,
            ),
        ],
    ),
    (
        ('{"oauth": {"identity": "per-requester", "authProfileId": "  "}, "auth": "oauth", "url": "https://x"}'),
        [
            (
                "mcp.servers.s.oauth.authProfileId",
                "Too small: expected string to have >=1 characters",
                None,
            ),
        ],
    ),
    (
        (
            '{"oauth": {"identity": "per-requester", "authProfileId": " p "}, "url": "ftp://x",'
            ' "command": "c", "transport": "stdio"}'
        ),
        [
            (
                "mcp.servers.s.url",
                "Expected http:// or https:// URL",
                None,
            ),
            (
                "mcp.servers.s.oauth.identity",
                'oauth.identity "per-requester" requires auth: "oauth"',
                None,
            ),
            (
                "mcp.servers.s.oauth.authProfileId",
                'oauth.authProfileId cannot be used with oauth.identity "per-requester"',
                None,
            ),
            (
                "mcp.servers.s.oauth.identity",
                ('oauth.identity "per-requester" cannot be combined with a command or "stdio" transport'),
                None,
            ),
        ],
    ),
    (
        '{"transport": 5}',
        [
            (
                "mcp.servers.s.transport",
                'Invalid input (allowed: "stdio", "sse", "streamable-http")',
                ("stdio", "sse", "streamable-http"),
            ),
        ],
    ),
    (
        '{"auth": null, "oauth": null, "toolFilter": null, "codex": "x"}',
        [
            (
                "mcp.servers.s.auth",
                'Invalid input: expected "oauth" (allowed: "oauth")',
                ("oauth",),
            ),
            (
                "mcp.servers.s.oauth",
                "Invalid input: expected object, received null",
                None,
            ),
            (
                "mcp.servers.s.toolFilter",
                "Invalid input: expected object, received null",
                None,
            ),
            (
                "mcp.servers.s.codex",
                "Invalid input: expected object, received string",
                None,
            ),
        ],
    ),
    (
        '{"args": [], "env": {}, "headers": {"h": 1, "i": false}}',
        [],
    ),
    (
        '{"url": "http:example.com"}',
        [],
    ),
    (
        '{"url": "https:/path"}',
        [],
    ),
    (
        '{"oauth": {"redirectUrl": "not a url", "clientMetadataUrl": "https://x/y"}}',
        [
            (
                "mcp.servers.s.oauth.redirectUrl",
                "Invalid URL",
                None,
            ),
            (
                "mcp.servers.s.oauth.redirectUrl",
                "Expected http:// or https:// URL",
                None,
            ),
        ],
    ),
    (
        '{"transport": "stdio", "command": 5}',
        [
            (
                "mcp.servers.s.command",
                "Invalid input: expected string, received number",
                None,
            ),
        ],
    ),
    (
        '{"url": "ws://x", "timeout": 1}',
        [
            (
                "mcp.servers.s.url",
                "Expected http:// or https:// URL",
                None,
            ),
            (
                "mcp.servers.s",
                'Unrecognized key: "timeout"',
                None,
            ),
        ],
    ),
    (
        "null",
        [
            (
                "mcp.servers.s",
                "Invalid input: expected object, received null",
                None,
            ),
        ],
    ),
    (
        '"str"',
        [
            (
                "mcp.servers.s",
                "Invalid input: expected object, received string",
                None,
            ),
        ],
    ),
    (
        "[]",
        [
            (
                "mcp.servers.s",
                "Invalid input: expected object, received array",
                None,
            ),
        ],
    ),
    (
        "5",
        [
            (
                "mcp.servers.s",
                "Invalid input: expected object, received number",
                None,
            ),
        ],
    ),
    (
        '{"__proto__": {"command": 5}}',
        [],
    ),
    (
        '{"oauth": {"__proto__": {"scope": ""}}}',
        [],
    ),
    (
        '{"codex": {"__proto__": 1, "agents": ["x"]}}',
        [],
    ),
    (
        '{"env": {"__proto__": 5}, "headers": {"__proto__": null}}',
        [],
    ),
    (
        '{"toolFilter": {"__proto__": []}}',
        [],
    ),
    (
        '{"command": "c", "enabled": true, "disabled": true}',
        [
            (
                "mcp.servers.s.disabled",
                (
                    'unsupported key "disabled"; use "enabled: false" instead, then run "openclaw'
                    ' doctor --fix" to migrate existing config'
                ),
                None,
            ),
        ],
    ),
    (
        ('{"codex": {"agents": ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Ab_-9"]}}'),
        [],
    ),
    (
        '{"toolFilter": {"include": ["a", " "], "exclude": []}}',
        [
            (
                "mcp.servers.s.toolFilter.include.1",
                "Too small: expected string to have >=1 characters",
                None,
            ),
            (
                "mcp.servers.s.toolFilter.exclude",
                "Too small: expected array to have >=1 items",
                None,
            ),
        ],
    ),
    (
        '{"url": "\\u00a0https://x\\u00a0"}',
        [],
    ),
    (
        '{"url": "\\u00a0ftp://x"}',
        [
            (
                "mcp.servers.s.url",
                "Expected http:// or https:// URL",
                None,
            ),
        ],
    ),
    (
        (
            '{"transport": "stdio", "command": "", "oauth": {"identity": "per-requester"}, "auth":'
            ' "oauth", "url": "https://x"}'
        ),
        [
            (
                "mcp.servers.s.oauth.identity",
                ('oauth.identity "per-requester" cannot be combined with a command or "stdio" transport'),
                None,
            ),
            (
                "mcp.servers.s.transport",
                '"stdio" transport requires a non-empty command',
                None,
            ),
        ],
    ),
    (
        '{"url": "https://x", "oauth": {"identity": "shared", "authProfileId": "p"}}',
        [],
    ),
    (
        ('{"oauth": {"identity": "per-requester", "redirectUrl": "x"}, "auth": "oauth", "url": "https://x"}'),
        [
            (
                "mcp.servers.s.oauth.redirectUrl",
                "Invalid URL",
                None,
            ),
            (
                "mcp.servers.s.oauth.redirectUrl",
                "Expected http:// or https:// URL",
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"identity": "per-requester", "scope": ""}, "auth": "oauth"}',
        [
            (
                "mcp.servers.s.oauth.scope",
                "Too small: expected string to have >=1 characters",
                None,
            ),
            (
                "mcp.servers.s.oauth.identity",
                'oauth.identity "per-requester" requires an HTTP server URL',
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"identity": "per-requester"}, "auth": "OAUTH", "url": "https://x"}',
        [
            (
                "mcp.servers.s.auth",
                'Invalid input: expected "oauth" (allowed: "oauth")',
                ("oauth",),
            ),
        ],
    ),
    (
        '{"env": {"A": NaN, "B": [1]}, "headers": {"x": [], "y": -Infinity}}',
        [
            (
                "mcp.servers.s.env.A",
                "Invalid input",
                None,
            ),
            (
                "mcp.servers.s.env.B",
                "Invalid input",
                None,
            ),
            (
                "mcp.servers.s.headers.x",
                "Invalid input",
                None,
            ),
            (
                "mcp.servers.s.headers.y",
                "Invalid input",
                None,
            ),
        ],
    ),
    (
        '{"args": null}',
        [
            (
                "mcp.servers.s.args",
                "Invalid input: expected array, received null",
                None,
            ),
        ],
    ),
    (
        '{"toolFilter": {"include": ["a"], "exclude": "x"}}',
        [
            (
                "mcp.servers.s.toolFilter.exclude",
                "Invalid input: expected array, received string",
                None,
            ),
        ],
    ),
    (
        (
            '{"codex": {"agents":'
            ' ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", " ", "\\u212a",'
            ' "ok\\n"]}}'
        ),
        [
            (
                "mcp.servers.s.codex.agents.0",
                "Invalid string: must match pattern /^[a-z0-9][a-z0-9_-]{0,63}$/i",
                None,
            ),
            (
                "mcp.servers.s.codex.agents.1",
                "Invalid string: must match pattern /^[a-z0-9][a-z0-9_-]{0,63}$/i",
                None,
            ),
            (
                "mcp.servers.s.codex.agents.2",
                "Invalid string: must match pattern /^[a-z0-9][a-z0-9_-]{0,63}$/i",
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"identity": "per-requester"}, "auth": "oauth", "url": "   "}',
        [
            (
                "mcp.servers.s.url",
                "Invalid URL",
                None,
            ),
            (
                "mcp.servers.s.url",
                "Expected http:// or https:// URL",
                None,
            ),
        ],
    ),
    (
        '{"url": "\\thttps://x"}',
        [],
    ),
    (
        '{"url": "https://x\\u00a0", "transport": "stdio", "command": "\\u00a0\\u3000"}',
        [
            (
                "mcp.servers.s.transport",
                '"stdio" transport requires a non-empty command',
                None,
            ),
        ],
    ),
    (
        '{"disabled": null}',
        [
            (
                "mcp.servers.s.disabled",
                'unsupported key "disabled"; use the canonical "enabled" boolean instead',
                None,
            ),
        ],
    ),
    (
        '{"toolFilter": {"b": 1, "2": 1, "a": 1}}',
        [
            (
                "mcp.servers.s.toolFilter",
                'Unrecognized keys: "2", "b", "a"',
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"a\\"b": 1}}',
        [
            (
                "mcp.servers.s.oauth",
                'Unrecognized key: "a"b"',
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"redirectUrl": 5, "clientMetadataUrl": " https://x/y "}}',
        [
            (
                "mcp.servers.s.oauth.redirectUrl",
                "Invalid input: expected string, received number",
                None,
            ),
        ],
    ),
    (
        '{"oauth": {"clientMetadataUrl": "https://x"}}',
        [
            (
                "mcp.servers.s.oauth.clientMetadataUrl",
                "Expected https:// URL with a non-root pathname",
                None,
            ),
        ],
    ),
    (
        '{"codex": {"agents": ["Ab", "a-b_c", "9x"]}, "type": 5}',
        [],
    ),
    (
        (
            '{"transport": "sse", "command": "c", "oauth": {"identity": "per-requester"}, "auth":'
            ' "oauth", "url": "https://x"}'
        ),
        [
            (
                "mcp.servers.s.oauth.identity",
                ('oauth.identity "per-requester" cannot be combined with a command or "stdio" transport'),
                None,
            ),
        ],
    ),
    (
        '{"enabled": 1, "transport": "stdio", "timeout": 1}',
        [
            (
                "mcp.servers.s.enabled",
                "Invalid input: expected boolean, received number (allowed: true, false)",
                ("true", "false"),
            ),
        ],
    ),
    (
        '{"url": "https://x", "oauth": {"scope": [1], "authProfileId": {}}}',
        [
            (
                "mcp.servers.s.oauth.authProfileId",
                "Invalid input: expected string, received object",
                None,
            ),
            (
                "mcp.servers.s.oauth.scope",
                "Invalid input: expected string, received array",
                None,
            ),
        ],
    ),
    (
        '{"toolFilter": {"include": [null, ""]}}',
        [
            (
                "mcp.servers.s.toolFilter.include.0",
                "Invalid input: expected string, received null",
                None,
            ),
            (
                "mcp.servers.s.toolFilter.include.1",
                "Too small: expected string to have >=1 characters",
                None,
            ),
        ],
    ),
]


@pytest.mark.parametrize(("server_json", "expected"), MORE_VERIFIED_SERVERS)
def test_more_servers_report_exactly_the_reference_issues(server_json: str, expected: Expected) -> None:
    assert _server_issues(server_json) == expected


_ORIGIN = "sandboxOrigin must be an HTTP(S) origin without a path, query, or credentials"


# Whole documents: the root, the ``mcp`` block itself, ``apps`` and the servers map.
VERIFIED_DOCUMENTS: list[tuple[str, Expected]] = [
    (
        (
            '{"mcp": {"sessionIdleTtlMs": -1, "zzz": 1, "servers": {"a": {"command": 5}}, "apps":'
            ' {"enabled": "x", "sandboxOrigin": "https://x/path", "sandboxPort": 0, "extra": 1},'
            ' "aaa": 2}}'
        ),
        [
            (
                "mcp.sessionIdleTtlMs",
                "Too small: expected number to be >=0 (minimum: 0)",
                None,
            ),
            (
                "mcp.servers.a.command",
                "Invalid input: expected string, received number",
                None,
            ),
            (
                "mcp.apps.enabled",
                "Invalid input: expected boolean, received string (allowed: true, false)",
                ("true", "false"),
            ),
            (
                "mcp.apps.sandboxOrigin",
                "sandboxOrigin must be an HTTP(S) origin without a path, query, or credentials",
                None,
            ),
            (
                "mcp.apps.sandboxPort",
                "Too small: expected number to be >=1 (minimum: 1)",
                None,
            ),
            (
                "mcp.apps",
                'Unrecognized key: "extra"',
                None,
            ),
            (
                "mcp",
                'Unrecognized keys: "zzz", "aaa"',
                None,
            ),
        ],
    ),
    (
        (
            '{"mcp": {"sessionIdleTtlMs": "x", "servers": null, "apps": {"sandboxOrigin":'
            ' "ftp://x", "sandboxPort": 70000}}}'
        ),
        [
            (
                "mcp.sessionIdleTtlMs",
                "Invalid input: expected number, received string",
                None,
            ),
            (
                "mcp.servers",
                "Invalid input: expected record, received null",
                None,
            ),
            (
                "mcp.apps.sandboxOrigin",
                "sandboxOrigin must be an HTTP(S) origin without a path, query, or credentials",
                None,
            ),
            (
                "mcp.apps.sandboxPort",
                "Too big: expected number to be <=65535 (maximum: 65535)",
                None,
            ),
        ],
    ),
    (
        '{"mcp": {"servers": [], "apps": {"sandboxOrigin": "not a url", "sandboxPort": 1.5}}}',
        [
            (
                "mcp.servers",
                "Invalid input: expected record, received array",
                None,
            ),
            (
                "mcp.apps.sandboxOrigin",
                "Invalid URL",
                None,
            ),
            (
                "mcp.apps.sandboxOrigin",
                "sandboxOrigin must be an HTTP(S) origin without a path, query, or credentials",
                None,
            ),
            (
                "mcp.apps.sandboxPort",
                "Invalid input: expected int, received number",
                None,
            ),
        ],
    ),
    (
        '{"mcp": null}',
        [
            (
                "mcp",
                "Invalid input: expected object, received null",
                None,
            ),
        ],
    ),
    (
        '{"mcp": [1]}',
        [
            (
                "mcp",
                "Invalid input: expected object, received array",
                None,
            ),
        ],
    ),
    (
        "[]",
        [
            (
                "<root>",
                "Invalid input: expected object, received array",
                None,
            ),
        ],
    ),
    (
        (
            '{"mcp": {"servers": "x", "apps": {"sandboxOrigin": " HTTPS://X/? ", "sandboxPort":'
            ' 65535, "enabled": true}}}'
        ),
        [
            (
                "mcp.servers",
                "Invalid input: expected record, received string",
                None,
            ),
        ],
    ),
    (
        ('{"mcp": {"servers": {"a": {"command": 5}}, "apps": {"sandboxOrigin": "https://x/#", "sandboxPort": 1.0}}}'),
        [
            (
                "mcp.servers.a.command",
                "Invalid input: expected string, received number",
                None,
            ),
        ],
    ),
    (
        "5",
        [
            (
                "<root>",
                "Invalid input: expected object, received number",
                None,
            ),
        ],
    ),
    # ``apps`` parts of larger verified configs.
    (
        '{"mcp": {"apps": {"sandboxOrigin": "https://user@x", "sandboxPort": 1e16}}}',
        [
            ("mcp.apps.sandboxOrigin", _ORIGIN, None),
            ("mcp.apps.sandboxPort", "Too big: expected int to be <=9007199254740991", None),
            ("mcp.apps.sandboxPort", "Too big: expected number to be <=65535 (maximum: 65535)", None),
        ],
    ),
    (
        '{"mcp": {"apps": {"sandboxOrigin": "https://x?q", "sandboxPort": "80"}}}',
        [
            ("mcp.apps.sandboxOrigin", _ORIGIN, None),
            ("mcp.apps.sandboxPort", "Invalid input: expected number, received string", None),
        ],
    ),
    (
        '{"mcp": {"apps": {"sandboxOrigin": "https://x#f", "sandboxPort": Infinity}}}',
        [
            ("mcp.apps.sandboxOrigin", _ORIGIN, None),
            ("mcp.apps.sandboxPort", "Invalid input: expected number, received Infinity", None),
        ],
    ),
    (
        '{"mcp": {"apps": {"sandboxOrigin": "http://x:8080", "sandboxPort": -1e16}}}',
        [
            ("mcp.apps.sandboxPort", "Too small: expected int to be >=-9007199254740991", None),
            ("mcp.apps.sandboxPort", "Too small: expected number to be >=1 (minimum: 1)", None),
        ],
    ),
]


@pytest.mark.parametrize(("document_json", "expected"), VERIFIED_DOCUMENTS)
def test_whole_documents_report_exactly_the_reference_issues(document_json: str, expected: Expected) -> None:
    assert _issues(json.loads(document_json)) == expected


# --- order rules (§2.3 "Order") ------------------------------------------------------------------------


def test_a_type_mismatch_suppresses_the_cross_field_rules() -> None:
    assert _server_issues('{"command": 5, "timeout": 1}') == [
        ("mcp.servers.s.command", "Invalid input: expected string, received number", None),
    ]


def test_cross_field_rules_run_in_order_retired_keys_disabled_stdio() -> None:
    assert _server_issues('{"timeout": 1, "disabled": true, "transport": "stdio"}') == [
        ("mcp.servers.s", 'Unrecognized key: "timeout"', None),
        (
            "mcp.servers.s.disabled",
            'unsupported key "disabled"; use "enabled: false" instead, '
            'then run "openclaw doctor --fix" to migrate existing config',
            None,
        ),
        ("mcp.servers.s.transport", '"stdio" transport requires a non-empty command', None),
    ]


def test_an_unknown_oauth_key_comes_before_the_per_requester_rule() -> None:
    assert _server_issues('{"oauth": {"identity": "per-requester", "bogus": 1}, "url": "https://x"}') == [
        ("mcp.servers.s.oauth", 'Unrecognized key: "bogus"', None),
        ("mcp.servers.s.oauth.identity", 'oauth.identity "per-requester" requires auth: "oauth"', None),
    ]


def test_bound_and_url_issues_do_not_suppress_the_cross_field_rules() -> None:
    # Deviation from the spec's wording: only *aborting* issues (type, enum, literal) stop the rules.
    assert _server_issues('{"connectionTimeoutMs": -1, "requestTimeoutMs": 0, "timeout": 1}') == [
        (
            "mcp.servers.s.connectionTimeoutMs",
            "Too small: expected number to be >0 (must be greater than 0)",
            None,
        ),
        (
            "mcp.servers.s.requestTimeoutMs",
            "Too small: expected number to be >0 (must be greater than 0)",
            None,
        ),
        ("mcp.servers.s", 'Unrecognized key: "timeout"', None),
    ]
    assert _server_issues('{"url": "ws://x", "timeout": 1}') == [
        ("mcp.servers.s.url", "Expected http:// or https:// URL", None),
        ("mcp.servers.s", 'Unrecognized key: "timeout"', None),
    ]


def test_the_first_issue_is_the_one_set_reports() -> None:
    # `openclaw mcp set y '{"url":"https://x","timeout":1,"connectionTimeoutMs":-1}'` printed
    # `Config invalid after MCP set (mcp.servers.y.connectionTimeoutMs: Too small: …)`.
    root = {
        "mcp": {
            "servers": {
                "a": {"command": "c"},
                "y": {"url": "https://x", "timeout": 1, "connectionTimeoutMs": -1},
            }
        }
    }
    first = validate_config(root)[0]
    assert (first.dotted, first.message) == (
        "mcp.servers.y.connectionTimeoutMs",
        "Too small: expected number to be >0 (must be greater than 0)",
    )
    # `set z '{"transport":"stdio","command":"\u00a0"}'`: JavaScript trim removes the no-break space.
    stdio = validate_config({"mcp": {"servers": {"z": {"transport": "stdio", "command": "\u00a0"}}}})
    assert [(i.dotted, i.message) for i in stdio] == [
        ("mcp.servers.z.transport", '"stdio" transport requires a non-empty command'),
    ]


# --- the servers map ------------------------------------------------------------------------------------


def test_servers_are_validated_in_javascript_property_order() -> None:
    root = {
        "mcp": {
            "servers": {
                "my server": {"command": 5},
                "10": {"command": 5},
                "2": {"command": 5},
                "": {"command": 5},
                "a.b": {"command": 5},
                "$x:y-z": {"command": 5},
                "01": {"command": 5},
            }
        }
    }
    issues = validate_config(root)
    assert [issue.dotted for issue in issues] == [
        "mcp.servers.2.command",
        "mcp.servers.10.command",
        "mcp.servers.my server.command",
        "mcp.servers..command",
        "mcp.servers.a.b.command",
        "mcp.servers.$x:y-z.command",
        "mcp.servers.01.command",
    ]
    # The invalid-config block's text lines print these paths like this:
    assert [issue.display for issue in issues] == [
        'mcp.servers["2"].command',
        'mcp.servers["10"].command',
        'mcp.servers["my server"].command',
        'mcp.servers[""].command',
        'mcp.servers["a.b"].command',
        "mcp.servers.$x:y-z.command",
        'mcp.servers["01"].command',
    ]


def test_non_object_entries_are_reported_like_the_observed_invalid_config_block() -> None:
    root = {"mcp": {"servers": {"a": {"timeout": 1}, "b": None, "c": "str"}}}
    assert _issues(root) == [
        ("mcp.servers.a", 'Unrecognized key: "timeout"', None),
        ("mcp.servers.b", "Invalid input: expected object, received null", None),
        ("mcp.servers.c", "Invalid input: expected object, received string", None),
    ]
    assert legacy_lines(root) == [
        "mcp.servers: mcp.servers timeout aliases were retired; use connectionTimeoutMs and "
        'requestTimeoutMs. Run "openclaw doctor --fix".',
    ]


def test_a_server_named_proto_is_reported_before_every_other_issue() -> None:
    root = json.loads(
        '{"mcp":{"sessionIdleTtlMs":-1,"servers":{"a":{"command":5},"__proto__":{"command":5}},"bogus":1}}'
    )
    assert _issues(root) == [
        ("mcp.servers.__proto__", 'MCP server name "__proto__" is reserved; rename the server', None),
        ("mcp.sessionIdleTtlMs", "Too small: expected number to be >=0 (minimum: 0)", None),
        ("mcp.servers.a.command", "Invalid input: expected string, received number", None),
        ("mcp", 'Unrecognized key: "bogus"', None),
    ]


def test_proto_keys_elsewhere_are_ignored_and_prototype_names_are_plain_servers() -> None:
    root = json.loads(
        '{"mcp":{"__proto__":{"x":1},"servers":{"constructor":{"command":5},"prototype":{"command":5},'
        '"p":{"__proto__":{"command":5},"oauth":{"__proto__":1},"env":{"__proto__":null}}}}}'
    )
    assert _issues(root) == [
        ("mcp.servers.constructor.command", "Invalid input: expected string, received number", None),
        ("mcp.servers.prototype.command", "Invalid input: expected string, received number", None),
    ]


def test_a_client_metadata_url_that_is_not_a_url_makes_the_validator_throw() -> None:
    # Reading: `<root>: read failed: TypeError: Invalid URL`; `set`: uncaught error, reason `Invalid URL`.
    with pytest.raises(ValidatorThrew) as caught:
        validate_config({"mcp": {"servers": {"x": {"oauth": {"clientMetadataUrl": "not a url"}}}}})
    assert caught.value.js_text == "TypeError: Invalid URL"
    assert caught.value.message == "Invalid URL"


@pytest.mark.parametrize(
    ("root", "received"),
    [([], "array"), (5, "number"), ("s", "string"), (None, "null"), (True, "boolean")],
)
def test_a_root_that_is_not_an_object_is_one_root_issue(root: object, received: str) -> None:
    issues = validate_config(root)
    assert issues == [Issue((), f"Invalid input: expected object, received {received}")]
    assert (issues[0].dotted, issues[0].display) == ("<root>", "<root>")


def test_other_top_level_sections_are_opaque() -> None:
    assert validate_config({}) == []
    assert validate_config({"gateway": 5, "nodeHost": {"mcp": {"servers": {"b": {"timeout": 1}}}}}) == []
    assert validate_config({"mcp": {"servers": {"s": {"command": "uvx", "customKey": {"kept": True}}}}}) == []


# --- legacy lines (§1.4) ----------------------------------------------------------------------------------

_DISABLED = (
    'entries use the unsupported "disabled" key; use "enabled" with the inverse boolean value. '
    'Run "openclaw doctor --fix" to migrate it.'
)
_TYPE = 'entries use OpenClaw transport names; CLI-native type aliases are legacy here. Run "openclaw doctor --fix".'
_TIMEOUT = 'timeout aliases were retired; use connectionTimeoutMs and requestTimeoutMs. Run "openclaw doctor --fix".'
_ALIASES = 'legacy aliases were retired; use camelCase spellings and cwd. Run "openclaw doctor --fix".'


def test_legacy_lines_follow_the_reference_rule_order_for_both_server_maps() -> None:
    root = {
        "mcp": {"servers": {"a": {"timeout": 1, "type": "sse", "disabled": True, "workingDirectory": "x"}}},
        "nodeHost": {"mcp": {"servers": {"b": {"timeout": 1, "type": "http", "disabled": False, "client_key": "k"}}}},
    }
    assert legacy_lines(root) == [
        f"mcp.servers: mcp.servers {_DISABLED}",
        f"nodeHost.mcp.servers: nodeHost.mcp.servers {_DISABLED}",
        f"mcp.servers: mcp.servers {_TYPE}",
        f"mcp.servers: mcp.servers {_TIMEOUT}",
        f"nodeHost.mcp.servers: nodeHost.mcp.servers {_TIMEOUT}",
        f"mcp.servers: mcp.servers {_ALIASES}",
        f"nodeHost.mcp.servers: nodeHost.mcp.servers {_ALIASES}",
    ]


def test_a_snake_case_codex_mode_is_a_legacy_alias() -> None:
    root = {"nodeHost": {"mcp": {"servers": {"b": {"codex": {"default_tools_approval_mode": "auto"}}}}}}
    assert legacy_lines(root) == [f"nodeHost.mcp.servers: nodeHost.mcp.servers {_ALIASES}"]


def test_the_type_alias_line_is_trimmed_case_insensitive_and_only_for_mcp_servers() -> None:
    assert legacy_lines({"mcp": {"servers": {"f2": {"type": "HTTP ", "command": 5}}}}) == [
        f"mcp.servers: mcp.servers {_TYPE}"
    ]
    assert legacy_lines({"mcp": {"servers": {"s": {"type": 5}, "t": {"type": "websocket"}}}}) == []
    assert legacy_lines({"nodeHost": {"mcp": {"servers": {"s": {"type": "sse"}}}}}) == []


def test_the_disabled_line_needs_a_boolean() -> None:
    assert legacy_lines({"mcp": {"servers": {"s": {"disabled": None}}}}) == []
    assert legacy_lines({"mcp": {"servers": {"s": {"disabled": False}}}}) == [f"mcp.servers: mcp.servers {_DISABLED}"]


def test_no_legacy_lines_without_a_servers_object() -> None:
    assert legacy_lines([]) == []
    assert legacy_lines({"mcp": None}) == []
    assert legacy_lines({"mcp": {"servers": [{"timeout": 1}]}}) == []
    assert legacy_lines({"mcp": {"servers": {"a": None, "b": "x"}}}) == []


# --- Issue and type names -------------------------------------------------------------------------------


def test_issue_paths_render_dotted_for_json_and_concrete_for_text() -> None:
    issue = Issue(("mcp", "servers", "x", "args", 0), "m")
    assert (issue.dotted, issue.display) == ("mcp.servers.x.args.0", "mcp.servers.x.args[0]")
    quoted = Issue(("mcp", "servers", 'a"b\n', "url"), "m")
    assert quoted.display == 'mcp.servers["a\\"b\\n"].url'


def test_the_json_envelope_path_is_trimmed_but_the_text_path_is_not() -> None:
    issues = validate_config({"mcp": {"servers": {"a ": {"timeout": 1}, " b": {"command": 5}}}})
    assert [(i.dotted, i.json_path, i.display) for i in issues] == [
        ("mcp.servers.a ", "mcp.servers.a", 'mcp.servers["a "]'),
        ("mcp.servers. b.command", "mcp.servers. b.command", 'mcp.servers[" b"].command'),
    ]
    assert Issue((), "m").json_path == "<root>"


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null"),
        (True, "boolean"),
        (0, "number"),
        (1.5, "number"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        ("", "string"),
        ([], "array"),
        ({}, "object"),
    ],
)
def test_type_names_are_the_ones_zod_prints(value: object, name: str) -> None:
    assert type_name(value) == name


# --- the root is a strict object (issue 14 item 4) ------------------------------------------------------


def _pairs(document: Any) -> list[tuple[str, str]]:
    return [(issue.dotted, issue.message) for issue in validate_config(document)]


def test_an_unknown_root_key_rejects_the_config() -> None:
    assert _pairs({"big": "x", "mcp": {}}) == [("<root>", 'Unrecognized key: "big"')]


def test_unknown_root_keys_come_after_the_other_issues_in_property_order() -> None:
    document = json.loads(
        '{"zzz": 1, "big": "x", "tools": {"profile": "bogus"}, "mcp": {"servers": {"a": {"url": 5}}}}'
    )
    pairs = _pairs(document)
    assert pairs[-1] == ("<root>", 'Unrecognized keys: "zzz", "big"')
    assert [dotted for dotted, _ in pairs[:-1]] == ["tools.profile", "mcp.servers.a.url"]


def test_every_root_key_of_the_reference_schema_is_accepted() -> None:
    from openclaw_mcp.domain.validation import ROOT_KEYS

    values: dict[str, Any] = {"$schema": "s", "worktreeRoot": "/w", "worktreeAcceleration": False, "bindings": []}
    assert len(ROOT_KEYS) == 44
    assert _pairs({key: values.get(key, {}) for key in ROOT_KEYS}) == []


def test_a_proto_root_key_is_not_reported() -> None:
    assert _pairs(json.loads('{"__proto__": {"x": 1}, "mcp": {}}')) == []
