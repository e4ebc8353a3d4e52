"""The channel bridge: readiness, the nine tools, waiters, approvals and Claude channel notifications
(spec serve-bridge §1.2, §1.3, §2, §5–§8, §10, §11).

upstream: ``channel-bridge.ts`` ``OpenClawChannelBridge``, ``channel-tools.ts`` (the tools and their handlers).

The pure rules live in :mod:`domain.bridge`; this module wires them to the Gateway port, the MCP notifier
port, the clock and anyio:

* **Readiness** — Gateway-backed tools wait for the first readiness (``hello-ok`` + ``sessions.subscribe``);
  a failed start fails them with the start error; after :meth:`ChannelBridge.close` they fail with
  ``Gateway client is not ready``. After the first readiness nothing waits again: the connection itself
  fails requests with ``gateway not connected`` during outages (decision S1).
* **Events** — the Gateway port delivers events in arrival order to :meth:`ChannelBridge.handle_gateway_event`,
  which runs the domain synchronously (so a permission claim happens before any await, decision S2) and hands
  notifications, in event order, to one writer task (decision S4). A failed notification is logged and, for
  a permission reply, the claim is restored (§8.6); it never breaks the bridge (§11.1). While
  ``channel_open()`` is false (an MCP connection of the 2026-07-28 era, protocol-eras §4.4, D-PE14) events are
  only queued: no Claude channel notification is written, permission requests are ignored and owner replies
  stay ordinary messages.
* **Waiters** — ``events_wait`` registers a domain waiter and sleeps on an ``anyio.Event`` until an enqueue,
  its timeout, its cancellation or close settles it (§6.6).
* **Sweeper** — one task runs while the domain's ``sweeper_active`` flag is raised (§7.4).
* **Tools** — the handlers of the nine tools; their one table (name, description, declared arguments, the
  parse, the handler) is :data:`application.bridge.tools.TOOLS`. A call's first Gateway request can be put
  on the wire before its task starts (:meth:`ChannelBridge.send_first_request`).

Usage::

    bridge = ChannelBridge(gateway=..., resolve_settings=..., notifier=..., clock=..., write_line=...)
    async with anyio.create_task_group() as tg:
        await tg.start(bridge.run)
        await bridge.wait_started()      # raises the start error
        ...
        await bridge.close()
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar, cast

import anyio
import anyio.abc

from openclaw_mcp.application.bridge.errors import GatewayClientNotReady, NotificationError, ToolError
from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.bridge import LineWriter, McpNotifier, SettingsResolver
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.gateway import Gateway, GatewayConnection, GatewayError, GatewayEvent
from openclaw_mcp.domain.bridge.approvals import (
    PENDING_SWEEP_INTERVAL_MS,
    PendingPermission,
    PermissionsRespondArgs,
)
from openclaw_mcp.domain.bridge.channel import BridgeState, ClaudeChannelMode, Dispatch, Notification, PermissionRequest
from openclaw_mcp.domain.bridge.conversations import (
    EXACT_MESSAGE_LOOKUP_METHOD,
    AttachmentsFetchArgs,
    Conversation,
    ConversationArgs,
    ConversationsListArgs,
    GatewayCall,
    MessagesReadArgs,
    MessagesSendArgs,
    conversation_from_describe,
    conversations_from_list,
    find_message,
    message_from_lookup,
    messages_from_response,
    send_params,
)
from openclaw_mcp.domain.bridge.events import (
    QUEUE_LIMIT,
    EventsPollArgs,
    EventsWaitArgs,
    GatewayPayloadError,
    WaiterSettlement,
    WaitOutcome,
)
from openclaw_mcp.domain.bridge.mode import PERMISSION_REQUEST_METHOD
from openclaw_mcp.domain.bridge.texts import (
    ToolResult,
    attachments_fetch_result,
    conversation_get_result,
    conversation_not_found_for_send,
    conversations_list_result,
    events_poll_result,
    events_wait_result,
    gateway_event_error_line,
    gateway_event_failed_line,
    ignored_permission_request_line,
    messages_read_result,
    messages_send_result,
    notification_error_line,
    notification_failed_line,
    pending_permission_line,
    permissions_list_open_result,
    permissions_respond_result,
)
from openclaw_mcp.domain.gateway_url import GatewayTargetError
from openclaw_mcp.domain.mcp_eras import MODERN_VERSION

__all__ = [
    "EXACT_MESSAGE_LOOKUP_METHOD",
    "ChannelBridge",
    "FirstRequestSource",
    "Readiness",
    "SentRequest",
]

Readiness = Literal["pending", "ready", "failed", "released"]

Arguments = Mapping[str, Any]
"""Validated tool arguments, as library callers may pass them instead of the parsed value."""

_P = TypeVar("_P")


def _parsed(kind: type[_P], parse: Callable[[Arguments], _P], args: _P | Arguments) -> _P:
    """A tool's parsed arguments: as given (the MCP dispatcher parses them once), or parsed from a mapping."""
    return args if isinstance(args, kind) else parse(cast(Arguments, args))


