"""The observed OAuth clearing sequence of tool-policy-and-lifecycle §4.5 (steps 0–8, as
``../shared/spec/check/oauth-clear.sh`` runs them), driven against one CLI on an isolated state dir.

:func:`run_steps` returns a transcript: per step the commands' exit codes and output (the state dir replaced by
``<STATE>``), every ``mcp_oauth_stores`` row as ``(store_key, store_json)``, the pending rows as
``(state, store_key)`` (or ``"(no table)"``) and, where the sequence asks, ``authStatus`` of ``docs`` from
``status --json``. Token rows are inserted with a fixed expiry so that two implementations' transcripts compare
equal. Used by the unit test of our CLI and by the differential test against the reference.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["Transcript", "run_steps", "store_key"]

Transcript = list[dict[str, Any]]
Runner = Callable[[Sequence[str]], subprocess.CompletedProcess[str]]

U1 = "https://mcp.example.com/mcp"
U2 = "https://mcp2.example.com/mcp"
PR = "https://pr.example.com/mcp"
EXPIRES_AT = 4_102_444_800_000  # 2100-01-01: fixed, so that both transcripts carry the same row text
TOKENS = json.dumps(
    {
        "clientInformation": {"client_id": "c1"},
        "tokens": {"access_token": "at", "token_type": "Bearer", "refresh_token": "rt"},
        "tokenExpiresAt": EXPIRES_AT,
    },
    separators=(",", ":"),
)
STORES_DDL = (  # the reference's schema; its ``set`` creates the state database, ours does not (it is created on use)
    "CREATE TABLE IF NOT EXISTS mcp_oauth_stores (store_key TEXT NOT NULL PRIMARY KEY, format_version INTEGER "
    "NOT NULL CHECK (format_version = 1), store_json TEXT NOT NULL, updated_at INTEGER NOT NULL) STRICT"
)
PENDING_DDL = (
    "CREATE TABLE IF NOT EXISTS mcp_oauth_pending_authorizations (state TEXT NOT NULL PRIMARY KEY, "
    "store_key TEXT NOT NULL, create_time INTEGER NOT NULL) STRICT"
)


def store_key(name: str, url: str) -> str:
    digest = hashlib.sha256(name.encode() + b"\0" + url.encode()).hexdigest()
    return f"{name}-{digest[:16]}"


def _server(url: str, **extra: Any) -> str:
    return json.dumps({"url": url, "transport": "streamable-http", "auth": "oauth", **extra}, separators=(",", ":"))


class _Steps:
    def __init__(self, run: Runner, state_dir: Path) -> None:
        self._run = run
        self._state = state_dir
        self._db = state_dir / "state" / "openclaw.sqlite"
        self.transcript: Transcript = []
        self._step: dict[str, Any] = {}

    def begin(self, number: int) -> None:
        self._step = {"step": number, "commands": []}
        self.transcript.append(self._step)

    def oc(self, *argv: str) -> subprocess.CompletedProcess[str]:
        done = self._run(["mcp", *argv])
        state = str(self._state)
        self._step["commands"].append(
            {
                "argv": list(argv),
                "exit": done.returncode,
                "stdout": done.stdout.replace(state, "<STATE>"),
                "stderr": done.stderr.replace(state, "<STATE>"),
            }
        )
        return done

    def put(self, name: str, url: str, extra: str = "none") -> None:
        key = store_key(name, url)
        self._db.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(self._db) as db:
            db.execute(STORES_DDL)
            db.execute(PENDING_DDL)
            rows = [(key, TOKENS)]
            pending: list[tuple[str, str]] = []
            if extra == "req":
                rows.append((f"{key}-r-0123456789abcdef", TOKENS))
                pending = [("st-op", key), ("st-req", f"{key}-r-ffff")]
            elif extra == "pend":
                pending = [("st-a", key), ("st-b", f"{key}-r-aaaa")]
            elif extra == "req1":
                rows.append((f"{key}-r-1111111111111111", TOKENS))
            for row_key, text in rows:
                db.execute("INSERT OR REPLACE INTO mcp_oauth_stores VALUES (?, 1, ?, 1)", (row_key, text))
            for state, pending_key in pending:
                db.execute(
                    "INSERT OR REPLACE INTO mcp_oauth_pending_authorizations VALUES (?, ?, 1)", (state, pending_key)
                )
        db.close()

    def rows(self) -> None:
        with sqlite3.connect(self._db) as db:
            stores = db.execute("SELECT store_key, store_json FROM mcp_oauth_stores ORDER BY store_key").fetchall()
            table = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'mcp_oauth_pending_authorizations'").fetchone()
            pending: Any = (
                db.execute("SELECT state, store_key FROM mcp_oauth_pending_authorizations ORDER BY state").fetchall()
                if table
                else "(no table)"
            )
        db.close()
        self._step["rows"] = [list(row) for row in stores]
        self._step["pending"] = pending if isinstance(pending, str) else [list(row) for row in pending]

    def auth(self, name: str) -> None:
        done = self._run(["mcp", "status", "--json"])
        servers = json.loads(done.stdout)["servers"]
        self._step["authStatus"] = next((s.get("authStatus") for s in servers if s["name"] == name), "(absent)")


def run_steps(run: Runner, state_dir: Path) -> Transcript:
    """Steps 0–8 of §4.5 with ``run(argv)`` (argv after the ``openclaw`` program name) on ``state_dir``."""
    s = _Steps(run, state_dir)
    s.begin(0)
    s.oc("set", "docs", _server(U1))
    s.put("docs", U1, "req")
    s.put("other", "https://other.example.com/mcp")
    s.rows()
    s.auth("docs")
    s.begin(1)
    s.oc("set", "docs", _server(U1))
    s.rows()
    s.begin(2)
    s.oc("set", "docs", _server(U2))
    s.rows()
    s.auth("docs")
    s.begin(3)
    s.put("docs", U2, "pend")
    s.oc("set", "docs", _server(U2))
    s.rows()
    s.begin(4)
    s.oc("unset", "docs")
    s.rows()
    s.begin(5)
    s.oc("set", "docs", _server(U2))
    s.rows()
    s.auth("docs")
    s.begin(6)
    s.put("docs", U2)
    s.oc("set", "docs", json.dumps({"url": U2, "transport": "streamable-http"}, separators=(",", ":")))
    s.rows()
    s.begin(7)
    s.oc("set", "fresh", json.dumps({"url": "https://fresh.example.com/mcp", "auth": "oauth"}))
    s.oc("unset", "fresh")
    s.rows()
    s.begin(8)
    s.oc("set", "pr", _server(PR, oauth={"identity": "per-requester"}).replace('"transport":"streamable-http",', ""))
    s.put("pr", PR, "req1")
    s.oc("set", "pr", _server(PR, oauth={"identity": "shared"}).replace('"transport":"streamable-http",', ""))
    s.rows()
    return s.transcript
