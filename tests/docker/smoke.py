"""The docker smoke test of ``openclaw mcp serve`` (mirror of upstream ``test:docker:mcp-channels``, spec
gateway-protocol.md §9.7, plus ``messages_send`` and ``permissions_respond``).

One deterministic run: start the mock OpenAI Responses server, seed the ``agent:main:main`` conversation
(imessage ``+15551234567``, account ``imessage-default``, thread ``thread-42``; transcript ``msg-1`` and
``msg-attachment`` with an image attachment), start the real OpenClaw 2026.9.6 Gateway, spawn **our**
``openclaw mcp serve --claude-channel-mode on`` as a stdio child and drive it as an MCP client. Every
assertion is a named check (:data:`CHECKS`); the run ends with a JSON summary and a last line ``OK``, or
``FAILED: <check>, …`` and a non-zero exit status, after printing the Gateway log, the bridge's stderr and the
last JSON-RPC messages. Everything started is stopped by process group / pid, on success, failure and signals.

    .venv/bin/python -m tests.docker.smoke                 # host mode (needs the installed reference)
    .venv/bin/python -m tests.docker.smoke --container     # the same driver inside the smoke image

The bridge under test is ``<openclaw> mcp serve --url … --token-file … --claude-channel-mode on`` where
``<openclaw>`` is ``--openclaw`` / ``$OPENCLAW_SMOKE_OPENCLAW`` (split like a shell word list), by default this
project's ``openclaw`` next to the running Python. Exit status: 0 all checks passed, 1 a check failed, 2 the
smoke could not run (no reference install, no Docker engine, image build failed), 130/143 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
import anyio.abc

from tests.docker.gateway_harness import (
    EXEC_APPROVAL_REQUEST,
    REFERENCE_VERSION,
    SEEDED_MEDIA,
    SESSION_KEY,
    McpClient,
    McpRequestError,
    Operator,
    RealGateway,
    find_reference,
    open_mcp_client,
    ours_serve_command,
)

__all__ = [
    "CHECKS",
    "CheckFailed",
    "CheckResult",
    "Checklist",
    "main",
    "serve_command",
    "verify_approval_listed",
    "verify_approval_resolved",
    "verify_attachments_fetch",
    "verify_channel_notification",
    "verify_clean_exit",
    "verify_conversation_discovery",
    "verify_conversation_get",
    "verify_events_poll",
    "verify_initialize",
    "verify_messages_read",
    "verify_no_permission",
    "verify_permission_decision",
    "verify_route_error",
    "verify_unknown_conversation_error",
    "verify_user_event",
]

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

CHECKS: tuple[str, ...] = (
    "gateway_start",
    "gateway_owner_scopes",
    "gateway_session_seeded",
    "bridge_initialize",
    "conversation_discovery",
    "conversation_get",
    "messages_read",
    "attachments_fetch",
    "events_wait_chat_send",
    "events_poll",
    "claude_channel_notification",
    "permission_relay_non_owner",
    "permission_relay_owner_allow",
    "messages_send_route_error",
    "messages_send_unknown_conversation",
    "permissions_respond_approval",
    "bridge_clean_exit",
)
"""Every assertion of the smoke, in the order they run."""

ROUTE: dict[str, Any] = {
    "sessionKey": SESSION_KEY,
    "channel": "imessage",
    "to": "+15551234567",
    "accountId": "imessage-default",
    "threadId": "thread-42",
}
CHANNEL_META: dict[str, Any] = {
    "session_key": SESSION_KEY,
    "channel": "imessage",
    "to": "+15551234567",
    "account_id": "imessage-default",
    "thread_id": "thread-42",
}
OWNER_SCOPES = ("operator.admin", "operator.pairing", "operator.write")
CHANNEL = "notifications/claude/channel"
PERMISSION = "notifications/claude/channel/permission"
PERMISSION_REQUEST = "notifications/claude/channel/permission_request"
REQUEST_ID = "abcde"
MOCK_REPLY = "mock reply"
UNKNOWN_SESSION = "agent:main:nope"
ROUTE_ERROR = "unsupported channel: imessage"

CHECK_TIMEOUT_S = 120.0
"""Per check (upstream allows 240 s per tool call; a healthy check takes under 15 s)."""
EXIT_TIMEOUT_S = 15.0
QUIET_WINDOW_S = 1.0
INITIALIZE_PARAMS: dict[str, Any] = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"experimental": {"claude/channel": {}, "claude/channel/permission": {}}},
    "clientInfo": {"name": "openclaw-docker-smoke", "version": "1"},
}

BASE_IMAGE = "openclaw-mcp-base:bookworm"
IMAGE = "openclaw-mcp-smoke:local"
CONTAINER_TIMEOUT_S = 900.0
SMOKE_FILES = (
    "tests/__init__.py",
    "tests/docker/__init__.py",
    "tests/docker/gateway_harness.py",
    "tests/docker/seed_gateway.mjs",
    "tests/docker/smoke.py",
    "tests/fixtures/__init__.py",
    "tests/fixtures/ports.py",
)
"""What the image needs of tests/ (repository paths; the rest of the repository enters as the project wheel)."""


# --- named checks --------------------------------------------------------------------------------------


class CheckFailed(AssertionError):
    """An assertion of a check did not hold; the message says what was expected and what came."""


def expect(condition: object, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def brief(value: Any, limit: int = 300) -> str:
    """A one-line, bounded rendering of a reply for failure messages."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(slots=True)
class CheckResult:
    name: str
    status: str = "not run"
    """``pass``, ``fail`` or ``not run``."""
    seconds: float | None = None
    detail: str | None = None
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        value: dict[str, Any] = {"name": self.name, "status": self.status}
        if self.seconds is not None:
            value["seconds"] = round(self.seconds, 2)
        if self.detail:
            value["detail"] = self.detail
        if self.error:
            value["error"] = self.error
        return value


