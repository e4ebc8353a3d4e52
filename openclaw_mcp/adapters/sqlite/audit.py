"""The audit trail in the OpenClaw state database (issue 35, docs/audit.md): ``openclaw_mcp_audit`` (one row per
record: ``seq``, the canonical ``record_json``, ``prev_hash``, ``hash``) and ``openclaw_mcp_audit_meta`` (the
retention anchor: the ``seq`` and ``hash`` of the last pruned record).

Each append is one ``BEGIN IMMEDIATE`` … ``COMMIT`` transaction: it reads the newest record's hash (or the
anchor), inserts the new record chained to it and prunes past the retention bounds, so writers in several
processes never fork the chain. Appends reuse one connection per log (reopened after an error): closing the
last connection of a WAL database checkpoints it, which would cost every tool call a few milliseconds. The
tables are created on demand by the first append (``CREATE TABLE IF NOT EXISTS``, the database itself as every
writer creates it: 0700/0600, WAL); readers never create anything (a missing database or table is an empty
log). Writes wait at most ``busy_timeout_ms`` (2 000) for the lock: the tool call that waits is the caller's.

``inline=True`` runs each step on the calling thread (the CLI's loop-less commands); otherwise steps run in a
worker thread, so a locked database never stalls the event loop.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeVar

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.sqlite._db import ensure_state_db, is_busy_error, open_state_db
from openclaw_mcp.application.ports.audit import (
    AuditLogCorrupt,
    AuditLogError,
    AuditLogUnavailable,
    AuditRetention,
    AuditVerdict,
)
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.domain.audit import (
    AuditAnchor,
    AuditEntry,
    AuditQuery,
    AuditRecord,
    AuditRow,
    chain_hash,
    record_from_json,
    record_json,
    verify_chain,
)

__all__ = ["AUDIT_BUSY_TIMEOUT_MS", "AUDIT_SCHEMA", "SqliteAuditLog"]

_T = TypeVar("_T")

AUDIT_BUSY_TIMEOUT_MS: Final = 2_000

AUDIT_SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS openclaw_mcp_audit (\n"
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  record_json TEXT NOT NULL,\n"
    "  prev_hash TEXT NOT NULL,\n"
    "  hash TEXT NOT NULL\n"
    ") STRICT",
    "CREATE TABLE IF NOT EXISTS openclaw_mcp_audit_meta (\n"
    "  key TEXT NOT NULL PRIMARY KEY,\n"
    "  value TEXT NOT NULL\n"
    ") STRICT",
)
"""Our two tables (prefixed ``openclaw_mcp_``: never a reference table name)."""

_DAY_MS: Final = 86_400_000
_AGE_PRUNE_EVERY: Final = 256
"""Age-based pruning runs on the first append of an instance and every this many appends after it."""


def _anchor(conn: sqlite3.Connection) -> AuditAnchor:
    rows = dict(conn.execute("SELECT key, value FROM openclaw_mcp_audit_meta WHERE key LIKE 'anchor_%'").fetchall())
    if "anchor_seq" not in rows or "anchor_hash" not in rows:
        return AuditAnchor()
    try:
        return AuditAnchor(int(rows["anchor_seq"]), str(rows["anchor_hash"]))
    except ValueError:
        return AuditAnchor(-1, str(rows["anchor_hash"]))  # an edited anchor breaks the first record


def _set_anchor(conn: sqlite3.Connection, seq: int, digest: str) -> None:
    conn.executemany(
        "INSERT INTO openclaw_mcp_audit_meta (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (("anchor_seq", str(seq)), ("anchor_hash", digest)),
    )


def _prune_through(conn: sqlite3.Connection, seq: int, digest: str) -> None:
    conn.execute("DELETE FROM openclaw_mcp_audit WHERE seq <= ?", (seq,))
    _set_anchor(conn, seq, digest)


def _ts_of(text: str) -> int | None:
    try:
        value = json.loads(text).get("ts")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class SqliteAuditLog:
    """:class:`~application.ports.audit.AuditLog` over the state database at ``db_path``."""

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        retention: AuditRetention | None = None,
        clock: Clock | None = None,
        busy_timeout_ms: int = AUDIT_BUSY_TIMEOUT_MS,
        inline: bool = False,
    ) -> None:
        self._path = os.fspath(db_path)
        self._retention = retention if retention is not None else AuditRetention()
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._busy_timeout_ms = busy_timeout_ms
        self._inline = inline
        self._appends = 0
        self._conn: sqlite3.Connection | None = None
        self._conn_lock = threading.Lock()

    # --- running steps ---------------------------------------------------------------------------------

    async def _run(self, step: Callable[[], _T]) -> _T:
        if self._inline:
            return step()
        import anyio.to_thread  # deferred: the CLI's inline composition has no event loop

        return await anyio.to_thread.run_sync(step)

    @staticmethod
    def _failure(exc: BaseException, action: str) -> AuditLogError:
        busy = isinstance(exc, sqlite3.Error) and is_busy_error(exc)
        error = AuditLogUnavailable(f"cannot {action} the audit log: {exc}", busy=busy)
        error.__cause__ = exc
        return error

    # --- appending -------------------------------------------------------------------------------------

    async def append(self, record: AuditRecord) -> int:
        text = record_json(record)
        prune_age = self._appends % _AGE_PRUNE_EVERY == 0
        self._appends += 1
        return await self._run(lambda: self._append(text, prune_age))

    def _connect(self) -> sqlite3.Connection:
        """The append connection: the database and our tables created on demand (the first time), then one
        connection usable from any worker thread (``_conn_lock`` serialises its use)."""
        if self._conn is None:
            ensure_state_db(self._path, AUDIT_SCHEMA, busy_timeout_ms=self._busy_timeout_ms).close()
            conn = sqlite3.connect(
                self._path, timeout=self._busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
                conn.execute("PRAGMA synchronous = NORMAL")
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None

    def _append(self, text: str, prune_age: bool) -> int:
        with self._conn_lock:
            try:
                conn = self._connect()
            except (OSError, sqlite3.Error) as exc:
                self._drop_connection()
                raise self._failure(exc, "open") from exc
            try:
                return self._append_on(conn, text, prune_age)
            except sqlite3.Error as exc:
                self._drop_connection()  # a locked, replaced or damaged file: start afresh next time
                raise self._failure(exc, "append to") from exc

    def _append_on(self, conn: sqlite3.Connection, text: str, prune_age: bool) -> int:
        try:
            conn.execute("BEGIN IMMEDIATE")
            newest = conn.execute("SELECT hash FROM openclaw_mcp_audit ORDER BY seq DESC LIMIT 1").fetchone()
            prev = newest[0] if newest is not None else _anchor(conn).hash
            cursor = conn.execute(
                "INSERT INTO openclaw_mcp_audit (record_json, prev_hash, hash) VALUES (?, ?, ?)",
                (text, prev, chain_hash(prev, text)),
            )
            seq = cursor.lastrowid
            if seq is None:  # pragma: no cover - an INSERT into a rowid table always has one
                raise sqlite3.IntegrityError("audit insert without a rowid")
            self._prune(conn, seq, prune_age)
            conn.execute("COMMIT")
            return seq
        finally:
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # dropping the connection rolls back as well

    def _prune(self, conn: sqlite3.Connection, seq: int, prune_age: bool) -> None:
        max_records = self._retention.max_records
        if max_records is not None:
            cutoff = conn.execute(
                "SELECT seq, hash FROM openclaw_mcp_audit WHERE seq <= ? ORDER BY seq DESC LIMIT 1",
                (seq - max_records,),
            ).fetchone()
            if cutoff is not None:
                _prune_through(conn, cutoff[0], cutoff[1])
        max_days = self._retention.max_days
        if max_days is not None and prune_age:
            oldest_kept = self._clock.now_ms() - max_days * _DAY_MS
            last: tuple[int, str] | None = None
            for row_seq, row_json, row_hash in conn.execute(
                "SELECT seq, record_json, hash FROM openclaw_mcp_audit WHERE seq < ? ORDER BY seq", (seq,)
            ):
                ts = _ts_of(row_json)
                if ts is None or ts >= oldest_kept:
                    break
                last = (row_seq, row_hash)
            if last is not None:
                _prune_through(conn, *last)

    # --- reading ---------------------------------------------------------------------------------------

    def _read(self, step: Callable[[sqlite3.Connection], _T], empty: _T) -> _T:
        """``step`` on a read connection; ``empty`` when the database or the table does not exist."""
        if not os.path.isfile(self._path):
            return empty
        try:
            conn = open_state_db(self._path, busy_timeout_ms=self._busy_timeout_ms)
        except sqlite3.Error as exc:
            raise self._failure(exc, "read") from exc
        try:
            exists = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'openclaw_mcp_audit'"
            ).fetchone()
            if exists is None:
                return empty
            conn.execute("BEGIN")  # one snapshot for the whole read
            return step(conn)
        except sqlite3.Error as exc:
            raise self._failure(exc, "read") from exc
        finally:
            conn.close()

    async def query(self, query: AuditQuery) -> list[AuditEntry]:
        return await self._run(lambda: self._read(lambda conn: self._query(conn, query), []))

    @staticmethod
    def _query(conn: sqlite3.Connection, query: AuditQuery) -> list[AuditEntry]:
        found: list[AuditEntry] = []
        for seq, text in conn.execute("SELECT seq, record_json FROM openclaw_mcp_audit ORDER BY seq DESC"):
            try:
                record = record_from_json(text)
            except (ValueError, TypeError) as exc:
                raise AuditLogCorrupt(
                    f"audit record {seq} is not a record ({exc}); check the chain with openclaw mcp audit --verify"
                ) from exc
            if query.since_ms is not None and record.ts < query.since_ms:
                continue
            if query.matches(record):
                found.append(AuditEntry(seq, record))
                if query.limit is not None and len(found) >= query.limit:
                    break
        found.reverse()
        return found

    async def verify(self) -> AuditVerdict:
        return await self._run(lambda: self._read(self._verify, AuditVerdict(0, None)))

    @staticmethod
    def _verify(conn: sqlite3.Connection) -> AuditVerdict:
        anchor = _anchor(conn) if _has_meta(conn) else AuditAnchor()
        count: int = conn.execute("SELECT COUNT(*) FROM openclaw_mcp_audit").fetchone()[0]
        rows = (
            AuditRow(seq, str(text), str(prev), str(digest))
            for seq, text, prev, digest in conn.execute(
                "SELECT seq, record_json, prev_hash, hash FROM openclaw_mcp_audit ORDER BY seq"
            )
        )
        return AuditVerdict(count, verify_chain(rows, anchor))


def _has_meta(conn: sqlite3.Connection) -> bool:
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'openclaw_mcp_audit_meta'"
    ).fetchone()
    return found is not None


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.audit import AuditLog

    _log: AuditLog = SqliteAuditLog("")
