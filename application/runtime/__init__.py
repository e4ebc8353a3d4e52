"""The MCP client session runtime (spec client-runtime §4): server runtimes, the combined session runtime,
bounded pagination, catalog caching and invalidation, failure cooldown, recycling, dispose, and the
process-wide manager. Everything reaches servers through the ``McpConnector`` port."""

from application.runtime.errors import (
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
from application.runtime.manager import SessionRuntimeManager, resolve_idle_ttl_ms
from application.runtime.server_runtime import ServerRuntime
from application.runtime.services import (
    FailureBackoff,
    RuntimeServices,
    RuntimeTuning,
    ServerSpec,
    TaskHost,
    WarningDedupe,
)
from application.runtime.session_config import SessionConfig, config_fingerprint
from application.runtime.session_runtime import SessionRuntime

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