class Checklist:
    """The named checks of one run: each passes, fails (with a message naming it) or is not run."""

    def __init__(self, names: Sequence[str] = CHECKS, out: TextIO | None = None) -> None:
        self.results = {name: CheckResult(name) for name in names}
        self._out = out

    def _print(self, line: str) -> None:
        print(line, file=self._out or sys.stdout, flush=True)

    def passed(self, name: str) -> bool:
        return self.results[name].status == "pass"

    def record(
        self, name: str, *, error: str | None = None, detail: str | None = None, seconds: float | None = None
    ) -> bool:
        result = self.results[name]
        result.seconds = seconds
        if error is None:
            result.status, result.detail = "pass", detail
            timing = "" if seconds is None else f" ({seconds:.2f} s)"
            self._print(f"[smoke] PASS {name}{timing}" + (f": {detail}" if detail else ""))
            return True
        result.status, result.error = "fail", error
        self._print(f"[smoke] FAIL {name}: {error}")
        return False

    def skip(self, name: str, reason: str) -> None:
        result = self.results[name]
        result.status, result.error = "not run", reason
        self._print(f"[smoke] NOT RUN {name}: {reason}")

    async def run(
        self,
        name: str,
        body: Callable[[], Awaitable[str | None]],
        *,
        requires: Sequence[str] = (),
        timeout: float = CHECK_TIMEOUT_S,
    ) -> bool:
        """Run one check under its own deadline; any failure is recorded under ``name`` (never raised)."""
        missing = [required for required in requires if not self.passed(required)]
        if missing:
            self.skip(name, f"needs {', '.join(missing)}")
            return False
        started = time.monotonic()
        error: str | None = None
        detail: str | None = None
        try:
            with anyio.fail_after(timeout):
                detail = await body()
        except CheckFailed as exc:
            error = str(exc)
        except TimeoutError:
            error = f"no answer within {timeout:g} s"
        except McpRequestError as exc:
            error = f"JSON-RPC error {exc}"
        except EOFError as exc:
            error = f"the bridge closed its stdout ({exc})"
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        return self.record(name, error=error, detail=detail, seconds=time.monotonic() - started)

    @property
    def ok(self) -> bool:
        return all(result.status == "pass" for result in self.results.values())

    def failed_names(self) -> list[str]:
        return [result.name for result in self.results.values() if result.status == "fail"]

    def not_run_names(self) -> list[str]:
        return [result.name for result in self.results.values() if result.status == "not run"]

    def summary(self, **info: Any) -> dict[str, Any]:
        results = list(self.results.values())
        return {
            "ok": self.ok,
            **info,
            "passed": sum(result.status == "pass" for result in results),
            "failed": sum(result.status == "fail" for result in results),
            "not_run": sum(result.status == "not run" for result in results),
            "checks": [result.as_json() for result in results],
        }

    def final_line(self) -> str:
        if self.ok:
            return "OK"
        parts = []
        if failed := self.failed_names():
            parts.append(", ".join(failed))
        if not_run := self.not_run_names():
            parts.append("not run: " + ", ".join(not_run))
        return "FAILED: " + "; ".join(parts)


# --- what each check asserts (pure: replies in, a detail out or CheckFailed) -----------------------------


def tool_text(result: Any) -> str:
    content = result.get("content") if isinstance(result, dict) else None
    expect(
        isinstance(content, list) and content and isinstance(content[0], dict) and content[0].get("type") == "text",
        f"the tool result has no text content: {brief(result)}",
    )
    assert isinstance(content, list)
    text = content[0].get("text")
    expect(isinstance(text, str), f"the tool result's text is not a string: {brief(result)}")
    assert isinstance(text, str)
    return text


def structured(result: Any, key: str, tool: str) -> Any:
    expect(isinstance(result, dict), f"{tool} returned {brief(result)}")
    expect(not result.get("isError"), f"{tool} failed: {tool_text(result)!r}")
    content = result.get("structuredContent")
    expect(isinstance(content, dict) and key in content, f"{tool}: structuredContent has no {key!r}: {brief(result)}")
    return content[key]


def _route_mismatch(value: dict[str, Any], expected: dict[str, Any]) -> str | None:
    for key, wanted in expected.items():
        if value.get(key) != wanted:
            return f"{key} {value.get(key)!r}, expected {wanted!r}"
    return None


def verify_initialize(result: Any) -> str:
    expect(isinstance(result, dict), f"initialize returned {brief(result)}")
    capabilities = result.get("capabilities") or {}
    experimental = capabilities.get("experimental") if isinstance(capabilities, dict) else None
    expect(
        isinstance(experimental, dict)
        and "claude/channel" in experimental
        and "claude/channel/permission" in experimental,
        f"initialize does not declare the Claude channel capabilities (mode on): {brief(capabilities)}",
    )
    expect(
        isinstance(capabilities.get("tools"), dict), f"initialize declares no tools capability: {brief(capabilities)}"
    )
    server = result.get("serverInfo") or {}
    expect(server.get("name") == "openclaw", f"serverInfo.name {server.get('name')!r}, expected 'openclaw'")
    return f"protocol {result.get('protocolVersion')}, {server.get('name')} {server.get('version')}, claude/channel"


def verify_conversation_discovery(result: Any) -> str:
    rows = structured(result, "conversations", "conversations_list")
    expect(isinstance(rows, list), f"conversations_list: conversations is not a list: {brief(rows)}")
    expect(
        tool_text(result).startswith(f"conversations: {len(rows)}"),
        f"conversations_list text {tool_text(result)[:60]!r}, expected 'conversations: {len(rows)}…'",
    )
    matching = [row for row in rows if isinstance(row, dict) and row.get("sessionKey") == SESSION_KEY]
    keys = [row.get("sessionKey") for row in rows if isinstance(row, dict)]
    expect(len(matching) == 1, f"conversations_list has {len(matching)} rows for {SESSION_KEY!r} (keys: {keys})")
    mismatch = _route_mismatch(matching[0], ROUTE)
    expect(mismatch is None, f"conversations_list row {SESSION_KEY}: {mismatch}")
    return f"{SESSION_KEY} → imessage +15551234567 (account imessage-default, thread thread-42); {len(rows)} listed"


def verify_conversation_get(result: Any) -> str:
    conversation = structured(result, "conversation", "conversation_get")
    expect(isinstance(conversation, dict), f"conversation_get: conversation is {brief(conversation)}")
    expect(
        conversation.get("sessionKey") == SESSION_KEY,
        f"conversation_get returned sessionKey {conversation.get('sessionKey')!r}, expected {SESSION_KEY!r}",
    )
    mismatch = _route_mismatch(conversation, ROUTE)
    expect(mismatch is None, f"conversation_get: {mismatch}")
    text = tool_text(result)
    expect(
        text == f"conversation {SESSION_KEY}", f"conversation_get text {text!r}, expected 'conversation {SESSION_KEY}'"
    )
    return f"{text}, displayName {conversation.get('displayName')!r}"


