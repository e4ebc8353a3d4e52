from typing import Any

import pytest

from openclaw_mcp.domain.transport import HttpConfig, StdioConfig, resolve_transport


def _resolve(raw: Any) -> tuple[Any, list[str]]:
    resolution = resolve_transport("srv", raw)
    return resolution.config, [w.text for w in resolution.warnings]


def test_stdio_server_gets_default_timeouts_and_a_launch_description() -> None:
    config, warnings = _resolve({"command": "node", "args": ["./server.mjs"], "connectionTimeoutMs": 12345})
    assert isinstance(config, StdioConfig)
    assert (config.description, config.connection_timeout_ms, config.request_timeout_ms) == (
        "node ./server.mjs",
        12345,
        60000,
    )
    assert config.supports_parallel_tool_calls is False
    assert warnings == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            {"command": "node", "requestTimeoutMs": 1e306, "connectionTimeoutMs": 1e306},
            (2147000000, 2147000000),
        ),
        ({"command": "node", "requestTimeoutMs": "5000", "connectionTimeoutMs": -1}, (30000, 60000)),
        ({"command": "node", "connectionTimeoutMs": 0.4, "requestTimeoutMs": 1500.7}, (1, 1500)),
        ({"command": "node", "connectionTimeoutMs": True}, (30000, 60000)),
    ],
)
def test_timeouts_are_floored_capped_or_defaulted(raw: dict[str, Any], expected: tuple[int, int]) -> None:
    config, _ = _resolve(raw)
    assert (config.connection_timeout_ms, config.request_timeout_ms) == expected


def test_a_command_wins_over_url_and_transport() -> None:
    config, _ = _resolve({"command": "node", "url": "https://x", "transport": "sse"})
    assert isinstance(config, StdioConfig)


def test_padded_command_and_mixed_args_keep_their_raw_form() -> None:
    config, _ = _resolve({"command": "  node  ", "args": ["a", 1, None, "b"], "cwd": "  ", "workingDirectory": "/w"})
    assert config.command == "  node  "
    assert config.args == ("a", "b")
    assert config.cwd == "/w"
    assert config.description == "  node   a b (cwd=/w)"
    config, _ = _resolve({"command": "node", "args": [1, 2]})
    assert config.args == () and config.description == "node"


def test_secret_args_are_redacted_in_the_description_only() -> None:
    args = ["--token", "abc", "--api-key=xyz", "--db-password", "p", "plain"]
    config, _ = _resolve({"command": "node", "args": args, "cwd": "/srv"})
    assert config.description == "node --token *** --api-key=*** --db-password *** plain (cwd=/srv)"
    assert config.args == tuple(args)


@pytest.mark.parametrize(
    ("raw", "warning"),
    [
        ({"transport": "stdio"}, 'skipped server "srv" because transport "stdio" is not supported.'),
        ({}, 'skipped server "srv" because its command is missing and its url is missing.'),
        (
            "node",
            'skipped server "srv" because server config must be an object and server config must be an object.',
        ),
        (
            {"url": "https://x/mcp", "transport": "http"},
            'skipped server "srv" because transport "http" is not supported.',
        ),
        (
            {"url": "ftp://x/mcp", "transport": "streamable-http"},
            'skipped server "srv" because not a stdio server (has url) and only http and https URLs are supported, '
            "got ftp:.",
        ),
        (
            {"url": "not a url"},
            'skipped server "srv" because not a stdio server (has url) and its url is not a valid URL: not a url.',
        ),
    ],
)
def test_unusable_servers_are_skipped_with_one_warning(raw: Any, warning: str) -> None:
    config, warnings = _resolve(raw)
    assert config is None
    assert warnings == [warning]


def test_http_headers_are_coerced_and_bad_values_warned() -> None:
    config, warnings = _resolve(
        {
            "url": "https://mcp.example.com/sse",
            "headers": {"Authorization": "Bearer token", "X-Count": 42, "B": True, "N": None},
        }
    )
    assert isinstance(config, HttpConfig)
    assert config.transport_type == "sse"
    assert config.headers == {"Authorization": "Bearer token", "X-Count": "42", "B": "true"}
    assert warnings == ['server "srv": header "N" has an unsupported value type and was ignored.']
    config, warnings = _resolve({"url": "https://x", "headers": ["a"]})
    assert config.headers is None
    assert warnings == ['server "srv": "headers" must be a JSON object; the value was ignored.']


@pytest.mark.parametrize(
    ("raw", "transport"),
    [
        ({"url": "https://x/mcp", "transport": "streamable-http"}, "streamable-http"),
        ({"url": "https://x/mcp", "type": " HTTP "}, "streamable-http"),
        ({"url": "https://x/mcp", "type": "stdio"}, "sse"),
        ({"url": "https://x/mcp", "transport": "sse", "type": "http"}, "sse"),
        ({"url": "https://x/mcp", "transport": 5, "type": "http"}, "streamable-http"),
        ({"url": "https://typed.example.com/x", "type": "websocket"}, "sse"),
    ],
)
def test_http_transport_follows_transport_then_type_alias(raw: dict[str, Any], transport: str) -> None:
    config, _ = _resolve(raw)
    assert isinstance(config, HttpConfig) and config.transport_type == transport


def test_http_auth_tls_fields_are_normalised() -> None:
    config, _ = _resolve(
        {
            "url": "https://x",
            "transport": "streamable-http",
            "auth": "oauth",
            "oauth": {"scope": "s"},
            "sslVerify": False,
            "clientCert": " /c.pem ",
            "clientKey": "",
        }
    )
    assert (config.auth, config.oauth, config.ssl_verify, config.client_cert, config.client_key) == (
        "oauth",
        {"scope": "s"},
        False,
        "/c.pem",
        None,
    )
    config, _ = _resolve({"url": "https://x", "auth": "OAuth"})
    assert config.auth is None
    config, _ = _resolve({"url": "  https://x/mcp  "})
    assert config.url == "https://x/mcp"


def test_launch_of_http_servers_redacts_credentials() -> None:
    cases = {
        "https://alice:s3cret@mcp.example.com/mcp": "https://***:***@mcp.example.com/mcp",
        "https://alice@mcp.example.com/sse": "https://***@mcp.example.com/sse",
        "https://mcp.example.com": "https://mcp.example.com",
        "https://mcp.example.com/mcp?token=abc&api_key=k1&X-Amz-Signature=sig&page=2&Access-Token=zz": "https://mcp.example.com/mcp?token=***&api_key=***&X-Amz-Signature=***&page=2&Access-Token=***",
    }
    for url, launch in cases.items():
        config, _ = _resolve({"url": url})
        assert config.description == launch


def test_blocked_env_keys_are_reported_with_a_once_key() -> None:
    resolution = resolve_transport("svc", {"command": "x", "env": {"NODE_OPTIONS": "a", "OK": "b"}})
    assert isinstance(resolution.config, StdioConfig)
    assert resolution.config.env == {"OK": "b"}
    [warning] = resolution.warnings
    assert warning.text == 'server "svc": env "NODE_OPTIONS" is blocked for stdio startup safety and was ignored.'
    assert warning.once == ("svc", "NODE_OPTIONS")
