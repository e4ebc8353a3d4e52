"""The docker smoke's named checks (tests/docker/smoke.py) without a Gateway: the replies a healthy bridge gives
pass them, and a broken bridge's reply fails the run with a message and a final line that name the check."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.docker.gateway_harness import McpRequestError
from tests.docker.smoke import (
    CHECKS,
    CheckFailed,
    Checklist,
    serve_command,
    verify_approval_listed,
    verify_approval_resolved,
    verify_attachments_fetch,
    verify_channel_notification,
    verify_clean_exit,
    verify_conversation_discovery,
    verify_conversation_get,
    verify_events_poll,
    verify_initialize,
    verify_messages_read,
    verify_no_permission,
    verify_permission_decision,
    verify_route_error,
    verify_unknown_conversation_error,
    verify_user_event,
)

ROUTE = {
    "sessionKey": "agent:main:main",
    "channel": "imessage",
    "to": "+15551234567",
    "accountId": "imessage-default",
    "threadId": "thread-42",
}
CONVERSATION = {**ROUTE, "displayName": "Docker MCP Channel Smoke", "updatedAt": 1795954303413}
MEDIA = {
    "url": "media://inbound/seeded-image.png",
    "contentType": "image/png",
    "kind": "image",
    "fileName": "seeded-image.png",
    "sizeBytes": 3,
}
USER_EVENT = {
    "cursor": 1,
    "type": "message",
    "sessionKey": "agent:main:main",
    "conversation": {**ROUTE, "updatedAt": None},
    "messageId": "f2c1",
    "messageSeq": 4,
    "role": "user",
    "text": "wait event 1",
    "raw": {"sessionKey": "agent:main:main", "senderIsOwner": True},
}


def text_result(text: str, structured: dict[str, Any] | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def conversation_get_reply(session_key: str) -> dict[str, Any]:
    return text_result(f"conversation {session_key}", {"conversation": {**CONVERSATION, "sessionKey": session_key}})


# --- the healthy replies pass -----------------------------------------------------------------------------


def test_the_replies_of_a_healthy_bridge_pass_every_check() -> None:
    verify_initialize(
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {
                "experimental": {"claude/channel": {}, "claude/channel/permission": {}},
                "tools": {"listChanged": True},
            },
            "serverInfo": {"name": "openclaw", "version": "2026.9.6"},
        }
    )
    rows = {"conversations": [CONVERSATION]}
    verify_conversation_discovery(text_result("conversations: 1\n\n" + json.dumps(rows, indent=2), rows))
    verify_conversation_get(conversation_get_reply("agent:main:main"))
    messages = [
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "hello from seeded transcript"}],
            "__openclaw": {"id": "msg-1"},
        },
        {
            "role": "user",
            "content": "seeded image attachment",
            "__openclaw": {"id": "msg-attachment", "media": [MEDIA]},
        },
    ]
    verify_messages_read(text_result("messages: 2\n\n…", {"messages": messages}))
    attachment = {"type": "openclaw_media", "media": {**MEDIA, "transcribed": False}}
    verify_attachments_fetch(
        text_result(
            "attachments: 1", {"attachments": [attachment], "message": {"__openclaw": {"id": "msg-attachment"}}}
        )
    )
    verify_user_event(USER_EVENT, "wait event 1")
    verify_events_poll(text_result("events: 1", {"events": [USER_EVENT], "next_cursor": 1}), USER_EVENT)
    meta = {
        "session_key": "agent:main:main",
        "channel": "imessage",
        "to": "+15551234567",
        "account_id": "imessage-default",
        "thread_id": "thread-42",
        "message_id": "f2c1",
    }
    notification = {"method": "notifications/claude/channel", "params": {"content": "hi", "meta": meta}}
    verify_channel_notification(notification, "hi", "f2c1")
    verify_no_permission([notification], "abcde")
    decision = {
        "method": "notifications/claude/channel/permission",
        "params": {"request_id": "abcde", "behavior": "allow"},
    }
    verify_permission_decision([notification, decision], "abcde", "allow")
    verify_route_error({"content": [{"type": "text", "text": "unsupported channel: imessage"}], "isError": True})
    verify_unknown_conversation_error(
        {"content": [{"type": "text", "text": "Conversation not found for session agent:main:nope"}], "isError": True}
    )
    approval = {"kind": "exec", "id": "a1", "request": {"command": "echo approval-test"}, "createdAtMs": 1}
    verify_approval_listed(text_result("approvals: 1", {"approvals": [approval]}), "a1")
    verify_approval_resolved(text_result("approval resolved", {"result": {"ok": True}}))
    verify_clean_exit(0, "")


# --- a broken bridge fails the run, naming the check ------------------------------------------------------


@pytest.mark.asyncio
async def test_a_wrong_session_key_from_conversation_get_fails_the_run_naming_conversation_get() -> None:
    out = io.StringIO()
    checks = Checklist(out=out)

    async def conversation_get() -> str:
        return verify_conversation_get(conversation_get_reply("agent:main:wrong"))

    async def conversation_discovery() -> str:
        rows = {"conversations": [CONVERSATION]}
        return verify_conversation_discovery(text_result("conversations: 1", rows))

    with anyio.fail_after(5):
        assert await checks.run("conversation_discovery", conversation_discovery)
        assert not await checks.run("conversation_get", conversation_get)

    assert (
        "[smoke] FAIL conversation_get: conversation_get returned sessionKey 'agent:main:wrong', "
        "expected 'agent:main:main'\n"
    ) in out.getvalue()
    summary = checks.summary(mode="host")
    json.dumps(summary)
    assert summary["ok"] is False and summary["failed"] == 1 and summary["passed"] == 1
    failed = [check for check in summary["checks"] if check["status"] == "fail"]
    assert [check["name"] for check in failed] == ["conversation_get"]
    assert "agent:main:wrong" in failed[0]["error"]
    assert checks.final_line() == "FAILED: conversation_get; not run: " + ", ".join(
        name for name in CHECKS if name not in ("conversation_discovery", "conversation_get")
    )


@pytest.mark.parametrize(
    ("check", "verify"),
    [
        (
            "messages_send_route_error",
            lambda: verify_route_error(text_result("sent", {"result": {"ok": True}})),
        ),
        (
            "messages_send_route_error",
            lambda: verify_route_error(
                {"content": [{"type": "text", "text": "Traceback (most recent call last):\n  …"}], "isError": True}
            ),
        ),
        (
            "permission_relay_non_owner",
            lambda: verify_no_permission(
                [
                    {
                        "method": "notifications/claude/channel/permission",
                        "params": {"request_id": "abcde", "behavior": "allow"},
                    }
                ],
                "abcde",
            ),
        ),
        ("permission_relay_owner_allow", lambda: verify_permission_decision([], "abcde", "allow")),
        ("attachments_fetch", lambda: verify_attachments_fetch(text_result("attachments: 0", {"attachments": []}))),
        (
            "claude_channel_notification",
            lambda: verify_channel_notification(
                {"method": "notifications/claude/channel", "params": {"content": "hi", "meta": {}}}, "hi", "f2c1"
            ),
        ),
        ("events_wait_chat_send", lambda: verify_user_event({**USER_EVENT, "role": "assistant"}, "wait event 1")),
        ("bridge_clean_exit", lambda: verify_clean_exit(1, "")),
    ],
)
@pytest.mark.asyncio
async def test_a_wrong_reply_fails_its_check_with_a_message_naming_it(check: str, verify: Any) -> None:
    out = io.StringIO()
    checks = Checklist(out=out)

    async def body() -> str:
        return str(verify())

    with anyio.fail_after(5):
        assert not await checks.run(check, body)
    line = out.getvalue().splitlines()[-1]
    assert line.startswith(f"[smoke] FAIL {check}: ") and len(line) > len(f"[smoke] FAIL {check}: ")
    assert checks.failed_names() == [check]
    assert checks.final_line().startswith(f"FAILED: {check};")


@pytest.mark.asyncio
async def test_a_check_without_an_answer_fails_on_its_deadline_and_a_json_rpc_error_fails_too() -> None:
    checks = Checklist(out=io.StringIO())

    async def silent() -> str:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def rejected() -> str:
        raise McpRequestError({"code": -32601, "message": "Method not found"})

    with anyio.fail_after(5):
        await checks.run("events_wait_chat_send", silent, timeout=0.05)
        await checks.run("conversation_get", rejected)
    assert checks.results["events_wait_chat_send"].error == "no answer within 0.05 s"
    assert checks.results["conversation_get"].error == 'JSON-RPC error {"code": -32601, "message": "Method not found"}'


@pytest.mark.asyncio
async def test_checks_whose_prerequisite_failed_are_not_run_and_listed_as_such() -> None:
    out = io.StringIO()
    checks = Checklist(["bridge_initialize", "conversation_get"], out=out)

    async def broken() -> str:
        raise CheckFailed("initialize does not declare the Claude channel capabilities (mode on): {}")

    async def unreachable() -> str:
        raise AssertionError("must not run")

    with anyio.fail_after(5):
        await checks.run("bridge_initialize", broken)
        await checks.run("conversation_get", unreachable, requires=["bridge_initialize"])
    assert checks.results["conversation_get"].status == "not run"
    assert "[smoke] NOT RUN conversation_get: needs bridge_initialize" in out.getvalue()
    assert checks.final_line() == "FAILED: bridge_initialize; not run: conversation_get"


def test_all_checks_passing_end_with_ok_and_the_serve_command_is_ours_in_mode_on() -> None:
    checks = Checklist(["conversation_get"], out=io.StringIO())
    checks.record("conversation_get", detail="conversation agent:main:main")
    assert checks.ok and checks.final_line() == "OK"
    assert checks.summary()["checks"] == [
        {"name": "conversation_get", "status": "pass", "detail": "conversation agent:main:main"}
    ]
    assert serve_command(["/x/openclaw"], "ws://127.0.0.1:1", __import__("pathlib").Path("/t/token")) == [
        "/x/openclaw",
        "mcp",
        "serve",
        "--url",
        "ws://127.0.0.1:1",
        "--token-file",
        "/t/token",
        "--claude-channel-mode",
        "on",
    ]


def test_the_files_copied_into_the_image_are_enough_to_import_the_driver(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    from tests.docker.smoke import SMOKE_FILES

    root = Path(__file__).resolve().parents[2]
    for file in SMOKE_FILES:
        target = tmp_path / file
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / file, target)
    # The copied tree comes first on sys.path, so ``tests`` resolves there and nothing else of tests/ is found.
    probe = subprocess.run(
        [sys.executable, "-c", "import tests.docker.smoke, tests; print(tests.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == str(tmp_path / "tests" / "__init__.py")