def verify_messages_read(result: Any) -> str:
    messages = structured(result, "messages", "messages_read")
    expect(
        isinstance(messages, list) and len(messages) >= 2, f"messages_read: expected ≥2 messages, got {brief(messages)}"
    )
    ids = [
        message.get("__openclaw", {}).get("id")
        for message in messages
        if isinstance(message, dict) and isinstance(message.get("__openclaw"), dict)
    ]
    for wanted in ("msg-1", "msg-attachment"):
        expect(wanted in ids, f"messages_read: no message with __openclaw.id {wanted!r} (ids: {ids})")
    first = next(m for m in messages if isinstance(m, dict) and m.get("__openclaw", {}).get("id") == "msg-1")
    texts = [block.get("text") for block in first.get("content") or [] if isinstance(block, dict)]
    expect(
        first.get("role") == "assistant" and texts == ["hello from seeded transcript"],
        f"messages_read: msg-1 is {brief(first)}",
    )
    text = tool_text(result)
    expect(text.startswith(f"messages: {len(messages)}"), f"messages_read text {text[:40]!r}")
    return f"{len(messages)} messages, ids {ids}"


def verify_attachments_fetch(result: Any) -> str:
    attachments = structured(result, "attachments", "attachments_fetch")
    expect(
        attachments == [SEEDED_MEDIA],
        f"attachments_fetch: expected exactly the seeded image {brief([SEEDED_MEDIA])}, got {brief(attachments)}",
    )
    message = (result.get("structuredContent") or {}).get("message")
    message_id = message.get("__openclaw", {}).get("id") if isinstance(message, dict) else None
    expect(message_id == "msg-attachment", f"attachments_fetch: message id {message_id!r}, expected 'msg-attachment'")
    expect(tool_text(result) == "attachments: 1", f"attachments_fetch text {tool_text(result)!r}")
    return "1 attachment: image/png seeded-image.png (3 bytes) of msg-attachment"


def verify_user_event(event: Any, text: str) -> str:
    expect(isinstance(event, dict), f"expected an event, got {brief(event)}")
    expect(event.get("type") == "message", f"event type {event.get('type')!r}, expected 'message': {brief(event)}")
    expect(event.get("role") == "user", f"event role {event.get('role')!r}, expected 'user'")
    expect(event.get("text") == text, f"event text {event.get('text')!r}, expected {text!r}")
    cursor = event.get("cursor")
    expect(isinstance(cursor, int) and not isinstance(cursor, bool), f"event cursor {cursor!r} is not an integer")
    expect(
        event.get("sessionKey") == SESSION_KEY,
        f"event sessionKey {event.get('sessionKey')!r}, expected {SESSION_KEY!r}",
    )
    conversation = event.get("conversation")
    mismatch = _route_mismatch(conversation, ROUTE) if isinstance(conversation, dict) else "missing"
    expect(mismatch is None, f"event conversation: {mismatch}")
    return f"cursor {cursor}"


def verify_events_poll(result: Any, event: dict[str, Any]) -> str:
    events = structured(result, "events", "events_poll")
    expect(isinstance(events, list), f"events_poll: events is {brief(events)}")
    text = tool_text(result)
    expect(text == f"events: {len(events)}", f"events_poll text {text!r}, expected 'events: {len(events)}'")
    found = [item for item in events if isinstance(item, dict) and item.get("cursor") == event.get("cursor")]
    expect(
        found and found[0].get("text") == event.get("text"),
        f"events_poll does not contain the chat.send event (cursor {event.get('cursor')}): "
        f"cursors {[item.get('cursor') for item in events if isinstance(item, dict)]}",
    )
    next_cursor = (result.get("structuredContent") or {}).get("next_cursor")
    expect(
        next_cursor == events[-1].get("cursor"),
        f"events_poll next_cursor {next_cursor!r}, expected {events[-1].get('cursor')!r}",
    )
    return f"{len(events)} events, the chat.send event at cursor {event.get('cursor')}"


def verify_channel_notification(notification: Any, text: str, message_id: Any) -> str:
    params = notification.get("params") if isinstance(notification, dict) else None
    expected = {"content": text, "meta": {**CHANNEL_META, "message_id": message_id}}
    expect(params == expected, f"{CHANNEL} params {brief(params)}, expected {brief(expected)}")
    return f"content {text!r}, meta.session_key {SESSION_KEY}"


def verify_no_permission(notifications: Sequence[dict[str, Any]], request_id: str) -> None:
    answered = [
        message
        for message in notifications
        if message.get("method") == PERMISSION and (message.get("params") or {}).get("request_id") == request_id
    ]
    expect(not answered, f"a non-owner's reply answered the permission request: {brief(answered)}")


def verify_permission_decision(notifications: Sequence[dict[str, Any]], request_id: str, behavior: str) -> str:
    answers = [message.get("params") for message in notifications if message.get("method") == PERMISSION]
    expected = {"request_id": request_id, "behavior": behavior}
    expect(answers == [expected], f"{PERMISSION} notifications {brief(answers)}, expected exactly [{brief(expected)}]")
    return brief(expected)


def verify_route_error(result: Any) -> str:
    expect(isinstance(result, dict), f"messages_send returned {brief(result)}")
    expect(
        result.get("isError") is True,
        f"messages_send to the not-running imessage channel did not fail as a tool error: {brief(result)}",
    )
    expected = {"content": [{"type": "text", "text": ROUTE_ERROR}], "isError": True}
    text = tool_text(result)
    expect("Traceback" not in text and "\n" not in text, f"messages_send error is not one clean line: {text!r}")
    expect(result == expected, f"messages_send error {brief(result)}, expected {brief(expected)}")
    return f"isError {text!r}"


def verify_unknown_conversation_error(result: Any) -> str:
    expected_text = f"Conversation not found for session {UNKNOWN_SESSION}"
    expect(isinstance(result, dict) and result.get("isError") is True, f"messages_send returned {brief(result)}")
    text = tool_text(result)
    expect(text == expected_text, f"messages_send error {text!r}, expected {expected_text!r}")
    return f"isError {text!r}"


