"""``--token-file`` / ``--password-file`` and the start-up failure line (spec serve-bridge §1.4, §3.2). Every
expected line below was produced by the reference (``openclaw mcp serve``, node 24) for the same file layout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.entrypoints.serve.errors import CodedError, failure_line, format_cli_command, format_error_message
from openclaw_mcp.entrypoints.serve.secrets import read_secret_file, resolve_gateway_auth_options

TAIL = ". Run openclaw gateway status --deep --require-rpc to inspect Gateway health."


def _line(raw: str, tmp_path: Path, label: str = "Gateway token") -> str:
    with pytest.raises(CodedError) as caught:
        read_secret_file(raw, label, {"HOME": str(tmp_path / "home")})
    return failure_line(caught.value)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "dir").mkdir()
    (tmp_path / "real").write_text("tok")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "hard1").write_text("tok")
    os.link(tmp_path / "hard1", tmp_path / "hard2")
    (tmp_path / "big").write_text("a" * 16385)
    (tmp_path / "exact").write_text("a" * 16384)
    (tmp_path / "blank").write_bytes(b" \n\t\xef\xbb\xbf ")
    (tmp_path / "file").write_text("x")
    return tmp_path


def test_a_missing_file_reports_lstat_and_its_errno(files: Path) -> None:
    path = files / "token.txt.missing"
    assert _line(str(path), files) == (
        f"MCP server failed to start: Failed to inspect Gateway token file at {path}: Error: ENOENT: no such file or "
        f"directory, lstat '{path}' | ENOENT{TAIL}"
    )


def test_a_file_below_a_file_is_not_a_directory(files: Path) -> None:
    path = files / "file" / "token"
    assert _line(str(path), files) == (
        f"MCP server failed to start: Failed to inspect Gateway token file at {path}: Error: ENOTDIR: not a "
        f"directory, lstat '{path}' | ENOTDIR{TAIL}"
    )


def test_a_symlink_is_refused(files: Path) -> None:
    path = files / "link"
    assert _line(str(path), files) == (
        f"MCP server failed to start: Failed to inspect Gateway token file at {path}: FsSafeError: Gateway token "
        f"file at {path} must not be a symlink. | symlink{TAIL}"
    )


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("dir", "must be a regular file."),
        ("hard1", "must not be hardlinked."),
        ("big", "exceeds 16384 bytes."),
        ("blank", "is empty."),
    ],
)
def test_file_checks_give_their_messages_with_the_double_period(files: Path, name: str, problem: str) -> None:
    path = files / name
    assert _line(str(path), files) == f"MCP server failed to start: Gateway token file at {path} {problem}{TAIL}"


def test_devices_are_not_regular_files(files: Path) -> None:
    assert _line("/dev/null", files, "Gateway password") == (
        f"MCP server failed to start: Gateway password file at /dev/null must be a regular file.{TAIL}"
    )


def test_paths_are_trimmed_expanded_and_normalised(files: Path) -> None:
    env = {"HOME": str(files)}
    assert read_secret_file(f" {files}/dir/../real ", "Gateway token", env) == "tok"
    assert read_secret_file("~/real", "Gateway token", env) == "tok"
    assert read_secret_file(str(files / "exact"), "Gateway token", env) == "a" * 16384
    missing = files / "home" / "tok"
    assert _line("~/tok", files) == (
        f"MCP server failed to start: Failed to inspect Gateway token file at {missing}: Error: ENOENT: no such file "
        f"or directory, lstat '{missing}' | ENOENT{TAIL}"
    )


def test_content_is_trimmed_with_javascript_whitespace(files: Path) -> None:
    (files / "t").write_bytes(b"\xef\xbb\xbf secret-token\n")
    assert read_secret_file(str(files / "t"), "Gateway token", {}) == "secret-token"


def test_options_resolve_token_then_password_and_warn_for_raw_flags(files: Path) -> None:
    options = {"token": "  ", "token_file": None, "password": "pw", "password_file": None}
    auth = resolve_gateway_auth_options(options, {})
    assert (auth.token, auth.password) == (None, "pw")
    assert auth.warnings == (
        "Warning: --token *** be exposed via process listings. Prefer --token-file or environment variables.",
        "Warning: --password *** be exposed via process listings. Prefer --password-file or environment variables.",
    )
    from_file = resolve_gateway_auth_options({"token": "", "token_file": str(files / "real")}, {})
    assert (from_file.token, from_file.warnings) == ("tok", ())


def test_both_password_options_fail_with_the_password_label(files: Path) -> None:
    with pytest.raises(CodedError, match=r"^Use either --password or --password-file for Gateway password\.$"):
        resolve_gateway_auth_options({"password": "p", "password_file": "f"}, {})


def test_a_blank_file_option_is_no_file(files: Path) -> None:
    assert resolve_gateway_auth_options({"token": "t", "token_file": "   "}, {}).token == "t"


def test_the_failure_line_names_the_profile_or_container() -> None:
    error = ApplicationError("connect ECONNREFUSED 127.0.0.1:41984")
    assert failure_line(error, {"OPENCLAW_PROFILE": "work"}) == (
        "MCP server failed to start: connect ECONNREFUSED 127.0.0.1:41984. Run openclaw --profile work gateway "
        "status --deep --require-rpc to inspect Gateway health."
    )
    command = "openclaw gateway status"
    assert format_cli_command(command, {"OPENCLAW_CONTAINER_HINT": "box1", "OPENCLAW_PROFILE": "w"}) == (
        "openclaw --container box1 gateway status"
    )
    assert format_cli_command(command, {"OPENCLAW_PROFILE": "default"}) == command


def test_error_messages_append_new_cause_messages_and_codes() -> None:
    inner = CodedError("socket hang up", code="ECONNRESET")
    outer = ApplicationError("request failed")
    outer.__cause__ = inner
    assert format_error_message(outer) == "request failed | socket hang up | ECONNRESET"
    top = CodedError("top", code="TOP")
    assert format_error_message(top) == "top"
    library = ApplicationError("connect ECONNREFUSED 127.0.0.1:1")
    library.__cause__ = ConnectionRefusedError(111, "Connection refused")
    assert format_error_message(library) == "connect ECONNREFUSED 127.0.0.1:1"


def test_two_shutdown_failures_are_aggregated() -> None:
    errors = [ApplicationError("gateway stop timed out"), ApplicationError("write EPIPE")]
    group = ExceptionGroup("OpenClaw channel MCP shutdown failed", errors)
    assert format_error_message(group) == "OpenClaw channel MCP shutdown failed | gateway stop timed out | write EPIPE"
    # like JavaScript's includes(): a cause whose text is already contained adds nothing
    assert format_error_message(ExceptionGroup("shutdown failed", [ApplicationError("failed")])) == "shutdown failed"
