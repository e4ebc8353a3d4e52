"""The MCP client session runtime (spec client-runtime §4): server runtimes, the combined session runtime,
bounded pagination, catalog caching and invalidation, failure cooldown, recycling, dispose, and the
process-wide manager. Everything reaches servers through the ``McpConnector`` port."""

from openclaw_mcp.application.runtime.errors import (
    CleanupUnconfirmed,
    ConnectTimedOut,
    InvalidListResult,
    LiveRuntimeLimitReached,
    LocalRequestTimeout,
    McpRuntimeError,
    PaginationError,
    RuntimeDisposed,
    ServerNotConnected,
    ServerPaused,
    ServerRetiring,
    ToolResultInvalid,
)
from openclaw_mcp.application.runtime.manager import SessionRuntimeManager, resolve_idle_ttl_ms
from openclaw_mcp.application.runtime.server_runtime import ServerRuntime
from openclaw_mcp.application.runtime.services import (
    FailureBackoff,
    RuntimeServices,
    RuntimeTuning,
    ServerSpec,
    TaskHost,
    WarningDedupe,
)
from openclaw_mcp.application.runtime.session_config import SessionConfig, config_fingerprint
from openclaw_mcp.application.runtime.session_runtime import SessionRuntime

__all__ = [
    "CleanupUnconfirmed",
    "ConnectTimedOut",
    "FailureBackoff",
    "InvalidListResult",
    "LiveRuntimeLimitReached",
    "LocalRequestTimeout",
    "McpRuntimeError",
    "PaginationError",
    "RuntimeDisposed",
    "RuntimeServices",
    "RuntimeTuning",
    "ServerNotConnected",
    "ServerPaused",
    "ServerRetiring",
    "ServerRuntime",
    "ServerSpec",
    "SessionConfig",
    "SessionRuntime",
    "SessionRuntimeManager",
    "TaskHost",
    "ToolResultInvalid",
    "WarningDedupe",
    "config_fingerprint",
    "resolve_idle_ttl_ms",
]