def verify_approval_listed(result: Any, approval_id: str) -> str:
    approvals = structured(result, "approvals", "permissions_list_open")
    expect(isinstance(approvals, list), f"permissions_list_open: approvals is {brief(approvals)}")
    matching = [item for item in approvals if isinstance(item, dict) and item.get("id") == approval_id]
    expect(
        len(matching) == 1 and matching[0].get("kind") == "exec",
        f"permissions_list_open does not list exec approval {approval_id!r}: {brief(approvals)}",
    )
    command = (matching[0].get("request") or {}).get("command")
    expect(command == "echo approval-test", f"permissions_list_open: request.command {command!r}")
    expect(tool_text(result) == f"approvals: {len(approvals)}", f"permissions_list_open text {tool_text(result)!r}")
    return f"{len(approvals)} open"


def verify_approval_resolved(result: Any) -> str:
    expected = {
        "content": [{"type": "text", "text": "approval resolved"}],
        "structuredContent": {"result": {"ok": True}},
    }
    expect(result == expected, f"permissions_respond returned {brief(result)}, expected {brief(expected)}")
    return "approval resolved"


def verify_clean_exit(returncode: int | None, stderr: str) -> str:
    expect(returncode is not None, f"the bridge did not exit within {EXIT_TIMEOUT_S:.0f} s after stdin closed")
    expect(returncode == 0, f"the bridge exited {returncode} after stdin closed, expected 0")
    expect("Traceback" not in stderr, "the bridge printed a traceback on stderr")
    return "exit 0 after stdin EOF"


# --- the flow -------------------------------------------------------------------------------------------


def serve_command(openclaw: Sequence[str], url: str, token_file: Path) -> list[str]:
    """``<openclaw…> mcp serve --url <url> --token-file <file> --claude-channel-mode on``."""
    return [*openclaw, "mcp", "serve", "--url", url, "--token-file", str(token_file), "--claude-channel-mode", "on"]


def default_openclaw() -> list[str]:
    """This project's ``openclaw`` (the venv next to the running Python, as the harness resolves it)."""
    return ours_serve_command("ws://127.0.0.1:1", Path("token"))[:1]


def resolve_openclaw(value: str | None) -> list[str]:
    if value is None or not value.strip():
        return default_openclaw()
    words = shlex.split(value)
    found = shutil.which(words[0])
    return [found or words[0], *words[1:]]


def _matches_text(text: str, role: str | None = "user") -> Callable[[dict[str, Any]], bool]:
    return lambda event: (
        event.get("type") == "message" and event.get("text") == text and (role is None or event.get("role") == role)
    )


