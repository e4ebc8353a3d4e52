"""Local-filesystem adapters: the OpenClaw config file, its includes, other clients' files, host files."""

from openclaw_mcp.adapters.filesystem.config_store import FileConfigStore

__all__ = ["FileConfigStore"]
