"""Tool pins in the OpenClaw state database (issue 35): ``openclaw_mcp_pinned_servers`` and
``openclaw_mcp_tool_pins`` (our own tables, prefixed so they never collide with a reference table).

Writers create the database and the two tables on demand (``adapters.sqlite._db``: directory 0700, file 0600,
WAL, busy timeout) and change them in one ``BEGIN IMMEDIATE`` transaction. Readers open the database
read-only and never create anything: a missing file or table reads as "nothing pinned". Every row is checked
on the way out: a definition that is not a JSON object or a fingerprint that does not match its definition
makes the read fail (the runtime then holds the server's tools: fail closed).

Each operation is one short transaction on a fresh connection, run synchronously: a read of a WAL database is
not blocked by writers, and a pin write touches one server's rows.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.sqlite._db import BUSY_TIMEOUT_MS, StateDbWriter
from openclaw_mcp.adapters.sqlite._files import is_file, read_only_uri
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.tool_pins import PinnedServer, PinnedTool, ServerPins, ToolPinStoreError
from openclaw_mcp.domain.tool_pins import canonical_json, tool_fingerprint

__all__ = ["TOOL_PINS_SCHEMA", "SqliteToolPinStore"]

_T = TypeVar("_T")

TOOL_PINS_SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS openclaw_mcp_pinned_servers (\n"
    "  server TEXT NOT NULL PRIMARY KEY,\n"
    "  pinned_at INTEGER NOT NULL,\n"
    "  pinned_by TEXT NOT NULL\n"
    ") STRICT",
    "CREATE TABLE IF NOT EXISTS openclaw_mcp_tool_pins (\n"
    "  server TEXT NOT NULL,\n"
    "  tool TEXT NOT NULL,\n"
    "  fingerprint TEXT NOT NULL,\n"
    "  definition_json TEXT NOT NULL,\n"
    "  pinned_at INTEGER NOT NULL,\n"
    "  pinned_by TEXT NOT NULL,\n"
    "  PRIMARY KEY (server, tool)\n"
    ") STRICT",
)
"""Our two pin tables."""


def _decode_tool(row: tuple[Any, ...]) -> PinnedTool:
    tool, fingerprint, text, pinned_at, pinned_by = row
    try:
        definition = json.loads(text)
    except (TypeError, ValueError):
        definition = None
    if not isinstance(definition, dict):
        raise ToolPinStoreError(f'pin of tool "{tool}" is invalid: definition is not a JSON object')
    if tool_fingerprint(definition) != fingerprint:
        raise ToolPinStoreError(f'pin of tool "{tool}" is invalid: fingerprint does not match its definition')
    if not isinstance(pinned_at, int) or not isinstance(pinned_by, str):
        raise ToolPinStoreError(f'pin of tool "{tool}" is invalid: bad pinned_at/pinned_by')
    return PinnedTool(tool, fingerprint, definition, pinned_at, pinned_by)


def _server_pins(conn: sqlite3.Connection, server: str) -> ServerPins | None:
    row = conn.execute(
        "SELECT pinned_at, pinned_by FROM openclaw_mcp_pinned_servers WHERE server = ?", (server,)
    ).fetchone()
    if row is None:
        return None
    try:
        rows = conn.execute(
            "SELECT tool, fingerprint, definition_json, pinned_at, pinned_by FROM openclaw_mcp_tool_pins"
            " WHERE server = ? ORDER BY tool",
            (server,),
        ).fetchall()
    except sqlite3.OperationalError as exc:  # a pinned server without its pins is corruption, not "unpinned"
        if "no such table" in str(exc):
            raise ToolPinStoreError("table openclaw_mcp_tool_pins is missing") from exc
        raise
    tools = {pin.tool: pin for pin in map(_decode_tool, rows)}
    return ServerPins(PinnedServer(server, row[0], row[1], len(tools)), tools)


def _failure(exc: sqlite3.Error | OSError) -> ToolPinStoreError:
    error = ToolPinStoreError(str(exc) or type(exc).__name__)
    error.__cause__ = exc
    return error


class SqliteToolPinStore:
    """:class:`~application.ports.tool_pins.ToolPinStore` of the state database at ``db_path``; ``clock`` gives
    the ``pinned_at`` of writes."""

    def __init__(
        self, db_path: str | os.PathLike[str], *, clock: Clock | None = None, busy_timeout_ms: int = BUSY_TIMEOUT_MS
    ) -> None:
        self._db_path = os.fspath(db_path)
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._busy_timeout_ms = busy_timeout_ms
        self._writer = StateDbWriter(db_path, TOOL_PINS_SCHEMA, busy_timeout_ms=busy_timeout_ms)

    # -- reads (never create anything)

    def _read(self, step: Callable[[sqlite3.Connection], _T], empty: _T) -> _T:
        try:
            if not is_file(self._db_path):
                return empty
            uri = read_only_uri(self._db_path)
            with contextlib.closing(
                sqlite3.connect(uri, uri=True, timeout=self._busy_timeout_ms / 1000, isolation_level=None)
            ) as conn:
                conn.execute("BEGIN")
                try:
                    return step(conn)
                finally:
                    conn.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return empty
            raise _failure(exc) from exc
        except (sqlite3.Error, OSError) as exc:
            raise _failure(exc) from exc

    async def read_server(self, server: str) -> ServerPins | None:
        return self._read(lambda conn: _server_pins(conn, server), None)

    async def pinned_servers(self) -> list[PinnedServer]:
        def step(conn: sqlite3.Connection) -> list[PinnedServer]:
            rows = conn.execute(
                "SELECT s.server, s.pinned_at, s.pinned_by,"
                " (SELECT count(*) FROM openclaw_mcp_tool_pins t WHERE t.server = s.server)"
                " FROM openclaw_mcp_pinned_servers s ORDER BY s.server"
            ).fetchall()
            return [PinnedServer(*row) for row in rows]

        return self._read(step, [])

    # -- writes (one BEGIN IMMEDIATE transaction each)

    def _write(self, step: Callable[[sqlite3.Connection, int], _T]) -> _T:
        try:
            conn = self._writer.connect()
        except (sqlite3.Error, OSError) as exc:
            raise _failure(exc) from exc
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = step(conn, self._clock.now_ms())
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            return result
        except sqlite3.Error as exc:
            raise _failure(exc) from exc
        finally:
            conn.close()

    @staticmethod
    def _upsert(
        conn: sqlite3.Connection, server: str, tools: Mapping[str, Mapping[str, Any]], now: int, by: str
    ) -> None:
        for name, definition in tools.items():
            conn.execute(
                "INSERT INTO openclaw_mcp_tool_pins (server, tool, fingerprint, definition_json, pinned_at, pinned_by)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (server, tool) DO UPDATE SET"
                " fingerprint = excluded.fingerprint, definition_json = excluded.definition_json,"
                " pinned_at = excluded.pinned_at, pinned_by = excluded.pinned_by",
                (server, name, tool_fingerprint(definition), canonical_json(dict(definition)), now, by),
            )

    async def pin_server(self, server: str, tools: Mapping[str, Mapping[str, Any]], *, by: str) -> ServerPins:
        def step(conn: sqlite3.Connection, now: int) -> ServerPins:
            conn.execute("DELETE FROM openclaw_mcp_tool_pins WHERE server = ?", (server,))
            conn.execute(
                "INSERT INTO openclaw_mcp_pinned_servers (server, pinned_at, pinned_by) VALUES (?, ?, ?)"
                " ON CONFLICT (server) DO UPDATE SET pinned_at = excluded.pinned_at, pinned_by = excluded.pinned_by",
                (server, now, by),
            )
            self._upsert(conn, server, tools, now, by)
            pins = _server_pins(conn, server)
            assert pins is not None
            return pins

        return self._write(step)

    async def update_pins(
        self,
        server: str,
        upserts: Mapping[str, Mapping[str, Any]],
        deletes: frozenset[str] = frozenset(),
        *,
        by: str,
    ) -> ServerPins:
        def step(conn: sqlite3.Connection, now: int) -> ServerPins:
            if _server_pins(conn, server) is None:
                raise ToolPinStoreError(f'MCP server "{server}" is not pinned')
            for name in sorted(deletes):
                conn.execute("DELETE FROM openclaw_mcp_tool_pins WHERE server = ? AND tool = ?", (server, name))
            self._upsert(conn, server, upserts, now, by)
            pins = _server_pins(conn, server)
            assert pins is not None
            return pins

        return self._write(step)

    async def unpin_server(self, server: str) -> bool:
        if not is_file(self._db_path):
            return False

        def step(conn: sqlite3.Connection, now: int) -> bool:
            conn.execute("DELETE FROM openclaw_mcp_tool_pins WHERE server = ?", (server,))
            return conn.execute("DELETE FROM openclaw_mcp_pinned_servers WHERE server = ?", (server,)).rowcount > 0

        return self._write(step)


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.tool_pins import ToolPinStore

    _: ToolPinStore = SqliteToolPinStore("")
