"""Read-only access to the MCP OAuth store for status reporting (spec cli-registry §7.1, §7.11, §7.12).

Opens the database with ``mode=ro``: a missing file or table reads as empty and nothing is ever created.
``sqlite3`` is imported on the first query of an existing database (most CLI runs have none to read).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from openclaw_mcp.adapters.sqlite._files import is_file, read_only_uri
from openclaw_mcp.application.errors import OAuthStoreError

__all__ = ["SqliteOAuthStatusReader"]


class SqliteOAuthStatusReader:
    def __init__(self, db_path: str) -> None:
        self._db_path = db_path

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        if not is_file(self._db_path):
            return []
        import sqlite3

        try:
            with contextlib.closing(sqlite3.connect(read_only_uri(self._db_path), uri=True, timeout=5.0)) as conn:
                return conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise OAuthStoreError(f"MCP OAuth store unavailable: {exc}") from exc
        except sqlite3.Error as exc:
            raise OAuthStoreError(f"MCP OAuth store unavailable: {exc}") from exc

    async def read_store(self, store_key: str) -> dict[str, object] | None:
        rows = self._query("SELECT format_version, store_json FROM mcp_oauth_stores WHERE store_key = ?", (store_key,))
        if not rows:
            return None
        from openclaw_mcp.domain.oauth_store import StoreRowInvalid, decode_store_row  # deferred: rows are rare

        try:
            return decode_store_row(store_key, rows[0][0], rows[0][1])
        except StoreRowInvalid as exc:
            raise OAuthStoreError(str(exc)) from exc

    async def count_principals(self, prefix: str) -> int:
        rows = self._query(
            "SELECT store_key, format_version, store_json FROM mcp_oauth_stores WHERE instr(store_key, ?) = 1",
            (prefix,),
        )
        from openclaw_mcp.domain.oauth_store import StoreRowInvalid, decode_store_row

        count = 0
        for key, version, text in rows:
            try:
                store = decode_store_row(key, version, text)
            except StoreRowInvalid as exc:
                raise OAuthStoreError(str(exc)) from exc
            count += "tokens" in store
        return count


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.oauth import OAuthStatusReader

    _: OAuthStatusReader = SqliteOAuthStatusReader("")