class _Held:
    """A long-lived async context (an operator connection, the bridge) entered and exited in a task of its own,
    so that the checks' deadlines never cross its cancel scopes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.value: Any = None
        self.error: BaseException | None = None
        self.entered = anyio.Event()
        self.release = anyio.Event()
        self.exited = anyio.Event()
        self.scope = anyio.CancelScope()

    async def hold(self, context: AbstractAsyncContextManager[Any]) -> None:
        try:
            with self.scope:
                async with context as value:
                    self.value = value
                    self.entered.set()
                    await self.release.wait()
        except Exception as exc:
            self.error = exc
        finally:
            self.entered.set()
            self.exited.set()


class Smoke:
    """One run of the flow against a booted Gateway."""

    def __init__(self, checks: Checklist, gateway: RealGateway, openclaw: Sequence[str]) -> None:
        self.checks = checks
        self.gateway = gateway
        self.openclaw = list(openclaw)
        self.mcp: McpClient | None = None
        self.bridge_state: Path | None = None
        self.owner: Operator | None = None
        self.stranger: Operator | None = None
        self.cursor = 0
        self.user_event: dict[str, Any] | None = None
        self._held: list[_Held] = []
        self._task_group: anyio.abc.TaskGroup | None = None

    async def enter(self, name: str, context: AbstractAsyncContextManager[Any]) -> Any:
        """Enter ``context`` in its own task (it stays open until the run ends); its value, or its error."""
        assert self._task_group is not None
        held = _Held(name)
        self._held.append(held)
        self._task_group.start_soon(held.hold, context)
        try:
            await held.entered.wait()
        except BaseException:
            held.scope.cancel()
            raise
        if held.error is not None:
            raise held.error
        return held.value

    async def release_all(self) -> None:
        """Leave every held context, newest first (the bridge before the operator connections)."""
        with anyio.CancelScope(shield=True):
            for held in reversed(self._held):
                held.release.set()
                with anyio.move_on_after(60):
                    await held.exited.wait()
                if not held.exited.is_set():
                    held.scope.cancel()
                    await held.exited.wait()

    @property
    def client(self) -> McpClient:
        assert self.mcp is not None
        return self.mcp

    async def events_wait_until(
        self, predicate: Callable[[dict[str, Any]], bool], *, after: int, session_key: str | None = SESSION_KEY
    ) -> dict[str, Any]:
        """Loop ``events_wait`` from ``after`` until an event matches (the check's deadline bounds it)."""
        cursor = after
        while True:
            arguments: dict[str, Any] = {"after_cursor": cursor, "timeout_ms": 15_000}
            if session_key is not None:
                arguments["session_key"] = session_key
            result = await self.client.call("events_wait", arguments)
            expect(not result.get("isError"), f"events_wait failed: {tool_text(result)!r}")
            event = (result.get("structuredContent") or {}).get("event")
            if event is None:
                continue
            expect(tool_text(result) == f"event {event.get('cursor')}", f"events_wait text {tool_text(result)!r}")
            cursor = event["cursor"]
            if predicate(event):
                return dict(event)

    async def finish_run(self, operator: Operator, sent: dict[str, Any]) -> None:
        """``agent.wait`` for the run a ``chat.send`` started: ``ok`` (or folded into a queued follow-up)."""
        waited = await operator.agent_wait(sent["runId"])
        queued = waited.get("status") == "pending" and waited.get("timeoutPhase") == "queue"
        expect(waited.get("status") == "ok" or queued, f"agent.wait {sent['runId']} answered {brief(waited)}")

    async def chat_send(self, operator: Operator, text: str) -> dict[str, Any]:
        sent = await operator.chat_send(text)
        expect(
            sent.get("status") == "started" and isinstance(sent.get("runId"), str),
            f"chat.send answered {brief(sent)}, expected status 'started' and a string runId",
        )
        return sent

    # the checks, in order

    async def owner_scopes(self) -> str:
        self.owner = await self.enter("owner", self.gateway.operator("owner"))
        hello = await self.owner.connection.wait_ready()
        auth = hello.raw.get("auth") if isinstance(hello.raw, dict) else None
        scopes = auth.get("scopes") if isinstance(auth, dict) else None
        expect(isinstance(scopes, list), "the owner's hello-ok has no auth.scopes")
        assert isinstance(scopes, list)
        missing = [scope for scope in OWNER_SCOPES if scope not in scopes]
        expect(not missing, f"the owner connection lacks {missing} (granted: {scopes})")
        return "granted " + ", ".join(sorted(scopes))

    async def session_seeded(self) -> str:
        assert self.owner is not None
        params = {"limit": 50, "includeDerivedTitles": False, "includeLastMessage": False}
        while True:
            listed = await self.owner.request("sessions.list", params)
            rows = listed.get("sessions") if isinstance(listed, dict) else None
            row = next((r for r in rows or [] if isinstance(r, dict) and r.get("key") == SESSION_KEY), None)
            if row is not None:
                delivery = row.get("deliveryContext") or {}
                expect(
                    delivery.get("channel") == "imessage" and delivery.get("to") == "+15551234567",
                    f"sessions.list {SESSION_KEY}: deliveryContext {brief(delivery)}",
                )
                return f"sessions.list has {SESSION_KEY} routed to imessage +15551234567"
            await anyio.sleep(0.5)

    async def initialize(self) -> str:
        assert self.mcp is not None
        result = await self.client.result("initialize", INITIALIZE_PARAMS)
        await self.client.notify("notifications/initialized")
        return verify_initialize(result)

    async def conversation_discovery(self) -> str:
        result = await self.client.call(
            "conversations_list", {"includeDerivedTitles": False, "includeLastMessage": False}
        )
        return verify_conversation_discovery(result)

    async def conversation_get(self) -> str:
        return verify_conversation_get(await self.client.call("conversation_get", {"session_key": SESSION_KEY}))

    async def messages_read(self) -> str:
        return verify_messages_read(await self.client.call("messages_read", {"session_key": SESSION_KEY, "limit": 10}))

    async def attachments_fetch(self) -> str:
        result = await self.client.call(
            "attachments_fetch", {"session_key": SESSION_KEY, "message_id": "msg-attachment"}
        )
        return verify_attachments_fetch(result)

    async def events_wait_chat_send(self) -> str:
        assert self.owner is not None
        text = f"wait event {uuid.uuid4()}"
        matches = _matches_text(text)
        pending = await self.client.start(
            "tools/call",
            {
                "name": "events_wait",
                "arguments": {"session_key": SESSION_KEY, "after_cursor": self.cursor, "timeout_ms": 60_000},
            },
        )
        await anyio.sleep(0.2)
        sent = await self.chat_send(self.owner, text)
        answer = await pending.response()
        expect("result" in answer, f"the pending events_wait answered {brief(answer)}")
        result = answer["result"]
        expect(not result.get("isError"), f"the pending events_wait failed: {tool_text(result)!r}")
        woken: dict[str, Any] | None = (result.get("structuredContent") or {}).get("event")
        if woken is None:
            raise CheckFailed(f"the pending events_wait was not woken by chat.send: {tool_text(result)!r}")
        event = woken if matches(woken) else await self.events_wait_until(matches, after=woken["cursor"])
        cursor = verify_user_event(event, text)
        expect(event["raw"].get("senderIsOwner") is True, f"the owner's turn lacks senderIsOwner: {brief(event)}")
        await self.finish_run(self.owner, sent)
        self.user_event = event
        self.cursor = event["cursor"]
        return f"pending events_wait woken; user message at {cursor}; agent.wait ok"

    async def events_poll(self) -> str:
        assert self.user_event is not None
        result = await self.client.call("events_poll", {"session_key": SESSION_KEY, "after_cursor": 0, "limit": 10})
        return verify_events_poll(result, self.user_event)

    async def claude_channel_notification(self) -> str:
        assert self.owner is not None
        text = f"hello from docker {uuid.uuid4()}"
        mark = len(self.client.notifications)
        sent = await self.chat_send(self.owner, text)
        event = await self.events_wait_until(_matches_text(text), after=self.cursor)
        verify_user_event(event, text)
        notification = await self.client.wait_notification(
            lambda m: m.get("method") == CHANNEL and (m.get("params") or {}).get("content") == text, start=mark
        )
        detail = verify_channel_notification(notification, text, event.get("messageId"))
        await self.finish_run(self.owner, sent)
        reply = await self.events_wait_until(_matches_text(MOCK_REPLY, "assistant"), after=event["cursor"])
        announced = [m["params"].get("content") for m in self.client.notifications[mark:] if m.get("method") == CHANNEL]
        expect(MOCK_REPLY not in announced, f"the assistant's reply was announced on {CHANNEL}: {announced}")
        self.cursor = reply["cursor"]
        return detail + "; the assistant reply was not announced"

    async def permission_relay_non_owner(self) -> str:
        await self.client.notify(
            PERMISSION_REQUEST,
            {
                "request_id": REQUEST_ID,
                "tool_name": "Bash",
                "description": "run npm test",
                "input_preview": '{"cmd":"npm test"}',
            },
        )
        queued = await self.events_wait_until(
            lambda e: e.get("type") == "claude_permission_request" and e.get("requestId") == REQUEST_ID,
            after=self.cursor,
            session_key=None,
        )
        self.stranger = await self.enter("non-owner", self.gateway.operator("nonowner"))
        reply = f"yes {REQUEST_ID}"
        mark = len(self.client.notifications)
        sent = await self.chat_send(self.stranger, reply)
        forwarded = await self.events_wait_until(_matches_text(reply), after=queued["cursor"], session_key=None)
        expect(
            not forwarded.get("raw", {}).get("senderIsOwner"),
            f"the non-owner's turn is marked senderIsOwner: {brief(forwarded)}",
        )
        notification = await self.client.wait_notification(
            lambda m: m.get("method") == CHANNEL and (m.get("params") or {}).get("content") == reply, start=mark
        )
        verify_channel_notification(notification, reply, forwarded.get("messageId"))
        await anyio.sleep(QUIET_WINDOW_S)
        verify_no_permission(self.client.notifications, REQUEST_ID)
        await self.finish_run(self.stranger, sent)
        self.cursor = forwarded["cursor"]
        return f"{reply!r} from a non-owner forwarded on {CHANNEL}; no permission answer after {QUIET_WINDOW_S:.0f} s"

    async def permission_relay_owner_allow(self) -> str:
        assert self.owner is not None
        mark = len(self.client.notifications)
        sent = await self.chat_send(self.owner, f"yes {REQUEST_ID}")
        await self.client.wait_notification(lambda m: m.get("method") == PERMISSION, start=mark)
        await self.finish_run(self.owner, sent)
        return verify_permission_decision(self.client.notifications, REQUEST_ID, "allow")

    async def messages_send_route_error(self) -> str:
        result = await self.client.call("messages_send", {"session_key": SESSION_KEY, "text": "reply from the smoke"})
        detail = verify_route_error(result)
        # The bridge keeps serving after the error.
        after = await self.client.call("conversations_list", {"limit": 1})
        expect(not after.get("isError"), f"after the messages_send error, conversations_list failed: {brief(after)}")
        return detail + "; the bridge still serves"

    async def messages_send_unknown_conversation(self) -> str:
        result = await self.client.call("messages_send", {"session_key": UNKNOWN_SESSION, "text": "hi"})
        return verify_unknown_conversation_error(result)

    async def permissions_respond_approval(self) -> str:
        assert self.bridge_state is not None
        async with self.gateway.operator("approver", bridge_state=self.bridge_state) as asker:
            request = await asker.request(
                "exec.approval.request",
                EXEC_APPROVAL_REQUEST,
            )
            expect(
                isinstance(request, dict)
                and request.get("status") == "accepted"
                and isinstance(request.get("id"), str),
                f"exec.approval.request answered {brief(request)}",
            )
            approval_id = request["id"]
            requested = await self.events_wait_until(
                lambda e: e.get("type") == "exec_approval_requested" and (e.get("raw") or {}).get("id") == approval_id,
                after=self.cursor,
                session_key=None,
            )
            listed = verify_approval_listed(await self.client.call("permissions_list_open", {}), approval_id)
            responded = await self.client.call(
                "permissions_respond", {"kind": "exec", "id": approval_id, "decision": "allow-once"}
            )
            verify_approval_resolved(responded)
            resolved = await self.events_wait_until(
                lambda e: e.get("type") == "exec_approval_resolved" and (e.get("raw") or {}).get("id") == approval_id,
                after=requested["cursor"],
                session_key=None,
            )
            decision = resolved["raw"].get("decision")
            expect(decision == "allow-once", f"exec_approval_resolved decision {decision!r}, expected 'allow-once'")
            after = structured(
                await self.client.call("permissions_list_open", {}), "approvals", "permissions_list_open"
            )
            expect(
                all(item.get("id") != approval_id for item in after),
                f"the resolved approval is still open: {brief(after)}",
            )
            self.cursor = resolved["cursor"]
        return f"exec approval listed ({listed}), allow-once → approval resolved, resolved event, closed"

    async def clean_exit(self) -> str:
        await self.client.close_stdin()
        with anyio.move_on_after(EXIT_TIMEOUT_S):
            await self.client.process.wait()
        return verify_clean_exit(self.client.process.returncode, self.client.stderr_text)

    async def run(self) -> None:
        async with anyio.create_task_group() as tg:
            self._task_group = tg
            try:
                await self._run()
            finally:
                await self.release_all()
        if not self.checks.ok:
            self.print_diagnostics()

    async def _run(self) -> None:
        checks = self.checks
        await checks.run("gateway_owner_scopes", self.owner_scopes)
        await checks.run("gateway_session_seeded", self.session_seeded, requires=["gateway_owner_scopes"])
        self.bridge_state = self.gateway.new_bridge_state("smoke")
        command = serve_command(self.openclaw, self.gateway.url, self.gateway.token_file)
        print(f"[smoke] bridge: {shlex.join(command)}", flush=True)
        try:
            mcp_context = open_mcp_client(command, self.gateway.bridge_env(self.bridge_state), name="bridge")
            self.mcp = await self.enter("bridge", mcp_context)
        except OSError as exc:
            checks.record("bridge_initialize", error=f"cannot start the bridge: {exc}")
        else:
            await checks.run("bridge_initialize", self.initialize)
        bridge = ["bridge_initialize"]
        owner = ["bridge_initialize", "gateway_owner_scopes"]
        await checks.run("conversation_discovery", self.conversation_discovery, requires=bridge)
        await checks.run("conversation_get", self.conversation_get, requires=bridge)
        await checks.run("messages_read", self.messages_read, requires=bridge)
        await checks.run("attachments_fetch", self.attachments_fetch, requires=bridge)
        await checks.run("events_wait_chat_send", self.events_wait_chat_send, requires=owner)
        await checks.run("events_poll", self.events_poll, requires=["events_wait_chat_send"])
        await checks.run("claude_channel_notification", self.claude_channel_notification, requires=owner)
        await checks.run("permission_relay_non_owner", self.permission_relay_non_owner, requires=bridge)
        await checks.run(
            "permission_relay_owner_allow",
            self.permission_relay_owner_allow,
            requires=[*owner, "permission_relay_non_owner"],
        )
        await checks.run("messages_send_route_error", self.messages_send_route_error, requires=bridge)
        await checks.run("messages_send_unknown_conversation", self.messages_send_unknown_conversation, requires=bridge)
        await checks.run("permissions_respond_approval", self.permissions_respond_approval, requires=bridge)
        if self.mcp is not None:
            await checks.run("bridge_clean_exit", self.clean_exit, timeout=EXIT_TIMEOUT_S + 5)
        else:
            checks.skip("bridge_clean_exit", "needs bridge_initialize")

    def print_diagnostics(self) -> None:
        """What went on, for a failed run: the Gateway log, the bridge's stderr, the last JSON-RPC messages."""
        out = sys.stdout
        print("\n==== diagnostics: the smoke failed ====", file=out)
        print(f"---- Gateway log (last 150 lines of {self.gateway.state_dir / 'gateway.log'}) ----", file=out)
        print(self.gateway.log_tail(150) or "(empty)", file=out)
        if self.mcp is not None:
            print("---- bridge stderr ----", file=out)
            print(self.mcp.stderr_text.rstrip() or "(empty)", file=out)
            print("---- last 40 JSON-RPC messages (-> to the bridge, <- from it) ----", file=out)
            for _, direction, message in self.mcp.traffic[-40:]:
                print(f"{direction} {brief(message, 600)}", file=out)
        print("==== end of diagnostics ====\n", file=out, flush=True)


@asynccontextmanager
async def booted(gateway: RealGateway, keep: bool) -> AsyncIterator[RealGateway]:
    """Boot the Gateway (mock, seed, ``gateway run``, readiness) in a thread so a signal can interrupt it;
    whatever happens, stop it (process group) and the mock afterwards."""
    done = threading.Event()
    errors: list[BaseException] = []

    def boot() -> None:
        try:
            gateway.boot()
        except BaseException as exc:
            errors.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=boot, name="smoke-gateway-boot", daemon=True)
    thread.start()
    try:
        while not done.is_set():
            await anyio.sleep(0.1)
        if errors:
            raise errors[0]
        yield gateway
    finally:
        with anyio.CancelScope(shield=True):
            gateway.abort()
            await anyio.to_thread.run_sync(thread.join)
            await anyio.to_thread.run_sync(lambda: gateway.stop(remove=not keep))


