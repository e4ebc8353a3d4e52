"""The one table of ``openclaw mcp serve``'s nine tools (spec serve-bridge §4.3, §5; upstream
``channel-tools.ts`` ``registerChannelMcpTools``): name, description and declared arguments (what ``tools/list``
shows and ``tools/call`` validates against), the parse of validated arguments (once per call), the
:class:`~application.bridge.service.ChannelBridge` handler, and whether it answers at once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from openclaw_mcp.application.bridge.service import ChannelBridge, SentRequest
from openclaw_mcp.domain.bridge.approvals import APPROVAL_DECISIONS, APPROVAL_KINDS, PermissionsRespondArgs
from openclaw_mcp.domain.bridge.arguments import PropertySpec, boolean, integer, one_of, text, validate_arguments
from openclaw_mcp.domain.bridge.conversations import (
    AttachmentsFetchArgs,
    ConversationArgs,
    ConversationsListArgs,
    GatewayCall,
    MessagesReadArgs,
    MessagesSendArgs,
)
from openclaw_mcp.domain.bridge.events import EventsPollArgs, EventsWaitArgs
from openclaw_mcp.domain.bridge.texts import ToolResult
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = ["TOOLS", "TOOLS_BY_NAME", "BridgeTool"]

ToolCall = Callable[[ChannelBridge, Any, SentRequest | None], Awaitable[ToolResult]]
ToolNow = Callable[[ChannelBridge, Any], ToolResult]


def _no_arguments(_args: Mapping[str, Any]) -> None:
    return None


@dataclass(frozen=True, slots=True)
class BridgeTool:
    """One tool: its name, description and declared arguments (what ``tools/list`` shows and ``tools/call``
    validates against). ``parse`` turns validated arguments into the value its handler takes; the handler is
    ``call`` (awaited; ``sent``: its first Gateway request when already on the wire) or ``now`` (answered at
    once). ``first_request``: the Gateway request a call starts with, when it can be sent ahead (given the
    parsed arguments and whether the Gateway offers the exact message lookup). ``abortable``: cancelled
    outright by ``notifications/cancelled`` (else it runs on and only its answer is dropped).

    What the MCP dispatcher does for ``tools/call``::

        tool = TOOLS_BY_NAME[name]
        args = tool.arguments(raw)                   # ValidationFailed: the zod issues
        if tool.now is not None:
            result = tool.now(bridge, args)
        else:
            sent = bridge.send_first_request(tool, args)
            result = await tool.call(bridge, args, sent)
    """

    name: str
    description: str
    properties: tuple[PropertySpec, ...]
    parse: Callable[[Mapping[str, Any]], Any]
    call: ToolCall | None = None
    now: ToolNow | None = None
    first_request: Callable[[Any, bool], GatewayCall | None] | None = None
    abortable: bool = False

    def arguments(self, raw: object = UNDEFINED) -> Any:
        """The parsed value of a call's ``arguments`` (``UNDEFINED``: the request had none). Raises
        :class:`~domain.bridge.arguments.ValidationFailed` with every zod issue."""
        return self.parse(validate_arguments(self, raw))


_SESSION_KEY = text("session_key", required=True, min_length=1)

TOOLS: Final[tuple[BridgeTool, ...]] = (
    BridgeTool(
        "conversations_list",
        "List OpenClaw channel-backed conversations available through session routes.",
        (
            integer("limit", 1, 500),
            text("search"),
            text("channel"),
            boolean("includeDerivedTitles"),
            boolean("includeLastMessage"),
        ),
        ConversationsListArgs.from_arguments,
        call=ChannelBridge.conversations_list,
        first_request=lambda args, _exact: args.gateway_request(),
    ),
    BridgeTool(
        "conversation_get",
        "Get one OpenClaw conversation by session key.",
        (_SESSION_KEY,),
        ConversationArgs.from_arguments,
        call=ChannelBridge.conversation_get,
        first_request=lambda args, _exact: args.gateway_request(),
    ),
    BridgeTool(
        "messages_read",
        "Read recent messages for one OpenClaw conversation.",
        (_SESSION_KEY, integer("limit", 1, 200)),
        MessagesReadArgs.from_arguments,
        call=ChannelBridge.messages_read,
        first_request=lambda args, _exact: args.gateway_request(),
    ),
    BridgeTool(
        "attachments_fetch",
        "List non-text attachments for a message in one OpenClaw conversation.",
        (_SESSION_KEY, text("message_id", required=True, min_length=1), integer("limit", 1, 200)),
        AttachmentsFetchArgs.from_arguments,
        call=ChannelBridge.attachments_fetch,
        first_request=lambda args, exact: args.gateway_request(exact),
    ),
    BridgeTool(
        "events_poll",
        "Poll queued OpenClaw conversation events since a cursor.",
        (integer("after_cursor", 0), text("session_key"), integer("limit", 1, 200)),
        EventsPollArgs.from_arguments,
        now=ChannelBridge.events_poll,
    ),
    BridgeTool(
        "events_wait",
        "Wait for the next queued OpenClaw conversation event.",
        (integer("after_cursor", 0), text("session_key"), integer("timeout_ms", 1, 300_000)),
        EventsWaitArgs.from_arguments,
        call=lambda bridge, args, _sent: bridge.events_wait(args),
        abortable=True,  # the waiter is released (§6.6)
    ),
    BridgeTool(
        "messages_send",
        "Send a message back through the same OpenClaw conversation route.",
        (_SESSION_KEY, text("text", required=True, min_length=1)),
        MessagesSendArgs.from_arguments,
        call=ChannelBridge.messages_send,
        first_request=lambda args, _exact: args.gateway_request(),
    ),
    BridgeTool(
        "permissions_list_open",
        "List open OpenClaw exec or plugin approval requests visible through the Gateway.",
        (),
        _no_arguments,
        now=ChannelBridge.permissions_list_open,
    ),
    BridgeTool(
        "permissions_respond",
        "Allow or deny one pending OpenClaw exec or plugin approval request.",
        (
            one_of("kind", APPROVAL_KINDS),
            text("id", required=True, min_length=1),
            one_of("decision", APPROVAL_DECISIONS),
        ),
        PermissionsRespondArgs.from_arguments,
        call=ChannelBridge.permissions_respond,
        first_request=lambda args, _exact: args.gateway_request(),
    ),
)

TOOLS_BY_NAME: Final[Mapping[str, BridgeTool]] = {tool.name: tool for tool in TOOLS}
