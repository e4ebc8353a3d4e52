"""Opening the OpenClaw state database for writing (spec cli-registry §7.1, §7.2, decision D10).

Writers create what they need on demand: the directory (mode 0700), the file (mode 0600), WAL journaling and
only the tables they use, with the reference's exact definitions (``CREATE … IF NOT EXISTS``, so a full
reference database is left as it is). ``schema_meta`` and ``user_version`` are never written: the reference
migrates such a file to its full schema later and keeps the rows.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "BUSY_TIMEOUT_MS",
    "MCP_OAUTH_PENDING_AUTHORIZATIONS_SCHEMA",
    "MCP_OAUTH_STORES_SCHEMA",
    "STATE_LEASES_SCHEMA",
    "StateDbWriter",
    "ensure_state_db",
    "is_busy_error",
    "open_state_db",
]

BUSY_TIMEOUT_MS = 5_000

_DIR_MODE = 0o700
_FILE_MODE = 0o600

# The statements below are the reference's text (2026.9.6 ``OPENCLAW_STATE_SCHEMA_SQL``) byte for byte, so
# ``sqlite_master.sql`` of a table we create equals the one the reference creates.

STATE_LEASES_SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS state_leases (\n"
    "  scope TEXT NOT NULL,\n"
    "  lease_key TEXT NOT NULL,\n"
    "  owner TEXT NOT NULL,\n"
    "  expires_at INTEGER,\n"
    "  heartbeat_at INTEGER,\n"
    "  payload_json TEXT,\n"
    "  created_at INTEGER NOT NULL,\n"
    "  updated_at INTEGER NOT NULL,\n"
    "  PRIMARY KEY (scope, lease_key)\n"
    ") STRICT",
    "CREATE INDEX IF NOT EXISTS idx_state_leases_expiry\n"
    "  ON state_leases(expires_at, scope, lease_key)\n"
    "  WHERE expires_at IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS idx_state_leases_owner\n  ON state_leases(owner, updated_at DESC)",
)
"""``state_leases`` and its two indices."""

MCP_OAUTH_STORES_SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS mcp_oauth_stores (\n"
    "  store_key TEXT NOT NULL PRIMARY KEY,\n"
    "  format_version INTEGER NOT NULL CHECK (format_version = 1),\n"
    "  store_json TEXT NOT NULL,\n"
    "  updated_at INTEGER NOT NULL\n"
    ") STRICT",
)
"""``mcp_oauth_stores`` (for the OAuth store adapter)."""

MCP_OAUTH_PENDING_AUTHORIZATIONS_SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS mcp_oauth_pending_authorizations (\n"
    "  state TEXT NOT NULL PRIMARY KEY,\n"
    "  store_key TEXT NOT NULL,\n"
    "  create_time INTEGER NOT NULL\n"
    ") STRICT",
)
"""``mcp_oauth_pending_authorizations`` (for the OAuth store adapter)."""

_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6


def is_busy_error(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` is lock contention (``SQLITE_BUSY``/``SQLITE_LOCKED``, extended codes included)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


def _make_private_dirs(directory: Path) -> None:
    missing: list[Path] = []
    current = directory
    while not current.exists():
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, _DIR_MODE)
    # The state database's own directory is always owner-only (like the reference; best effort).
    with contextlib.suppress(OSError):
        os.chmod(directory, _DIR_MODE)


def _harden_files(path: Path) -> None:
    # Best effort, like the reference's ``bestEffortChmodSync``: a file owned by someone else (EPERM) or a
    # filesystem without modes keeps its mode, and whether the database can be written is then SQLite's call.
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(OSError):
            os.chmod(candidate, _FILE_MODE)


def open_state_db(db_path: str | os.PathLike[str], *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Connect to an existing state database for one short operation.

    Autocommit mode (callers issue ``BEGIN IMMEDIATE`` … ``COMMIT`` themselves), ``busy_timeout`` (5 000 ms
    unless a test says otherwise), ``synchronous=NORMAL``. Raises ``sqlite3.Error``.
    """
    conn = sqlite3.connect(os.fspath(db_path), timeout=busy_timeout_ms / 1000, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        conn.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        conn.close()
        raise
    return conn


def ensure_state_db(
    db_path: str | os.PathLike[str], schema: Iterable[str] = (), *, busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> sqlite3.Connection:
    """Create the state database on demand and return a connection to it (see :func:`open_state_db`).

    Creates missing directories with mode 0700 (and makes the database's directory 0700), the file with mode
    0600 (also applied, best effort, to an existing file and its ``-wal``/``-shm`` files), switches the
    database to WAL, and runs the ``schema`` statements (``CREATE … IF NOT EXISTS``) in one
    ``BEGIN IMMEDIATE`` transaction. Raises ``OSError`` or ``sqlite3.Error``.
    """
    path = Path(os.fspath(db_path))
    _make_private_dirs(path.parent)
    if not path.exists():
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, _FILE_MODE)
        os.close(fd)
    # Before connecting, as the reference does (``ensureOpenClawStatePermissions`` before the open): SQLite
    # picks read-only or read-write when it opens the file, so a mode fixed afterwards would make this
    # call fail on a read-only file and the next one succeed.
    _harden_files(path)
    conn = open_state_db(path, busy_timeout_ms=busy_timeout_ms)
    try:
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        statements = list(schema)
        if statements:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in statements:
                    conn.execute(statement)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        _harden_files(path)  # the -wal/-shm files WAL mode has just created
    except BaseException:
        conn.close()
        raise
    return conn


class StateDbWriter:
    """Connections of one writer of the state database: the first call creates what ``schema`` needs
    (:func:`ensure_state_db`), later calls just open it (:func:`open_state_db`). Thread-safe."""

    def __init__(
        self, db_path: str | os.PathLike[str], schema: Iterable[str], *, busy_timeout_ms: int = BUSY_TIMEOUT_MS
    ) -> None:
        self.db_path = os.fspath(db_path)
        self.busy_timeout_ms = busy_timeout_ms
        self._schema = tuple(schema)
        self._ready = False
        self._ready_lock = threading.Lock()

    def connect(self) -> sqlite3.Connection:
        """A connection (see :func:`open_state_db`); raises ``OSError`` or ``sqlite3.Error``."""
        with self._ready_lock:
            if not self._ready:
                conn = ensure_state_db(self.db_path, self._schema, busy_timeout_ms=self.busy_timeout_ms)
                self._ready = True
                return conn
        return open_state_db(self.db_path, busy_timeout_ms=self.busy_timeout_ms)