async def _watch_signals(scope: anyio.CancelScope, received: list[int]) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            received.append(signum)
            print(f"[smoke] interrupted by signal {signum}; stopping everything", file=sys.stderr, flush=True)
            scope.cancel()
            return


async def host_smoke(openclaw: Sequence[str], *, mode: str, keep: bool, out: TextIO) -> int:
    reference = find_reference()
    if reference is None:
        print(
            "smoke: the reference OpenClaw 2026.9.6 (node 24 + Gateway) is not installed; install it with "
            "bash scripts/install_reference.sh (or set OPENCLAW_REFERENCE_DIR)",
            file=sys.stderr,
        )
        return 2
    started = time.monotonic()
    checks = Checklist()
    gateway = RealGateway.prepare(reference)
    info: dict[str, Any] = {
        "smoke": "openclaw mcp serve (docker smoke, gateway-protocol.md §9.7)",
        "mode": mode,
        "openclaw_gateway": REFERENCE_VERSION,
        "bridge": shlex.join([*openclaw, "mcp", "serve", "--claude-channel-mode", "on"]),
        "session": SESSION_KEY,
    }
    print(f"[smoke] {mode} mode; Gateway state in {gateway.root}", flush=True)
    received: list[int] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(_watch_signals, tg.cancel_scope, received)
        boot_started = time.monotonic()
        try:
            async with booted(gateway, keep) as ready:
                info["gateway_ready_after_s"] = round(ready.ready_after_s or 0.0, 1)
                checks.record(
                    "gateway_start",
                    detail=f"{ready.url} ready after {ready.ready_after_s or 0:.1f} s (seeded {SESSION_KEY})",
                    seconds=time.monotonic() - boot_started,
                )
                await Smoke(checks, ready, openclaw).run()
        except Exception as exc:
            if checks.results["gateway_start"].status != "not run":
                raise
            checks.record("gateway_start", error=str(exc), seconds=time.monotonic() - boot_started)
            for name in CHECKS[1:]:
                checks.skip(name, "needs gateway_start")
        tg.cancel_scope.cancel()
    if received:
        return 128 + received[0]
    info["duration_s"] = round(time.monotonic() - started, 1)
    print(json.dumps(checks.summary(**info), indent=2, ensure_ascii=False), file=out)
    print(checks.final_line(), file=out, flush=True)
    return 0 if checks.ok else 1


