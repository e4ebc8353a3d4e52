"""SQLite adapters over the OpenClaw state database (``<state>/state/openclaw.sqlite``)."""

from openclaw_mcp.adapters.sqlite.oauth_status import SqliteOAuthStatusReader

__all__ = ["SqliteOAuthStatusReader"]