def _new_uuid() -> str:
    return str(uuid.uuid4())


def _error_text(error: BaseException) -> str:
    """JavaScript ``String(error)`` for the verbose diagnostic lines."""
    if isinstance(error, GatewayPayloadError):
        return error.js_text
    message = str(error)
    return f"Error: {message}" if message else "Error"


class FirstRequestSource(Protocol):
    """What :meth:`ChannelBridge.send_first_request` needs of a tool (``application.bridge.tools.BridgeTool``)."""

    @property
    def parse(self) -> Callable[[Mapping[str, Any]], Any]: ...

    @property
    def first_request(self) -> Callable[[Any, bool], GatewayCall | None] | None: ...


@dataclass(frozen=True, slots=True)
class SentRequest:
    """The first Gateway request of a tool call, already on its way (see ``send_first_request``)."""

    method: str
    answer: Callable[[], Awaitable[Any]]


@dataclass(eq=False, slots=True)
class _WaitSlot:
    """One pending ``events_wait``: set once with its outcome."""

    event: anyio.Event = field(default_factory=anyio.Event)
    outcome: WaitOutcome | None = None


class ChannelBridge:
    """The bridge of one ``openclaw mcp serve`` process (upstream ``OpenClawChannelBridge``)."""

    def __init__(
        self,
        *,
        gateway: Gateway,
        resolve_settings: SettingsResolver,
        notifier: McpNotifier,
        clock: Clock,
        write_line: LineWriter,
        client_log: LineWriter | None = None,
        mode: ClaudeChannelMode = "auto",
        verbose: bool = False,
        new_idempotency_key: Callable[[], str] = _new_uuid,
        sweep_interval_s: float = PENDING_SWEEP_INTERVAL_MS / 1000,
        queue_limit: int = QUEUE_LIMIT,
        channel_open: Callable[[], bool] = lambda: True,
    ) -> None:
        self._gateway = gateway
        self._channel_open = channel_open
        self._resolve_settings = resolve_settings
        self._notifier = notifier
        self._clock = clock
        self._write_line = write_line
        self._client_log = client_log or write_line
        self._verbose = verbose
        self._new_idempotency_key = new_idempotency_key
        self._sweep_interval_s = sweep_interval_s
        self._state = BridgeState(mode, queue_limit=queue_limit)
        self._conn: GatewayConnection | None = None
        self._closed = False
        self._readiness: Readiness = "pending"
        self._ready_event = anyio.Event()
        self._start_error: BaseException | None = None
        self._ready_scope: anyio.CancelScope | None = None
        self._exact_lookup = False
        self._slots: dict[int, _WaitSlot] = {}
        self._outbox: deque[tuple[Notification, PendingPermission | None]] = deque()
        self._outbox_wakeup = anyio.Event()
        self._tg: anyio.abc.TaskGroup | None = None
        self._sweeper: anyio.CancelScope | None = None
        self._close_requested = anyio.Event()
        self._stopped = anyio.Event()
        self._running = False
        self._close_error: BaseException | None = None

    # --- introspection ------------------------------------------------------------------------------

    @property
    def state(self) -> BridgeState:
        """The domain aggregate (queue, pending approvals and permissions)."""
        return self._state

    @property
    def readiness(self) -> Readiness:
        return self._readiness

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def sweeper_running(self) -> bool:
        """Whether the periodic sweep task is scheduled (§7.4)."""
        return self._sweeper is not None

    @property
    def pending_waiters(self) -> int:
        return len(self._slots)

    # --- lifecycle (§1.3, §2) ------------------------------------------------------------------------

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Own the Gateway connection and the background tasks until :meth:`close` (§2.1).

        Signals ``started`` at once (before connecting); the outcome of the start is observed through
        :meth:`wait_started`. Returns after :meth:`close` once the Gateway client is stopped.
        """
        self._running = True
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                tg.start_soon(self._write_notifications)
                self._reconcile_sweeper()
                task_status.started()
                await self._connect()
                tg.cancel_scope.cancel()
        finally:
            self._tg = None
            self._sweeper = None
            self._conn = None
            self._stopped.set()

    async def _connect(self) -> None:
        try:
            settings = await self._resolve_settings()
        except (ApplicationError, GatewayTargetError) as exc:
            self._fail_start(exc)
            await self._close_requested.wait()
            return
        if self._closed:
            return
        try:
            async with self._gateway.connect(
                settings, on_event=self.handle_gateway_event, log=self._client_log
            ) as conn:
                if not self._closed:
                    self._conn = conn
                    await self._wait_first_ready(conn)
                await self._close_requested.wait()
                self._conn = None
        except GatewayError as exc:
            if self._closed:
                self._close_error = exc
            else:
                self._fail_start(exc)
                await self._close_requested.wait()

    async def _wait_first_ready(self, conn: GatewayConnection) -> None:
        with anyio.CancelScope() as scope:
            self._ready_scope = scope
            try:
                hello = await conn.wait_ready()
            except GatewayError as exc:
                self._fail_start(exc)
                return
            finally:
                self._ready_scope = None
            self._exact_lookup = EXACT_MESSAGE_LOOKUP_METHOD in hello.methods
            if self._readiness == "pending":
                self._readiness = "ready"
                self._ready_event.set()

    def _fail_start(self, error: BaseException) -> None:
        if self._readiness == "pending":
            self._readiness = "failed"
            self._start_error = error
            self._ready_event.set()

    async def wait_started(self) -> None:
        """Wait until the bridge is ready (returns), its start failed (raises the start error) or it was
        closed before that (returns)."""
        await self._ready_event.wait()
        if self._readiness == "failed" and self._start_error is not None:
            raise self._start_error

    async def close(self) -> None:
        """Idempotent: release readiness, settle every waiter with no event, clear pending state, stop the
        sweeper and the Gateway client. Raises the Gateway client's stop error, if any."""
        if not self._closed:
            self._closed = True
            for settlement in self._state.close():
                self._settle(settlement)
            if self._readiness == "pending":
                self._readiness = "released"
                self._ready_event.set()
            if self._ready_scope is not None:
                self._ready_scope.cancel()
            self._stop_sweeper()
            self._conn = None
            self._close_requested.set()
        if self._running:
            await self._stopped.wait()
        if self._close_error is not None:
            error, self._close_error = self._close_error, None
            raise error

    # --- Gateway access ------------------------------------------------------------------------------

    async def _await_ready(self) -> None:
        if self._readiness == "pending":
            await self._ready_event.wait()
        if self._readiness == "failed" and self._start_error is not None:
            raise self._start_error

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        conn = self._conn
        if conn is None:
            raise GatewayClientNotReady()
        payload = await conn.request(method, params)
        return payload

    def send_first_request(self, tool: FirstRequestSource, args: object) -> SentRequest | None:
        """Put the first Gateway request of a call of ``tool`` (an entry of
        :data:`~application.bridge.tools.TOOLS`; ``args``: its parsed or validated arguments) on the wire now,
        when the bridge is ready — before the task that runs the call has started; pass the result to the tool
        as ``sent``. ``None`` when there is nothing to send now (the tool then sends it itself, with the usual
        errors)."""
        conn = self._conn
        if conn is None or self._readiness != "ready" or tool.first_request is None:
            return None
        parsed = tool.parse(args) if isinstance(args, Mapping) else args
        first = tool.first_request(parsed, self._exact_lookup)
        if first is None:
            return None
        try:
            return SentRequest(first[0], conn.send_request(*first))
        except GatewayError:
            return None

    async def _first(
        self, sent: SentRequest | None, request: Callable[[], GatewayCall], *, wait_ready: bool = True
    ) -> Any:
        """The answer to a tool's first request: sent earlier by :meth:`send_first_request`, or ``request()``
        now, after waiting for the first readiness unless ``wait_ready`` is false."""
        if sent is not None:
            return await sent.answer()
        if wait_ready:
            await self._await_ready()
        return await self._request(*request())

    async def _conversation(self, args: ConversationArgs, sent: SentRequest | None) -> Conversation | None:
        request = args.gateway_request()
        if request is None:
            return None
        return conversation_from_describe(await self._first(sent, lambda: request))

    # --- tools (§5); each takes its parsed arguments (or the validated mapping) -----------------------

    async def conversations_list(
        self, args: ConversationsListArgs | Arguments, sent: SentRequest | None = None
    ) -> ToolResult:
        parsed = _parsed(ConversationsListArgs, ConversationsListArgs.from_arguments, args)
        response = await self._first(sent, parsed.gateway_request)
        return conversations_list_result(conversations_from_list(response, parsed.channel))

    async def conversation_get(self, args: ConversationArgs | Arguments, sent: SentRequest | None = None) -> ToolResult:
        parsed = _parsed(ConversationArgs, ConversationArgs.from_arguments, args)
        return conversation_get_result(await self._conversation(parsed, sent), parsed.session_key)

    async def messages_read(self, args: MessagesReadArgs | Arguments, sent: SentRequest | None = None) -> ToolResult:
        parsed = _parsed(MessagesReadArgs, MessagesReadArgs.from_arguments, args)
        response = await self._first(sent, parsed.gateway_request)
        return messages_read_result(messages_from_response(response))

    async def attachments_fetch(
        self, args: AttachmentsFetchArgs | Arguments, sent: SentRequest | None = None
    ) -> ToolResult:
        parsed = _parsed(AttachmentsFetchArgs, AttachmentsFetchArgs.from_arguments, args)
        response = await self._first(sent, lambda: parsed.gateway_request(self._exact_lookup))
        exact = sent.method == EXACT_MESSAGE_LOOKUP_METHOD if sent is not None else self._exact_lookup
        if exact:
            message = message_from_lookup(response)
        else:
            message = find_message(messages_from_response(response), parsed.message_id)
        return attachments_fetch_result(message, parsed.message_id)

    def events_poll(self, args: EventsPollArgs | Arguments) -> ToolResult:
        parsed = _parsed(EventsPollArgs, EventsPollArgs.from_arguments, args)
        return events_poll_result(self._state.queue.poll(parsed.filter, parsed.limit))

    async def events_wait(self, args: EventsWaitArgs | Arguments) -> ToolResult:
        """Answer at once with a queued event or gap, else wait (§6.6). Cancelling the calling task releases
        the waiter (the caller sends no response)."""
        parsed = _parsed(EventsWaitArgs, EventsWaitArgs.from_arguments, args)
        now = self._clock.now_ms()
        begun = self._state.queue.begin_wait(parsed.filter, now, parsed.timeout_ms)
        if isinstance(begun, WaitOutcome):
            return events_wait_result(begun)
        slot = _WaitSlot()
        self._slots[begun.id] = slot
        try:
            if not self._closed:
                with anyio.move_on_after(max(0, begun.deadline_ms - now) / 1000):
                    await slot.event.wait()
        finally:
            self._slots.pop(begun.id, None)
            if slot.outcome is None:
                slot.outcome = self._state.queue.release(begun.id)
        return events_wait_result(slot.outcome or WaitOutcome())

    async def messages_send(self, args: MessagesSendArgs | Arguments, sent: SentRequest | None = None) -> ToolResult:
        parsed = _parsed(MessagesSendArgs, MessagesSendArgs.from_arguments, args)
        conversation = await self._conversation(parsed.conversation, sent)
        if conversation is None:
            raise ToolError(conversation_not_found_for_send(parsed.conversation.session_key))
        params = send_params(conversation, parsed.text, self._new_idempotency_key())
        return messages_send_result(await self._request("send", params))

    def permissions_list_open(self, args: object = None) -> ToolResult:
        """(The tool takes no arguments; ``args`` is ignored.)"""
        approvals = self._state.list_open_approvals(self._clock.now_ms())
        self._reconcile_sweeper()
        return permissions_list_open_result(approvals)

    async def permissions_respond(
        self, args: PermissionsRespondArgs | Arguments, sent: SentRequest | None = None
    ) -> ToolResult:
        # Not held back by the start-up: while the bridge is not ready this fails fast.
        parsed = _parsed(PermissionsRespondArgs, PermissionsRespondArgs.from_arguments, args)
        return permissions_respond_result(await self._first(sent, parsed.gateway_request, wait_ready=False))

    # --- inbound events (§6.3, §7.2, §8.3) -----------------------------------------------------------

    def handle_gateway_event(self, event: GatewayEvent) -> None:
        """The Gateway port's ``on_event``: route one event; a failure is logged and ignored (§11.2)."""
        try:
            dispatch = self._state.handle_gateway_event(
                event.event, event.payload, now_ms=self._clock.now_ms(), channel=self._channel_open()
            )
        except Exception as exc:  # §11.2: any failure while handling a Gateway event is logged, then ignored
            self._write_line(gateway_event_failed_line(event.event))
            if self._verbose:
                self._write_line(gateway_event_error_line(event.event, _error_text(exc)))
            return
        self._apply(dispatch)

    def handle_permission_request(self, params: object) -> None:
        """``notifications/claude/channel/permission_request`` (every mode): invalid params are dropped
        silently; after close nothing is tracked. Ignored while the channel is not open (a 2026-07-28
        connection, protocol-eras §4.4), with one ``--verbose`` line."""
        if not self._channel_open():
            if self._verbose:
                self._write_line(ignored_permission_request_line(PERMISSION_REQUEST_METHOD, MODERN_VERSION))
            return
        request = PermissionRequest.from_params(params)
        if request is None or self._closed:
            return
        self._apply(self._state.handle_permission_request(request, now_ms=self._clock.now_ms()))
        if self._verbose:
            self._write_line(pending_permission_line(request.request_id))

    def _apply(self, dispatch: Dispatch) -> None:
        for settlement in dispatch.settled:
            self._settle(settlement)
        if dispatch.notification is not None and not self._closed:
            self._outbox.append((dispatch.notification, dispatch.claim))
            self._outbox_wakeup.set()
        self._reconcile_sweeper()

    def _settle(self, settlement: WaiterSettlement) -> None:
        slot = self._slots.get(settlement.waiter.id)
        if slot is not None and slot.outcome is None:
            slot.outcome = settlement.outcome
            slot.event.set()

    async def _write_notifications(self) -> None:
        while True:
            if not self._outbox:
                await self._outbox_wakeup.wait()
                self._outbox_wakeup = anyio.Event()
                continue
            notification, claim = self._outbox.popleft()
            if self._closed or not self._channel_open():  # queued before the connection's era was known
                continue
            try:
                await self._notifier.notify(notification.method, notification.params)
            except NotificationError as exc:
                if self._closed:
                    continue
                self._write_line(notification_failed_line(notification.method))
                if self._verbose:
                    self._write_line(notification_error_line(notification.method, _error_text(exc)))
                if claim is not None:
                    self._state.permission_notification_failed(claim)
                    self._reconcile_sweeper()

    # --- sweeper (§7.4) ------------------------------------------------------------------------------

    def _reconcile_sweeper(self) -> None:
        active = self._state.pending.sweeper_active
        if active and self._sweeper is None and self._tg is not None and not self._closed:
            scope = anyio.CancelScope()
            self._sweeper = scope
            self._tg.start_soon(self._sweep_loop, scope)
        elif not active:
            self._stop_sweeper()

    def _stop_sweeper(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None

    async def _sweep_loop(self, scope: anyio.CancelScope) -> None:
        with scope:
            while True:
                await anyio.sleep(self._sweep_interval_s)
                self._state.sweep(self._clock.now_ms())
                if not self._state.pending.sweeper_active:
                    break
        if self._sweeper is scope:
            self._sweeper = None