# --- container mode -------------------------------------------------------------------------------------


def _docker(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=False)


def image_exists(tag: str) -> bool:
    return _docker("image", "inspect", tag).returncode == 0


def image_id(tag: str) -> str | None:
    found = _docker("image", "inspect", "--format", "{{.Id}}", tag)
    return found.stdout.strip() or None if found.returncode == 0 else None


def _stream(command: Sequence[str], *, prefix: str = "", timeout: float, tail: list[str] | None = None) -> int:
    """Run ``command`` in its own process group, copying its output line by line; on timeout or an
    exception (a signal) its group is ended (by id)."""
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    timer = threading.Timer(timeout, lambda: _end_group(process))
    timer.start()
    try:
        assert process.stdout is not None
        for line in process.stdout:
            print(prefix + line, end="", flush=True)
            if tail is not None:
                tail.append(line.rstrip("\n"))
                del tail[:-200]
        process.wait()
    finally:
        timer.cancel()
        if process.poll() is None:
            _end_group(process)
    if time.monotonic() > deadline:
        print(f"[smoke] {command[0]} {command[1]} took longer than {timeout:.0f} s; stopped", flush=True)
        return 124
    return process.returncode


def _end_group(process: subprocess.Popen[str]) -> None:
    for signum in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signum)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)


def _wheel_platforms() -> list[str]:
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    tags = [f"manylinux_2_{minor}_{machine}" for minor in range(36, 16, -1)]
    return [*tags, f"manylinux2014_{machine}", "any"]


