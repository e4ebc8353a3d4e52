"""The connect side every SDK-backed connector shares: ``SdkMcpConnector.connect`` hands the call over as a
``ConnectRequest`` to the connector's ``ConnectionContext`` (an async context manager, one use each)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

import anyio
import anyio.abc

from openclaw_mcp.adapters.mcp_sdk.log_context import server_context
from openclaw_mcp.application.held_task_group import HeldTaskGroup
from openclaw_mcp.application.ports.mcp import ElicitationHandler, McpCleanupError, McpConnection, McpEvent
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig

__all__ = ["ConnectRequest", "ConnectionContext", "SdkMcpConnector"]


@dataclass(frozen=True, slots=True)
class ConnectRequest:
    """One ``McpConnector.connect`` call: the server, its config and the caller's callbacks."""

    server_name: str
    config: StdioConfig | HttpConfig
    on_event: Callable[[McpEvent], None]
    log: Callable[[str], None]
    elicitation: ElicitationHandler | None = None


class ConnectionContext:
    """What ``McpConnector.connect`` returns: entering opens the connection, exiting closes it.

    The connection lives in a task of its own (``_run``), started in a task group that the context enters
    and exits, so every cancel scope and task group of the transport and the SDK session is entered and
    left inside that one task, whatever the caller does between entering and exiting. ``_run`` opens the
    transport, calls ``task_status.started(connection)``, waits until the stop is requested
    (``_stop_requested``, or whatever ``_request_stop`` signals) and tears down, recording a failed
    closure in ``_cleanup_error``; a cancellation of the caller during enter or exit reaches ``_run``,
    which then tears down forcibly (unless ``_shield_teardown``: the teardown then always completes).
    """

    _already_started_message = "transport already started or closed"
    # Shield the teardown on exit from the caller's cancellation (it must be bounded by the subclass).
    _shield_teardown = False
    # Raise the cleanup error on exit even when the ``async with`` body raised (replacing its error).
    _cleanup_error_replaces_body_error = True

    def __init__(self, request: ConnectRequest) -> None:
        self._server_name = request.server_name
        self._config = request.config
        self._on_event = request.on_event
        self._log = request.log
        self._elicitation = request.elicitation
        self._tasks = HeldTaskGroup()
        self._entered = False
        self._stop_requested = anyio.Event()
        self._cleanup_error: McpCleanupError | None = None

    async def __aenter__(self) -> McpConnection:
        if self._entered:
            raise RuntimeError(self._already_started_message)
        self._entered = True
        task_group = await self._tasks.open()
        try:
            with server_context(self._server_name):  # library log records of the connection's tasks name it
                connection: McpConnection = await task_group.start(self._run)
        except BaseException:
            self._request_stop()
            await self._tasks.close(cancel=False)
            raise
        return connection

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        if self._tasks.group is None:
            return
        self._request_stop()
        # Not cancelled and not handed the caller's exception: ``_run`` tears down by itself.
        await self._tasks.close(cancel=False, shield=self._shield_teardown)
        if self._cleanup_error is not None and (exc_type is None or self._cleanup_error_replaces_body_error):
            raise self._cleanup_error

    def _request_stop(self) -> None:
        self._stop_requested.set()

    async def _run(self, *, task_status: anyio.abc.TaskStatus[McpConnection]) -> None:
        raise NotImplementedError


class SdkMcpConnector(ABC):
    """Base of the SDK-backed ``McpConnector`` s: each ``connect`` returns a fresh ``ConnectionContext``.
    ``elicitation``: the host's handler of ``elicitation/create`` for every connection (none: refused)."""

    elicitation: ElicitationHandler | None = None

    def connect(
        self,
        server_name: str,
        config: StdioConfig | HttpConfig,
        *,
        on_event: Callable[[McpEvent], None],
        log: Callable[[str], None],
    ) -> ConnectionContext:
        return self._context(ConnectRequest(server_name, config, on_event, log, self.elicitation))

    @abstractmethod
    def _context(self, request: ConnectRequest) -> ConnectionContext:
        """The (not yet entered) context of one connection."""
