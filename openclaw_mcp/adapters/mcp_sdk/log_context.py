"""The MCP server the current task works for, as library log records need it.

The SDK, httpx and anyio log through :mod:`logging` from tasks our connectors start; those records do not
say which server they concern. ``ConnectionContext`` sets :data:`SERVER_NAME` around starting a connection's
task, so that task and every task it starts (contexts are copied at task creation) carry the name; the CLI's
log handler (``entrypoints.logging_setup``) reads it when a record is emitted. Standard library only: the
handler imports this module without loading the SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["SERVER_NAME", "current_server_name", "server_context"]

SERVER_NAME: ContextVar[str | None] = ContextVar("openclaw_mcp_server_name", default=None)


def current_server_name() -> str | None:
    """The configured name of the server the current task connects to, or ``None`` outside a connection."""
    return SERVER_NAME.get()


@contextmanager
def server_context(server_name: str) -> Iterator[None]:
    """:data:`SERVER_NAME` is ``server_name`` inside the block (and in tasks started inside it)."""
    token = SERVER_NAME.set(server_name)
    try:
        yield
    finally:
        SERVER_NAME.reset(token)
