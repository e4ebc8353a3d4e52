"""After a config write, servers the Claw lifecycle tracks become independently owned (spec cli-registry
§1.5.8): ``claw_mcp_server_refs.independent_owner = 1``. Only an existing database with that table is
touched; anything going wrong is ignored, as in the reference."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openclaw_mcp.adapters.sqlite._files import is_file

__all__ = ["SqliteServerRefs"]


class SqliteServerRefs:
    def __init__(self, db_path: str) -> None:
        self._db_path = db_path

    async def mark_independent(self, name: str, now_ms: int) -> None:
        if not is_file(self._db_path):
            return
        import sqlite3  # deferred: most writes happen without a state database

        try:
            with sqlite3.connect(self._db_path, timeout=5.0) as conn:
                conn.execute(
                    "UPDATE claw_mcp_server_refs SET independent_owner = 1, updated_at_ms = ? "
                    "WHERE name = ? AND independent_owner != 1",
                    (now_ms, name),
                )
            conn.close()
        except sqlite3.Error:
            return


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.config import ServerRefs

    _: ServerRefs = SqliteServerRefs("")
