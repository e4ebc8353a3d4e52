"""The settings page's pure rules (spec mcp-settings-page §3.1, §4, §5, §11.3): cards, rows, quoting, the add
form and its tokenizer, redaction with the sentinel restore, changed paths."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openclaw_mcp.domain.settings_page import (
    MISSING_HASH,
    REDACTED,
    AddProblem,
    SentinelMisplaced,
    added_server,
    changed_paths,
    config_hash,
    oauth_label,
    redact_mcp,
    restore_redacted,
    server_row,
    shell_quote,
    summary,
    tokenize_command,
    ui_transport,
)
from tests.fixtures.reference_cases import FIXTURES

SEED = FIXTURES / "mcp-page-seed.json"


def _seed() -> dict[str, Any]:
    if not SEED.exists():
        pytest.skip("the spec's seed config is not beside the checkout")
    document: dict[str, Any] = json.loads(SEED.read_text())
    return document


def test_cards_of_the_seed() -> None:
    assert summary(_seed()["mcp"]["servers"]) == {"servers": 6, "enabled": 5, "oauth": 3, "filtered": 2}


def test_cards_count_any_truthy_filter_and_only_exact_oauth() -> None:
    servers = {
        "a": {"toolFilter": {}, "auth": "OAuth"},
        "b": {"toolFilter": None, "enabled": True},
        "c": {"enabled": "false"},
        "d": "not an object",
    }
    assert summary(servers) == {"servers": 4, "enabled": 4, "oauth": 0, "filtered": 1}


ROWS = [
    ("context7", "uvx", "stdio · tool filter", "Enabled", "openclaw mcp probe context7", "Disable"),
    (
        "docs",
        REDACTED,
        "streamable-http · oauth · tool filter · parallel",
        "Enabled",
        "openclaw mcp login docs",
        "Disable",
    ),
    ("local-tools", "node", "stdio", "Enabled", "openclaw mcp probe local-tools", "Disable"),
    (
        "mtls-remote",
        "https://mtls.example.com/mcp",
        "streamable-http · oauth · mTLS",
        "Enabled",
        "Each person signs in through this connector in chat.",
        "Disable",
    ),
    (
        "o'brien legacy",
        "https://legacy.example.com/sse",
        "sse · TLS verify off",
        "Disabled",
        "openclaw mcp probe 'o'\\''brien legacy'",
        "Enable",
    ),
    (
        "profiled",
        "https://p.example.com/mcp",
        "streamable-http · oauth",
        "Enabled",
        "Sign in through the linked account in Models.",
        "Disable",
    ),
]


@pytest.mark.parametrize("expected", ROWS, ids=[row[0] for row in ROWS])
def test_rows_of_the_seed(expected: tuple[str, ...]) -> None:
    name = expected[0]
    row = server_row(name, _seed()["mcp"]["servers"][name])
    pill = "Enabled" if row.enabled else "Disabled"
    toggle = "Disable" if row.enabled else "Enable"
    assert (row.name, row.target, row.meta, pill, row.hint.text, toggle) == expected


@pytest.mark.parametrize(
    ("server", "shown"),
    [
        ({"command": "   "}, "stdio"),
        ({"command": "", "url": "https://x/mcp", "transport": "streamable-http"}, "streamable-http"),
        ({"url": "https://x/mcp"}, "sse"),
        ({"url": "https://x/mcp", "transport": "sse"}, "sse"),
        ({"url": "https://x/mcp", "type": "http"}, "sse"),
        ({"url": "https://x/mcp", "transport": "http"}, "invalid"),
        ({"url": ""}, "invalid"),
        ({}, "invalid"),
    ],
)
def test_ui_transport(server: dict[str, Any], shown: str) -> None:
    assert ui_transport(server) == shown


def test_missing_transport_target_and_weird_stdio_name() -> None:
    assert server_row("x", {}).target == "missing transport"
    row = server_row("weird name ü", {"command": "./run me.sh", "args": ["--token", "t"]})
    assert row.target == "./run me.sh"
    assert row.hint.text == "openclaw mcp probe 'weird name ü'"


@pytest.mark.parametrize(
    ("url", "redacted"),
    [
        ("https://user:pw@x.example.com/mcp", True),
        ("https://x.example.com/mcp?token=abc", True),
        ("https://x.example.com/mcp?api_key=k", True),
        ("https://api.telegram.org/bot123456:ABCdefGHIjklMNOpqrSTUvwxYZ/x", True),
        ("https://api.telegram.org/bot123:short/x", False),
        ("https://x.example.com/mcp?page=2", False),
        ("https://legacy.example.com/sse", False),
    ],
)
def test_row_target_redaction(url: str, redacted: bool) -> None:
    assert (server_row("s", {"url": url}).target == REDACTED) is redacted


@pytest.mark.parametrize(
    ("name", "quoted"),
    [
        ("context7", "context7"),
        ("a.b:c/d-e_f", "a.b:c/d-e_f"),
        ("o'brien legacy", "'o'\\''brien legacy'"),
        ("", "''"),
        ("$(rm -rf)", "'$(rm -rf)'"),
    ],
)
def test_shell_quote(name: str, quoted: str) -> None:
    assert shell_quote(name) == quoted


def test_operator_sign_in_kind_needs_an_http_url() -> None:
    assert server_row("r", {"url": "https://o.example.com/mcp", "auth": "oauth"}).sign_in == "operator"
    assert server_row("r", {"url": "ftp://o.example.com/mcp", "auth": "oauth"}).sign_in is None
    assert server_row("r", {"command": "x", "auth": "oauth"}).sign_in is None


# -- the add form ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "tokens"),
    [
        (
            "npx -y \"@scope/server notes\" --flag 'a b' c\\ d",
            ["npx", "-y", "@scope/server notes", "--flag", "a b", "c d"],
        ),
        ('a ""', ["a", ""]),
        ('"a\\\\"', ["a\\"]),
        ('"a\\"b"', ['a"b']),
        ('"a\\\\\\"b"', ['a\\"b']),
        ('"a\\b"', ["a\\b"]),
        ("a\\x", ["a\\x"]),
        ("a\\'b", ["a'b"]),
        ("'it''s'", ["its"]),
        ("  x   y  ", ["x", "y"]),
        ("", []),
        ("npx 'unterminated", None),
        ('"open', None),
    ],
)
def test_tokenizer(line: str, tokens: list[str] | None) -> None:
    assert tokenize_command(line) == tokens


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1), min_size=1, max_size=5))
def test_single_quoted_tokens_round_trip(words: list[str]) -> None:
    line = " ".join("'" + word.replace("'", "'\\''") + "'" for word in words)
    assert tokenize_command(line) == words


def test_add_form_writes() -> None:
    assert added_server(" notes ", "stdio", "npx -y \"@scope/server notes\" --flag 'a b' c\\ d", []) == (
        "notes",
        {"command": "npx", "args": ["-y", "@scope/server notes", "--flag", "a b", "c d"]},
    )
    assert added_server("remote-oauth", "streamable-http", "https://oauth.example.com/mcp", []) == (
        "remote-oauth",
        {"url": "https://oauth.example.com/mcp", "transport": "streamable-http"},
    )
    url = "https://user:pw@sse.example.com/sse?api_key=k1&page=2"
    assert added_server("legacy-sse", "sse", url, []) == ("legacy-sse", {"url": url, "transport": "sse"})
    assert added_server("one", "stdio", "uvx", []) == ("one", {"command": "uvx"})


@pytest.mark.parametrize(
    ("name", "transport", "target", "message"),
    [
        ("bad name!", "stdio", "x", "Server names use letters, numbers, dots, dashes, or underscores."),
        ("../evil", "stdio", "x", "Server names use letters, numbers, dots, dashes, or underscores."),
        ("_x", "stdio", "x", "Server names use letters, numbers, dots, dashes, or underscores."),
        ("x", "streamable-http", "not a url", "Enter a URL for HTTP transports or a valid command line for stdio."),
        (
            "x",
            "stdio",
            "https://x.example.com/mcp",
            "Enter a URL for HTTP transports or a valid command line for stdio.",
        ),
        ("x", "stdio", "HTTP://x", "Enter a URL for HTTP transports or a valid command line for stdio."),
        ("x", "sse", "ftp://x.example.com/", "Enter a URL for HTTP transports or a valid command line for stdio."),
        ("x", "stdio", "npx 'unterminated", "Enter a URL for HTTP transports or a valid command line for stdio."),
        ("x", "websocket", "ws://x", "Enter a URL for HTTP transports or a valid command line for stdio."),
        ("docs", "stdio", "x", "An MCP server named \u201cdocs\u201d already exists."),
    ],
)
def test_add_form_refusals(name: str, transport: str, target: str, message: str) -> None:
    with pytest.raises(AddProblem) as caught:
        added_server(name, transport, target, ["docs"])
    assert str(caught.value) == message


# -- redaction, restore, hashes ----------------------------------------------------------------------------


def test_redaction_of_the_seed() -> None:
    mcp = _seed()["mcp"]
    shown, paths = redact_mcp(mcp)
    text = json.dumps(shown)
    for secret in ("s3cret", "ghp_", "abcdefghijklmnop123456", "internal.example", "token=abc", "blue"):
        assert secret not in text
    assert "abc123" in text  # args are not redacted (§2.2)
    assert ("servers", "docs", "url") in paths
    assert ("servers", "local-tools", "env", "GITHUB_TOKEN") in paths
    assert ("servers", "o'brien legacy", "url") not in paths
    assert mcp["servers"]["docs"]["url"].startswith("https://alice:")  # the input is not changed


def test_restore_puts_stored_secrets_back() -> None:
    mcp = _seed()["mcp"]
    shown, paths = redact_mcp(mcp)
    assert isinstance(shown, dict)
    shown["servers"]["context7"]["command"] = "uvx2"
    restored = restore_redacted(shown, mcp, paths)
    assert isinstance(restored, dict)
    assert restored["servers"]["docs"] == mcp["servers"]["docs"]
    assert restored["servers"]["local-tools"]["env"] == mcp["servers"]["local-tools"]["env"]
    assert restored["servers"]["context7"]["command"] == "uvx2"


@pytest.mark.parametrize(
    "edit",
    [
        lambda m: m["servers"]["context7"].__setitem__("command", REDACTED),
        lambda m: m["servers"]["context7"]["args"].append(REDACTED),
        lambda m: m["servers"].__setitem__("new", {"url": REDACTED}),
        lambda m: m["servers"]["context7"].__setitem__(REDACTED, 1),
    ],
    ids=["unredacted-field", "in-a-list", "new-server", "as-a-key"],
)
def test_sentinel_elsewhere_is_refused(edit: Any) -> None:
    mcp = _seed()["mcp"]
    shown, paths = redact_mcp(mcp)
    edit(shown)
    with pytest.raises(SentinelMisplaced) as caught:
        restore_redacted(shown, mcp, paths)
    assert str(caught.value).endswith("redacted placeholder cannot be saved here")
    assert str(caught.value).startswith("mcp.servers.")


def test_renamed_server_cannot_carry_a_redacted_value() -> None:
    mcp = {"servers": {"a": {"command": "x", "env": {"K": "secret"}}}}
    shown, paths = redact_mcp(mcp)
    assert isinstance(shown, dict)
    shown["servers"]["b"] = shown["servers"].pop("a")
    with pytest.raises(SentinelMisplaced):
        restore_redacted(shown, mcp, paths)


def test_hash() -> None:
    assert config_hash(None) == MISSING_HASH
    assert config_hash("{}\n") == config_hash("{}\n") != config_hash("{} \n")
    assert config_hash("{}").startswith("sha256:") and len(config_hash("{}")) == 7 + 64


def test_changed_paths() -> None:
    before = {"servers": {"a": {"command": "x", "args": ["1"]}, "b": {"url": "u"}}}
    after = {"servers": {"a": {"command": "y", "args": ["1"]}, "c": {"url": "u"}}, "apps": {"enabled": True}}
    assert changed_paths(before, after) == ["mcp.servers.a.command", "mcp.servers.c", "mcp.servers.b", "mcp.apps"]
    assert changed_paths({"x": 1}, {"x": 1.0}) == ["mcp.x"]
    assert changed_paths({"x": [1]}, {"x": [1]}) == []


def test_oauth_labels() -> None:
    now = 1_000_000
    assert oauth_label({"state": "authorized", "expiresAt": now + 90 * 60_000}, None, now) == (
        "authorized",
        "expires in 90 min",
    )
    assert oauth_label({"state": "authorized", "expiresAt": now + 72 * 3_600_000}, None, now) == (
        "authorized",
        "expires in 3 days",
    )
    assert oauth_label({"state": "authorized", "expiresAt": now - 1}, None, now) == ("expired", "token expired")
    assert oauth_label({"state": "authorized"}, None, now) == ("authorized", "authorized")
    assert oauth_label({"state": "requires-authorization"}, None, now) == (
        "requires-authorization",
        "requires authorization",
    )
    assert oauth_label({"state": "unauthenticated"}, None, now) == ("unauthenticated", "requires authorization")
    assert oauth_label(None, 1, now) == ("per-requester", "1 person signed in")
    assert oauth_label(None, None, now) is None
