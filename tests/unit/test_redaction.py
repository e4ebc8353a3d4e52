"""Secret redaction exactly as the reference prints it.

Every expected value below was produced by the reference itself (OpenClaw 2026.9.6 on Node 24:
``redactSensitiveUrl``, ``redactSensitiveText``, ``redactSensitiveArgv``, ``redactMcpDiagnosticError``
and ``sanitizeForLog`` imported from its bundle) for the same input.
"""

from __future__ import annotations

import pytest

from openclaw_mcp.domain.redaction import (
    MASK,
    is_sensitive_url_query_param_name,
    mask_token,
    redact_argv,
    redact_diagnostic,
    redact_sensitive_text,
    redact_sensitive_url,
    redact_text_line,
    redact_url_text,
    sanitize_for_log,
)

URL_CASES = [
    (
        "https://mcp.example.com/mcp?token=abc&api_key=k1&X-Amz-Signature=sig&page=2&Access-Token=zz",
        "https://mcp.example.com/mcp?token=***&api_key=***&X-Amz-Signature=***&page=2&Access-Token=***",
    ),
    (
        "https://mcp.example.com/sse?token_0123456789abcdef=1&tokenizer=keep&code=c0de",
        "https://mcp.example.com/sse?token_0123456789abcdef=***&tokenizer=keep&code=***",
    ),
    ("https://u:p@mcp.example.com/a/../b?x=1 2", "https://***:***@mcp.example.com/b?x=1%202"),
    ("https://mcp.example.com", "https://mcp.example.com"),
    ("HTTPS://MCP.Example.com:443/mcp", "HTTPS://MCP.Example.com:443/mcp"),
    ("https://alice:s3cret@h/mcp", "https://***:***@h/mcp"),
    ("https://alice@h/sse", "https://***@h/sse"),
    ("https://user:secret@x.example/mcp?token=abc&x=1", "https://***:***@x.example/mcp?token=***&x=1"),
    ("https://h/mcp?token=a&x=1 2&token=b", "https://h/mcp?token=***&x=1+2"),
    ("https://h/mcp?to%6Ben=a&T%2BOKEN=b&%zz=c", "https://h/mcp?token=***&T%2BOKEN=***&%25zz=***"),
    (
        "https://h/mcp?sig=1&session=2&jwt=3&code=4&state=5",
        "https://h/mcp?sig=***&session=***&jwt=***&code=***&state=5",
    ),
    (
        "https://h/mcp?tokenizer=1&my_token=2&token_0123456789abcdeg=3",
        "https://h/mcp?tokenizer=1&my_token=***&token_0123456789abcdeg=3",
    ),
    (
        "https://api.telegram.org/bot123456789:ABCdefGHIjklMNOpqrSTUvwx/sendMessage",
        "https://api.telegram.org/bot***/sendMessage",
    ),
    (
        "https://h/redirect?next=https://u:p@inner.example/x?token=zz",
        "https://h/redirect?next=https%3A%2F%2F***%3A***%40inner.example%2Fx%3Ftoken%3D***",
    ),
    ("https://h/cb#access_token=abc&state=1", "https://h/cb#access_token=***&state=1"),
    ("https://h/app#/route?token=1&x=2", "https://h/app#/route?token=***&x=2"),
    (
        "https://h/x?u=http%3A%2F%2Fu%3Ap%40h%2F%3Ftoken%3Dq",
        "https://h/x?u=http%3A%2F%2F***%3A***%40h%2F%3Ftoken%3D***",
    ),
    ("foo://u:p@h/x?token=1", "foo://***:***@h/x?token=***"),
    ("mailto:a@b.example?token=1", "mailto:a@b.example?token=***"),
    ("not a url ?token=abc&x=1", "not a url ?token=***&x=1"),
    ("//user:pw@host/x", "//***:***@host/x"),
    ("https://u:p@h:99999/x?token=1", "https://***:***@h:99999/x?token=***"),
]

URL_TEXT_CASES = [
    ("https://u:p@h:99999/x?token=1", "https://***:***@h:99999/x?token=***"),
    ("ws://user:pw@[::1/x?api_key=a&b=c", "ws://***:***@[::1/x?api_key=***&b=c"),
    ("//admin:hunter2@internal/x", "//***:***@internal/x"),
    ("1h://u:p@x/?secret=1#code=2", "1h://***:***@x/?secret=***"),
    ("http://[bad/?token=1#access_token=2&x=3", "http://[bad/?token=***&x=3"),
]

