"""Local-filesystem adapters: the OpenClaw config file and the paths derived from the environment."""

from openclaw_mcp.adapters.filesystem.config_store import FileConfigStore
from openclaw_mcp.adapters.filesystem.paths import (
    resolve_config_path,
    resolve_home,
    resolve_state_db_path,
    resolve_state_dir,
)

__all__ = [
    "FileConfigStore",
    "resolve_config_path",
    "resolve_home",
    "resolve_state_db_path",
    "resolve_state_dir",
]
