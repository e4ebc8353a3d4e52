"""The MCP methods of ``openclaw mcp serve``: JSON-RPC routing, the bridge's tools and notifications (spec
serve-bridge §4), over a :class:`~entrypoints.serve.transport.StdioTransport`.

A small hand-written dispatcher rather than the MCP SDK: it must reproduce the reference SDK's wire behaviour
byte for byte (key orders, ``experimental`` capabilities, ``-32601`` for every other method, tool results with
``structuredContent``, zod issue texts, custom ``notifications/claude/channel*`` methods, no answer for a
cancelled request) and start cheaply (no pydantic import before ``initialize`` is answered).

* The protocol era (spec protocol-eras §4) is :class:`RpcSession`'s: on a 2026-07-28 connection it answers
  ``server/discover`` and reshapes what :meth:`McpDispatcher._respond_now` answers; the bridge asks
  :meth:`McpDispatcher.channel_open` before writing a Claude channel notification (D-PE14).
* Requests answered without waiting are written from the read loop itself; tool calls that wait run
  concurrently, each in its own cancel scope; ``notifications/cancelled`` cancels the scope and suppresses the
  answer (and releases an ``events_wait`` waiter).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import anyio
import anyio.abc

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.telemetry import NO_TELEMETRY, Telemetry
from openclaw_mcp.domain.bridge.mode import PERMISSION_REQUEST_METHOD, ClaudeChannelMode, experimental_capabilities
from openclaw_mcp.domain.mcp_eras import MODERN_VERSION
from openclaw_mcp.entrypoints.rpc_session import (
    LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    InvalidParams,
    Pending,
    RpcSession,
    negotiate_protocol_version,
    require_string,
    task_refusal,
)
from openclaw_mcp.entrypoints.serve.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Notification,
    Request,
    error_response,
    notification_message,
    result_response,
)
from openclaw_mcp.entrypoints.serve.transport import StdioTransport, TransportClosed

if TYPE_CHECKING:
    from openclaw_mcp.application.bridge.service import ChannelBridge, SentRequest
    from openclaw_mcp.application.bridge.tools import BridgeTool
    from openclaw_mcp.domain.bridge.texts import ToolResult

# The bridge (application.bridge.service, domain.bridge.*) and its tool table are imported on the first message
# that needs them, not before ``initialize`` is answered.

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "SERVER_INFO",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "McpDispatcher",
    "server_capabilities",
]

SERVER_INFO: Final = {"name": "openclaw", "version": "2026.9.6"}


def server_capabilities(mode: ClaudeChannelMode) -> dict[str, Any]:
    """``experimental`` Claude channel entries unless mode ``off``, then ``tools.listChanged``."""
    capabilities: dict[str, Any] = {}
    experimental = experimental_capabilities(mode)
    if experimental is not None:
        capabilities["experimental"] = experimental
    capabilities["tools"] = {"listChanged": True}
    return capabilities


# --- the dispatcher ----------------------------------------------------------------------------------------


class McpDispatcher:
    """One MCP session over a :class:`StdioTransport`; tools are served by the :class:`ChannelBridge` that
    ``bridge`` builds, called once, by the first message that needs it or by :meth:`bridge`. Also the
    bridge's :class:`~application.ports.bridge.McpNotifier`. The read loop, in-flight calls, cancellation and
    the draining close are :class:`~entrypoints.rpc_session.RpcSession`'s; only ``events_wait`` reacts to
    cancellation (its waiter is released), other calls run to the end and their answers are discarded, as in
    the reference (a cancelled ``messages_send`` may still send)."""

    def __init__(
        self,
        transport: StdioTransport,
        *,
        mode: ClaudeChannelMode,
        bridge: Callable[[], ChannelBridge] | None = None,
        telemetry: Telemetry = NO_TELEMETRY,
    ) -> None:
        self._mode: ClaudeChannelMode = mode
        self._provide_bridge = bridge
        self._bridge: ChannelBridge | None = None
        self._session = RpcSession(
            transport,
            self._respond,
            on_notification=self._handle_notification,
            server_info=SERVER_INFO,
            telemetry=telemetry,
        )

    async def wait_first_input(self) -> None:
        """Return once the first input line has been handled (a request answered without waiting is
        written by then) or the input has ended."""
        await self._session.wait_first_input()

    def bridge(self) -> ChannelBridge | None:
        """The bridge, built now unless built already (``None``: the dispatcher has none)."""
        if self._bridge is None and self._provide_bridge is not None:
            self._bridge = self._provide_bridge()
        return self._bridge

    def channel_open(self) -> bool:
        """Whether the connection carries the Claude channel: not once it serves the 2026-07-28 era (D-PE14: no
        unsolicited notifications, ``…/permission_request`` ignored); the bridge asks at each event."""
        return self._session.era != MODERN_VERSION

    @property
    def built_bridge(self) -> ChannelBridge | None:
        """The bridge if built, without building it."""
        return self._bridge

    # --- lifecycle ---------------------------------------------------------------------------------

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Read and serve until :meth:`close`; started as soon as input is being read."""
        await self._session.run(task_status=task_status)

    async def close(self) -> None:
        """Stop reading; let in-flight requests finish (at most 2 s, answers still written), then cancel the
        rest without answering them."""
        await self._session.close()

    # --- input -------------------------------------------------------------------------------------

    def _handle_notification(self, message: Notification) -> None:
        if message.method == PERMISSION_REQUEST_METHOD:
            bridge = self.bridge()
            if bridge is not None:
                bridge.handle_permission_request(message.params)

    def _respond(self, request: Request) -> dict[str, Any] | Pending:
        response = self._respond_now(request)
        if not isinstance(response, _ToolCall):
            return response
        # The call's first Gateway request goes out now, while its task is still to start.
        call = response
        sent = call.bridge.send_first_request(call.tool, call.args)

        async def run() -> dict[str, Any]:
            return result_response(request.id, (await call.run(sent)).to_json())

        return Pending(run, abortable=call.tool.abortable)

    # --- output ------------------------------------------------------------------------------------

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        """:class:`~application.ports.bridge.McpNotifier`: one ``{"method", "params", "jsonrpc"}`` line."""
        try:
            await self._session.send(notification_message(method, params))
        except TransportClosed as exc:
            from openclaw_mcp.application.bridge.errors import NotificationError

            raise NotificationError(str(exc)) from exc

    # --- requests ----------------------------------------------------------------------------------

    def _respond_now(self, request: Request) -> dict[str, Any] | _ToolCall:
        """The response when it needs no waiting; else the tool call that awaits the Gateway or the event
        queue."""
        method, params = request.method, request.params
        if method not in ("initialize", "ping", "tools/list", "tools/call"):
            return error_response(request.id, METHOD_NOT_FOUND, "Method not found")
        refusal = task_refusal(request)
        if refusal is not None:
            return refusal
        try:
            if method == "initialize":
                return result_response(request.id, self._initialize(params))
            if method == "ping":
                return result_response(request.id, {})
            if method == "tools/list":
                from openclaw_mcp.entrypoints.serve.tools import tools_list_result

                require_string(params, "cursor", optional=True)
                return result_response(request.id, tools_list_result())
            call = self._prepare_call(params)
        except InvalidParams as exc:
            return error_response(request.id, INVALID_PARAMS, str(exc))
        if not isinstance(call, _ToolCall):
            return result_response(request.id, call.to_json())
        if call.tool.now is not None:  # answered from the bridge's own state, without waiting
            return result_response(request.id, call.run_now().to_json())
        return call

    def _initialize(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        return {
            "protocolVersion": negotiate_protocol_version(params),
            "capabilities": server_capabilities(self._mode),
            "serverInfo": dict(SERVER_INFO),
        }

    def _prepare_call(self, params: Mapping[str, Any] | None) -> ToolResult | _ToolCall:
        """Check a ``tools/call``: the error result for an unknown tool, invalid arguments or a bridge that
        is not bound yet, else what to invoke (with the arguments parsed, once). Raises ``InvalidParams`` for
        malformed params."""
        from openclaw_mcp.application.bridge.tools import TOOLS_BY_NAME
        from openclaw_mcp.domain.bridge.arguments import ValidationFailed
        from openclaw_mcp.domain.bridge.texts import error_result
        from openclaw_mcp.entrypoints.serve.tools import invalid_arguments_text, unknown_tool_text

        require_string(params, "name")
        assert params is not None
        if "arguments" in params and not isinstance(params["arguments"], dict):
            raise InvalidParams("Invalid params: arguments must be an object")
        name: str = params["name"]
        tool = TOOLS_BY_NAME.get(name)
        if tool is None:
            return error_result(unknown_tool_text(name))
        try:
            args = tool.arguments(params["arguments"]) if "arguments" in params else tool.arguments()
        except ValidationFailed as exc:
            return error_result(invalid_arguments_text(name, str(exc)))
        bridge = self.bridge()
        if bridge is None:
            return error_result("Gateway client is not ready")
        return _ToolCall(tool, args, bridge)


def _failure_result(exc: Exception) -> ToolResult:
    from openclaw_mcp.domain.bridge.texts import error_result

    if isinstance(exc, ApplicationError):
        return error_result(str(exc))
    return error_result(str(exc) or type(exc).__name__)  # the SDK turns any handler failure into an isError result


@dataclass(frozen=True, slots=True)
class _ToolCall:
    """A validated call of one of the bridge's tools (``args``: parsed); a failure of the handler is an
    ``isError`` result."""

    tool: BridgeTool
    args: Any
    bridge: ChannelBridge

    def run_now(self) -> ToolResult:
        assert self.tool.now is not None
        try:
            return self.tool.now(self.bridge, self.args)
        except Exception as exc:
            return _failure_result(exc)

    async def run(self, sent: SentRequest | None) -> ToolResult:
        """``sent``: the call's first Gateway request, when that was sent before the call's task started."""
        assert self.tool.call is not None
        try:
            return await self.tool.call(self.bridge, self.args, sent)
        except Exception as exc:
            return _failure_result(exc)