TEXT_CASES = [
    ("--env entries must use KEY=VALUE.", "--env entries must use KEY=***"),
    ("--header entries must use KEY=VALUE.", "--header entries must use KEY=***"),
    ("API_KEY=abc", "API_KEY=***"),
    ("TOKEN=abc", "TOKEN=***"),
    ("MY_SECRET=abcdefghijklmnopqrstuvwxyz", "MY_SECRET=abcdef…wxyz"),
    ("key=abc", "key=abc"),
    ("api_key=abcdefghijklmnopqrstuvwxyz", "api_key=***"),
    ("password: hunter2", "password: ***"),
    ("export DB_PASSWORD=$DB_PASSWORD", "export DB_PASSWORD=$DB_PASSWORD"),
    ("sk-abcdefghijklmnopqrstuvwxyz123456", "sk-abc…3456"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_ab…6789"),
    ("Bearer abcdefghijklmnop123456", "Bearer abcdef…3456"),
    ("Bearer short", "Bearer short"),
    ("Authorization: Bearer abc", "Authorization: Bearer ***"),
    ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic ***"),
    ("Proxy-Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "Proxy-Authorization: Bearer ***"),
    ('Authorization: Digest username="bob", realm="r", response="abc"', "Authorization: Digest ***"),
    ("x-api-key: abcdef", "x-api-key: ***"),
    ('{"apiKey": "abcdefghijklmnopqrstu"}', '{"apiKey": "***"}'),
    ("https://u:p@host.example.com/?token=abc", "https://u:***@host.example.com/?token=***"),
    (
        "see https://user:secret@h.example/x?token=abcdefghijklmnopqrstuvwxyz&x=1 now",
        "see https://user:***@h.example/x?token=abcdef…wxyz&x=1 now",
    ),
    ("postgres://user:hunter2@db.internal/app", "postgres://user:***@db.internal/app"),
    ("token=abc&page=2", "token=***&page=2"),
    ("run --password hunter2 now", "run --password *** now"),
    ("bot123456789:ABCdefGHIjklMNOpqrSTUvwxyz", "bot123456…wxyz"),
    ("AKIAIOSFODNN7EXAMPLE", "AKIAIO…MPLE"),
    ("key aB3/xY9+zQ1=wE5rT7uI0oP2aS4dF6gH8jK0lZ2x here", "key aB3/xY…lZ2x here"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\ndef\n-----END RSA PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY-----\n…redacted…\n-----END RSA PRIVATE KEY-----",
    ),
    ("No MCP servers configured.", "No MCP servers configured."),
    (
        'Saved MCP server "docs" to /home/u/.openclaw/openclaw.json.',
        'Saved MCP server "docs" to /home/u/.openclaw/openclaw.json.',
    ),
    (
        'bundle-mcp: skipped server "x" because its command is missing and its url is missing.',
        'bundle-mcp: skipped server "x" because its command is missing and its url is missing.',
    ),
    ("docs  streamable-http  https://mcp.example.com/mcp", "docs  streamable-http  https://mcp.example.com/mcp"),
    (
        "https://auth.example.com/authorize?response_type=code&client_id=abc123&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&redirect_uri=http%3A%2F%2F127.0.0.1%3A53682%2Fcallback&state=xyzSTATE123&scope=mcp%20read&resource=https%3A%2F%2Fmcp.example.com%2Fmcp",
        "https://auth.example.com/authorize?response_type=code&client_id=abc123&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&redirect_uri=http%3A%2F%2F127.0.0.1%3A53682%2Fcallback&state=xyzSTATE123&scope=mcp%20read&resource=https%3A%2F%2Fmcp.example.com%2Fmcp",
    ),
]

ARGV_CASES = [
    (
        ["--token", "abc123", "--api-key=xyz", "--port", "8080", "--client-secret", "-dash-secret", "--verbose"],
        ["--token", "***", "--api-key=***", "--port", "8080", "--client-secret", "***", "--verbose"],
    ),
    (
        [
            "sk-abcdefghijklmnopqrstuvwxyz123456",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "Bearer abcdefghijklmnop123456",
            "https://u:p@host.example.com/?token=abc",
        ],
        ["sk-abc…3456", "ghp_ab…6789", "Bearer abcdef…3456", "https://u:***@host.example.com/?token=***"],
    ),
    (
        ["--my-pin", "1234", "--PASSWORD=x", "--passwords", "x"],
        ["--my-pin", "***", "--PASSWORD=***", "--passwords", "x"],
    ),
    (["--token"], ["--token"]),
    (["-y", "@scope/server@1.0", "API_KEY=abc"], ["-y", "@scope/server@1.0", "API_KEY=***"]),
]

DIAG_CASES = [
    ("Authorization: Bearer test-diagnostic-token", "Authorization: Bearer ***"),
    ('Error POSTing to endpoint: {"secret":"body"}', "Error POSTing to endpoint: [redacted response body]"),
    (
        "Streamable HTTP error: Error POSTing to endpoint (HTTP 500): body text here",
        "Streamable HTTP error: Error POSTing to endpoint (HTTP 500): [redacted response body]",
    ),
    ("failed https://user:pw@h.example/x?token=abc&q=1", "failed https://***:***@h.example/x?token=***&q=1"),
    (
        "MCP error -32000: Connection closed | spawn npx ENOENT",
        "MCP error -32000: Connection closed | spawn npx ENOENT",
    ),
    ("fetch failed | connect ECONNREFUSED 127.0.0.1:9", "fetch failed | connect ECONNREFUSED 127.0.0.1:9"),
]

SANITIZE_CASES = [
    ("probe\nWARN forged\x1b[31m", "probeWARN forged"),
    ("\x1b]0;title\x07name", "name"),
    ("a\x9b1mb\x85c", "abc"),
    ("tab\there\x7f", "tabhere"),
]

SENSITIVE_NAME_CASES = [
    ("token", True),
    ("Access-Token", True),
    ("X-Amz-Signature", True),
    ("to%6Ben", True),
    ("to+ken", True),
    ("%zz", True),
    ("tokenizer", False),
    ("my_token", True),
    ("state", False),
    ("client_id", False),
    ("\u200btoken", True),
]


@pytest.mark.parametrize(("url", "expected"), URL_CASES)
def test_redact_sensitive_url_matches_the_reference(url: str, expected: str) -> None:
    assert redact_sensitive_url(url) == expected


@pytest.mark.parametrize(("text", "expected"), URL_TEXT_CASES)
def test_redact_url_text_applies_the_text_fallback_to_unparsable_urls(text: str, expected: str) -> None:
    assert redact_url_text(text) == expected
    assert redact_sensitive_url(text) == expected


@pytest.mark.parametrize(("text", "expected"), TEXT_CASES)
def test_redact_text_line_matches_the_reference_console_redaction(text: str, expected: str) -> None:
    assert redact_text_line(text) == expected
    assert redact_sensitive_text(text) == expected


@pytest.mark.parametrize(("args", "expected"), ARGV_CASES)
def test_redact_argv_masks_secret_flags_and_secret_looking_arguments(args: list[str], expected: list[str]) -> None:
    assert redact_argv(args) == expected


@pytest.mark.parametrize(("message", "expected"), DIAG_CASES)
def test_redact_diagnostic_cuts_response_bodies_and_redacts_urls_and_secrets(message: str, expected: str) -> None:
    assert redact_diagnostic(message) == expected


@pytest.mark.parametrize(("text", "expected"), SANITIZE_CASES)
def test_sanitize_for_log_strips_ansi_sequences_and_control_characters(text: str, expected: str) -> None:
    assert sanitize_for_log(text) == expected


@pytest.mark.parametrize(("name", "expected"), SENSITIVE_NAME_CASES)
def test_sensitive_query_parameter_names_are_normalised_before_matching(name: str, expected: bool) -> None:
    assert is_sensitive_url_query_param_name(name) is expected


def test_unchanged_url_is_returned_verbatim_without_normalisation() -> None:
    text = "HTTPS://MCP.Example.com:443/a/../b?x=1 2"
    assert redact_sensitive_url(text) == text


def test_mask_token_keeps_six_leading_and_four_trailing_characters_from_eighteen_units() -> None:
    assert mask_token("abcdefghijklmnopq") == MASK
    assert mask_token("abcdefghijklmnopqr") == "abcdef…opqr"
    assert mask_token(MASK) == MASK
    assert redact_sensitive_text("MY_TOKEN=abcdefghijklmnopqr") == "MY_TOKEN=abcdef…opqr"


def test_mask_token_counts_utf16_units_and_never_splits_a_surrogate_pair() -> None:
    # nine emoji are eighteen UTF-16 code units: three emoji kept in front, two at the end
    assert mask_token("😀" * 9) == "😀😀😀…😀😀"
    assert redact_sensitive_text("MY_TOKEN=" + "😀" * 9) == "MY_TOKEN=😀😀😀…😀😀"


def test_redact_argv_keeps_the_argument_count() -> None:
    args = ["--secret", "--token", "x", "y"]
    assert redact_argv(args) == ["--secret", "***", "x", "y"]
