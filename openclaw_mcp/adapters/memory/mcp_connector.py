"""In-process MCP connections: each connect runs an SDK server object over the SDK's in-memory streams.

``InMemoryMcpConnector`` is held to the ``McpConnector`` contract suite like the stdio adapter. Every
``connect`` starts a fresh ``Server.run`` (the SDK low-level server, or the one inside an ``MCPServer``) over
``create_client_server_memory_streams`` and drives it with the SDK client session the stdio and HTTP
connectors use too (``adapters.mcp_sdk``). ``disconnect(name)`` ends the running servers of one name, which
the connections observe as their transport closing (what a server process exiting looks like to the runtime).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import anyio
import anyio.abc
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import SessionMessage

from openclaw_mcp.adapters.mcp_sdk.context import ConnectionContext, ConnectRequest, SdkMcpConnector
from openclaw_mcp.adapters.mcp_sdk.errors import CONNECTION_CLOSED_MESSAGE, connect_timeout_error
from openclaw_mcp.adapters.mcp_sdk.session import CONNECT_TIMEOUT_DISPOSE_CAP_MS, SdkMcpConnection
from openclaw_mcp.application.ports.mcp import (
    ElicitationHandler,
    McpConnectError,
    McpConnection,
    McpConnector,
    McpError,
)

if TYPE_CHECKING:
    from mcp.client._transport import ReadStream, WriteStream

__all__ = ["InMemoryMcpConnector", "InProcessServer"]

InProcessServer = Server[Any] | MCPServer[Any]

# Seconds an in-process server gets to finish after its input ends before it is cancelled.
SERVER_SHUTDOWN_GRACE_S: Final = 2.0


def _lowlevel(server: InProcessServer) -> Server[Any]:
    if isinstance(server, MCPServer):
        # The SDK's own in-memory transport unwraps an MCPServer the same way.
        lowlevel: Server[Any] = server._lowlevel_server
        return lowlevel
    return server


class InMemoryMcpConnector(SdkMcpConnector):
    """Connects to SDK server objects in this process, by server name."""

    def __init__(
        self, servers: Mapping[str, InProcessServer], *, elicitation: ElicitationHandler | None = None
    ) -> None:
        self._servers = dict(servers)
        self.elicitation = elicitation
        self._live: dict[str, set[_InMemoryConnection]] = {}
        self._connects: dict[str, int] = {}

    def _context(self, request: ConnectRequest) -> _InMemoryConnection:
        return _InMemoryConnection(self, request)

    def disconnect(self, server_name: str) -> int:
        """End every running server of ``server_name`` (its connections see the transport close).

        Synchronous, so a server's own tool handler may call it. Returns how many servers were ended.
        """
        live = list(self._live.get(server_name, ()))
        for connection in live:
            connection.stop_server()
        return len(live)

    def connect_count(self, server_name: str) -> int:
        """How many times ``connect`` was entered for ``server_name``."""
        return self._connects.get(server_name, 0)

    def live_count(self, server_name: str) -> int:
        """How many servers of ``server_name`` are running now."""
        return len(self._live.get(server_name, ()))

    def _register(self, server_name: str, connection: _InMemoryConnection) -> None:
        self._connects[server_name] = self._connects.get(server_name, 0) + 1
        self._live.setdefault(server_name, set()).add(connection)

    def _unregister(self, server_name: str, connection: _InMemoryConnection) -> None:
        live = self._live.get(server_name)
        if live is not None:
            live.discard(connection)
            if not live:
                del self._live[server_name]


class _InMemoryConnection(ConnectionContext):
    """The async context manager of one in-process connection."""

    _already_started_message = "in-memory transport already started or closed"

    def __init__(self, connector: InMemoryMcpConnector, request: ConnectRequest) -> None:
        super().__init__(request)
        self._connector = connector
        self._core = SdkMcpConnection(
            request.server_name,
            on_event=request.on_event,
            log=request.log,
            elicitation=request.elicitation,
            ui_extension=request.config.ui_extension,
        )
        self._server_scope = anyio.CancelScope()
        self._server_done = anyio.Event()

    def stop_server(self) -> None:
        self._core.set_close_reason("in-memory server stopped")
        self._server_scope.cancel()

    async def _run(self, *, task_status: anyio.abc.TaskStatus[McpConnection]) -> None:
        timeout_ms = self._config.connection_timeout_ms
        deadline = anyio.current_time() + timeout_ms / 1000
        server = self._connector._servers.get(self._server_name)
        if server is None:
            raise McpConnectError(CONNECTION_CLOSED_MESSAGE) from LookupError(
                f"no in-memory MCP server named {self._server_name!r}"
            )
        self._connector._register(self._server_name, self)
        failure: McpError | None = None
        try:
            async with (
                create_client_server_memory_streams() as (client_streams, server_streams),
                anyio.create_task_group() as task_group,
            ):
                task_group.start_soon(self._run_server, _lowlevel(server), *server_streams)
                grace_s = SERVER_SHUTDOWN_GRACE_S
                try:
                    await self._core.start(*client_streams)
                    if await self._core.initialize_before(deadline):
                        task_status.started(self._core)
                        await self._stop_requested.wait()
                    else:
                        grace_s = min(timeout_ms, CONNECT_TIMEOUT_DISPOSE_CAP_MS) / 1000
                        failure = connect_timeout_error(timeout_ms)
                except McpError as exc:
                    failure = exc  # raised outside the task group, not as an exception group
                finally:
                    self._core.begin_close()
                    # Stopping the session closes the client's write stream: the server reads EOF.
                    await self._core.stop()
                    with anyio.move_on_after(grace_s, shield=True):
                        await self._server_done.wait()
                    self.stop_server()
        finally:
            self._connector._unregister(self._server_name, self)
        if failure is not None:
            raise failure

    async def _run_server(
        self,
        server: Server[Any],
        read_stream: ReadStream[SessionMessage | Exception],
        write_stream: WriteStream[SessionMessage],
    ) -> None:
        reason = "in-memory server stopped"
        try:
            with self._server_scope:
                await server.run(read_stream, write_stream, server.create_initialization_options())
        except Exception as exc:  # a crashing in-process server is a transport close, like a crashing process
            reason = f"in-memory server failed: {exc!r}"
        finally:
            self._core.set_close_reason(reason)
            await write_stream.aclose()
            await read_stream.aclose()
            self._server_done.set()


if TYPE_CHECKING:
    _connector: McpConnector = InMemoryMcpConnector({})
