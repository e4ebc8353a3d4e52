"""OAuth credentials cleared when a config mutation replaces an OAuth server (tool-policy-and-lifecycle §4,
acceptance §5.4): the decision rule, then the observed sequence of §4.5 through our real CLI and SQLite store."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.domain.oauth_clearing import OAuthClearing, replaced_oauth_clearing
from tests.oauth_clearing_steps import PR, U1, U2, run_steps, store_key

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main"]
CLEARED = '{"credentialState":"cleared"}'

OAUTH = {"url": U1, "auth": "oauth"}
REQUESTER = {**OAUTH, "oauth": {"identity": "per-requester"}}


# --- the decision rule (§4.2) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        pytest.param({"url": U1}, None, None, id="no-auth"),
        pytest.param({"command": "npx", "auth": "oauth"}, None, None, id="not-http"),
        pytest.param({"url": "not a url", "auth": "oauth"}, None, None, id="unresolvable-url"),
        pytest.param(None, OAUTH, None, id="added"),
        pytest.param(OAUTH, OAUTH, None, id="same"),
        pytest.param(OAUTH, {**OAUTH, "requestTimeoutMs": 5000}, None, id="same-url-other-field"),
        pytest.param(OAUTH, {**OAUTH, "oauth": {"identity": "shared"}}, None, id="explicit-shared"),
        pytest.param(REQUESTER, REQUESTER, None, id="same-requester"),
        pytest.param(OAUTH, None, OAuthClearing(store_key("docs", U1), operator=True), id="unset"),
        pytest.param(OAUTH, {**OAUTH, "url": U2}, OAuthClearing(store_key("docs", U1), operator=True), id="url"),
        pytest.param(OAUTH, {"url": U1}, OAuthClearing(store_key("docs", U1), operator=True), id="auth-removed"),
        pytest.param(
            OAUTH, {"command": "npx", "auth": "oauth"}, OAuthClearing(store_key("docs", U1), True), id="to-stdio"
        ),
        pytest.param(OAUTH, REQUESTER, OAuthClearing(store_key("docs", U1), operator=True), id="became-requester"),
        pytest.param(REQUESTER, OAUTH, OAuthClearing(store_key("docs", U1), operator=False), id="became-shared"),
        pytest.param(
            REQUESTER, {**REQUESTER, "url": U2}, OAuthClearing(store_key("docs", U1), True), id="requester-url"
        ),
    ],
)
def test_the_decision_rule(before: object, after: object, expected: OAuthClearing | None) -> None:
    assert replaced_oauth_clearing("docs", before, after) == expected


def test_requester_prefix() -> None:
    assert OAuthClearing("docs-9cb3522dd977d04a", operator=True).requester_prefix == "docs-9cb3522dd977d04a-r-"


# --- through the CLI ------------------------------------------------------------------------------------


def _runner(state: Path) -> Any:
    env = {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
    }
    (state / "home").mkdir(parents=True, exist_ok=True)

    def run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*CLI, *argv], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
        )

    return run


def _rows(step: dict[str, Any]) -> dict[str, str]:
    return {key: text for key, text in step["rows"]}


def test_the_observed_sequence_of_section_4_5(tmp_path: Path) -> None:
    steps = run_steps(_runner(tmp_path), tmp_path)
    for step in steps:
        for command in step["commands"]:
            assert command["exit"] == 0, command
            assert command["stderr"] == "", command
    docs1, docs2, other = (
        store_key("docs", U1),
        store_key("docs", U2),
        store_key("other", "https://other.example.com/mcp"),
    )
    step0, step1, step2, step3, step4, step5, step6, step7, step8 = steps
    assert step0["authStatus"]["state"] == "authorized"
    assert step0["authStatus"]["expiresAt"] == 4_102_444_800_000
    assert step1["rows"] == step0["rows"] and step1["pending"] == step0["pending"]  # rule 3
    rows2 = _rows(step2)
    assert rows2[docs1] == CLEARED and rows2[f"{docs1}-r-0123456789abcdef"] == CLEARED
    assert rows2[other] != CLEARED
    assert step2["pending"] == []  # the operator's and the requester's pending rows
    unauthenticated = {
        "hasTokens": False,
        "requiresAuthorization": False,
        "hasClientInformation": False,
        "hasCodeVerifier": False,
        "hasDiscoveryState": False,
        "hasLastAuthorizationUrl": False,
        "state": "unauthenticated",
    }
    assert step2["authStatus"] == unauthenticated
    assert _rows(step3)[docs2] != CLEARED
    assert step3["pending"] == [["st-a", docs2], ["st-b", f"{docs2}-r-aaaa"]]
    assert _rows(step4)[docs2] == CLEARED and step4["pending"] == []
    assert step4["commands"][0]["stdout"] == 'Removed MCP server "docs" from <STATE>/openclaw.json.\n'
    assert step5["authStatus"] == unauthenticated
    assert _rows(step6)[docs2] == CLEARED  # auth removed
    assert _rows(step7)[store_key("fresh", "https://fresh.example.com/mcp")] == CLEARED  # upserted
    rows8 = _rows(step8)
    pr = store_key("pr", PR)
    assert rows8[pr] != CLEARED and rows8[f"{pr}-r-1111111111111111"] == CLEARED  # rule 4
    assert rows8[other] == _rows(step0)[other]


def _db_rows(state: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(state / "state" / "openclaw.sqlite") as db:
        rows = db.execute("SELECT * FROM mcp_oauth_stores ORDER BY store_key").fetchall()
    db.close()
    return rows


def _seed_tokens(state: Path, name: str, url: str) -> None:
    from tests.oauth_clearing_steps import STORES_DDL, TOKENS

    (state / "state").mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(state / "state" / "openclaw.sqlite") as db:
        db.execute(STORES_DDL)
        db.execute("INSERT INTO mcp_oauth_stores VALUES (?, 1, ?, 7)", (store_key(name, url), TOKENS))
    db.close()


def test_unset_of_a_server_without_auth_writes_no_row(tmp_path: Path) -> None:
    run = _runner(tmp_path)
    assert run(["mcp", "set", "plain", json.dumps({"url": U1})]).returncode == 0
    assert run(["mcp", "unset", "plain"]).returncode == 0
    assert not (tmp_path / "state" / "openclaw.sqlite").exists()


def test_changing_only_the_timeout_of_an_oauth_server_keeps_its_tokens(tmp_path: Path) -> None:
    run = _runner(tmp_path)
    assert run(["mcp", "set", "docs", json.dumps(OAUTH)]).returncode == 0
    _seed_tokens(tmp_path, "docs", U1)
    before = _db_rows(tmp_path)
    assert run(["mcp", "set", "docs", json.dumps({**OAUTH, "requestTimeoutMs": 5000})]).returncode == 0
    assert run(["mcp", "configure", "docs", "--timeout", "7"]).returncode == 0
    assert run(["mcp", "tools", "docs", "--include", "a"]).returncode == 0
    assert _db_rows(tmp_path) == before


def test_configure_and_tools_clear_through_the_same_rule(tmp_path: Path) -> None:
    run = _runner(tmp_path)
    assert run(["mcp", "set", "docs", json.dumps(OAUTH)]).returncode == 0
    _seed_tokens(tmp_path, "docs", U1)
    done = run(["mcp", "configure", "docs", "--clear-auth"])
    assert done.returncode == 0, done.stderr
    assert _db_rows(tmp_path)[0][2] == CLEARED


def test_a_hand_edit_of_the_config_clears_nothing(tmp_path: Path) -> None:
    run = _runner(tmp_path)
    assert run(["mcp", "set", "docs", json.dumps(OAUTH)]).returncode == 0
    _seed_tokens(tmp_path, "docs", U1)
    before = _db_rows(tmp_path)
    config = tmp_path / "openclaw.json"
    config.write_text(config.read_text(encoding="utf-8").replace(U1, U2), encoding="utf-8")
    status = run(["mcp", "status", "--json"])
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["servers"][0]["authStatus"]["state"] == "unauthenticated"  # the new key
    assert _db_rows(tmp_path) == before