def host_ca_bundle() -> Path:
    """The CA bundle this machine trusts (``$SSL_CERT_FILE``, else Debian's), for the image's registry downloads:
    behind a TLS-inspecting proxy the image must trust what the host trusts."""
    for candidate in (os.environ.get("SSL_CERT_FILE", ""), "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise RuntimeError("no CA bundle found (set SSL_CERT_FILE)")


@contextlib.contextmanager
def build_context() -> Iterator[Path]:
    """The image's build context in a temporary directory: the Dockerfile, the host's CA bundle, this project's
    wheel, the wheels of its dependencies for the image's Python 3.11 (resolved by this machine's pip and its
    configured indexes; the image installs offline) and the driver's files. Nothing else of the checkout
    enters."""
    with tempfile.TemporaryDirectory(prefix="openclaw-smoke-context-") as name:
        context = Path(name)
        shutil.copy2(HERE / "Dockerfile", context / "Dockerfile")
        shutil.copyfile(host_ca_bundle(), context / "build-ca.crt")
        project, deps = context / "wheels" / "project", context / "wheels" / "deps"
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
        steps = [
            [*pip, "wheel", "--quiet", "--no-deps", "--wheel-dir", str(project), str(ROOT)],
            [
                *pip,
                "download",
                "--quiet",
                "--only-binary=:all:",
                "--python-version",
                "3.11",
                "--implementation",
                "cp",
                *[arg for abi in ("cp311", "abi3", "none") for arg in ("--abi", abi)],
                *[arg for tag in _wheel_platforms() for arg in ("--platform", tag)],
                "--dest",
                str(deps),
            ],
        ]
        result = subprocess.run(steps[0], capture_output=True, text=True, check=False, timeout=600)
        if result.returncode == 0:
            wheels = sorted(project.glob("*.whl"))
            result = subprocess.run(
                [*steps[1], *map(str, wheels)], capture_output=True, text=True, check=False, timeout=600
            )
        if result.returncode != 0:
            raise RuntimeError(f"preparing the wheels failed:\n{(result.stdout + result.stderr)[-3000:]}")
        for duplicate in deps.glob("openclaw_mcp-*.whl"):
            duplicate.unlink()
        for file in SMOKE_FILES:
            target = context / "smoke" / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / file, target)
        yield context


def container_smoke(args: argparse.Namespace) -> int:
    started = time.monotonic()
    if shutil.which("docker") is None:
        print("smoke: docker is not installed (apt-get install -y docker.io debootstrap)", file=sys.stderr)
        return 2
    if _docker("info", timeout=30).returncode != 0:
        print(
            "smoke: the Docker engine is not reachable (start it: nohup dockerd >/tmp/dockerd.log 2>&1 &)",
            file=sys.stderr,
        )
        return 2
    network = ["--network", args.docker_network] if args.docker_network else []
    if args.rebuild_base or not image_exists(BASE_IMAGE):
        print(f"[smoke] building the base image {BASE_IMAGE} (debootstrap)", flush=True)
        base = ["bash", str(HERE / "build_base_image.sh"), *(["--force"] if args.rebuild_base else [])]
        if _stream(base, prefix="[base] ", timeout=1200) != 0:
            print("FAILED: building the base image", flush=True)
            return 2
    if not args.no_build or not image_exists(args.image):
        print(f"[smoke] building {args.image} (Node 24, OpenClaw {REFERENCE_VERSION}, this project)", flush=True)
        build_started = time.monotonic()
        previous = image_id(args.image)
        try:
            with build_context() as context:
                build = ["docker", "build", "--force-rm", *network, "--tag", args.image, str(context)]
                code = _stream(build, prefix="[build] ", timeout=1800)
        except RuntimeError as exc:
            print(f"smoke: {exc}", file=sys.stderr)
            code = 2
        if code != 0:
            print("FAILED: building the smoke image", flush=True)
            return 2
        if previous is not None and image_id(args.image) != previous:
            _docker("image", "rm", previous)  # the superseded build of ours (now untagged); kept if in use
        print(f"[smoke] image {args.image} ready after {time.monotonic() - build_started:.0f} s", flush=True)
    name = f"openclaw-mcp-smoke-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    inner = ["python", "-m", "tests.docker.smoke", "--in-container", *(["--keep-state"] if args.keep_state else [])]
    run = ["docker", "run", "--rm", "--init", "--name", name, "--network", "none", args.image, *inner]
    print(f"[smoke] {shlex.join(run)}", flush=True)
    tail: list[str] = []
    run_started = time.monotonic()
    try:
        code = _stream(run, timeout=CONTAINER_TIMEOUT_S, tail=tail)
    finally:
        # The container is ours by name; removing it ends whatever it still runs.
        if _docker("container", "inspect", name).returncode == 0:
            _docker("rm", "--force", name)
    lines = [line for line in tail if line.strip()]
    print(
        f"[smoke] container exited {code} after {time.monotonic() - run_started:.0f} s "
        f"({time.monotonic() - started:.0f} s with the image build)",
        file=sys.stderr,
        flush=True,
    )
    last = lines[-1] if lines else ""
    if code == 0 and last == "OK":
        return 0  # the container's summary and OK were the last lines copied
    if code == 0:
        print("FAILED: the container exited 0 without printing OK", flush=True)
        return 1
    if not last.startswith("FAILED"):
        print(f"FAILED: container exit status {code}", flush=True)
    return code if code in (1, 2) else 1


# --- command line ---------------------------------------------------------------------------------------


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.docker.smoke",
        description="Docker smoke test of openclaw mcp serve against a real OpenClaw 2026.9.6 Gateway.",
    )
    parser.add_argument("--container", action="store_true", help="run the smoke inside the smoke image")
    parser.add_argument(
        "--openclaw",
        default=os.environ.get("OPENCLAW_SMOKE_OPENCLAW"),
        help="the openclaw command whose `mcp serve` is tested (default: $OPENCLAW_SMOKE_OPENCLAW, else this "
        "project's openclaw); host mode only",
    )
    parser.add_argument("--keep-state", action="store_true", help="keep the temporary Gateway/bridge state dir")
    parser.add_argument("--image", default=IMAGE, help=f"the smoke image tag (default {IMAGE})")
    parser.add_argument("--no-build", action="store_true", help="reuse the image when it exists")
    parser.add_argument("--rebuild-base", action="store_true", help=f"debootstrap {BASE_IMAGE} again")
    parser.add_argument(
        "--docker-network", default=None, help="network for `docker build` (e.g. host, when the bridge has none)"
    )
    parser.add_argument("--in-container", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.container:
        signal.signal(signal.SIGTERM, _interrupt)
        if args.openclaw:
            parser.error("--openclaw applies to host mode only (the image's bridge is this project's)")
        try:
            return container_smoke(args)
        except KeyboardInterrupt:
            return 130
    openclaw = resolve_openclaw(args.openclaw)
    mode = "container" if args.in_container else "host"
    return anyio.run(lambda: host_smoke(openclaw, mode=mode, keep=args.keep_state, out=sys.stdout))


if __name__ == "__main__":
    sys.exit(main())
