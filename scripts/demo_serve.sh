#!/usr/bin/env bash
# `openclaw mcp serve` end to end on a fresh machine: install (this project, and the reference OpenClaw
# 2026.9.6 whose Gateway we bridge, cached outside the repo), seed a demo conversation into a throw-away
# state dir, start the real Gateway on a free loopback port, run OUR `openclaw mcp serve` against it and
# drive it as an MCP client would: initialize, list conversations, read messages, then wait for a live
# event while another Gateway client sends a chat message. Everything is stopped afterwards.
#
#   bash scripts/demo_serve.sh
#
# Needs Python >= 3.11, npm (for the reference install) and the package registries. Never touches
# ~/.openclaw: the Gateway and the bridge each get their own temporary state dir.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
echo "== installing the reference OpenClaw 2026.9.6 (pinned and checked by its lock; a no-op when present)"
bash scripts/install_reference.sh
echo
exec .venv/bin/python - <<'PY'
import json
import sys
import uuid

import anyio

from tests.docker.gateway_harness import (
    SESSION_KEY,
    find_reference,
    open_mcp_client,
    ours_serve_command,
    running_gateway,
)


def show(title, value=None):
    print(f"\n== {title}")
    if value is not None:
        print(value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False))
    sys.stdout.flush()


async def demo(reference):
    with running_gateway(reference) as gateway:
        show(
            "real Gateway ready",
            f"{gateway.url} after {gateway.ready_after_s:.1f} s; seeded conversation {SESSION_KEY} "
            f"(state: {gateway.state_dir})",
        )
        state = gateway.new_bridge_state("demo")
        command = ours_serve_command(gateway.url, gateway.token_file)
        show("our bridge", "$ openclaw " + " ".join(command[1:]))
        with anyio.fail_after(120):
            async with open_mcp_client(command, gateway.bridge_env(state), name="ours") as mcp:
                init = await mcp.initialize()
                show("initialize", init)
                tools = await mcp.result("tools/list")
                show("tools/list", ", ".join(tool["name"] for tool in tools["tools"]))
                listed = await mcp.call("conversations_list", {})
                show("conversations_list", listed["content"][0]["text"])
                read = await mcp.call("messages_read", {"session_key": SESSION_KEY, "limit": 10})
                lines = []
                for message in read["structuredContent"]["messages"]:
                    content = message.get("content")
                    text = content if isinstance(content, str) else " ".join(
                        block.get("text", f"[{block.get('type')}]") for block in content if isinstance(block, dict)
                    )
                    lines.append(f"{message.get('role'):>9}: {text}")
                show("messages_read", "\n".join(lines))

                text = f"hello from the demo {uuid.uuid4().hex[:8]}"
                waiting = await mcp.start(
                    "tools/call",
                    {"name": "events_wait", "arguments": {"session_key": SESSION_KEY, "timeout_ms": 60000}},
                )
                async with gateway.operator("owner") as owner:
                    show("events_wait pending; another Gateway client (owner) runs chat.send", repr(text))
                    sent = await owner.chat_send(text)
                    answer = await waiting.response()
                    event = answer["result"]["structuredContent"]["event"]
                    show(
                        f"events_wait → {answer['result']['content'][0]['text']}",
                        {key: value for key, value in event.items() if key != "raw"},
                    )
                    notified = await mcp.wait_notification(
                        lambda message: message.get("method") == "notifications/claude/channel"
                    )
                    show("notifications/claude/channel", notified["params"])
                    await owner.agent_wait(sent["runId"])
                    reply = await mcp.call(
                        "events_wait",
                        {"session_key": SESSION_KEY, "after_cursor": event["cursor"], "timeout_ms": 30000},
                    )
                    show("the agent run's reply (from the mock model) → " + reply["content"][0]["text"])
                polled = await mcp.call("events_poll", {"session_key": SESSION_KEY})
                show(
                    "events_poll",
                    "\n".join(
                        f"cursor {e['cursor']}: {e.get('role')}: {e.get('text')}"
                        for e in polled["structuredContent"]["events"]
                    ),
                )
        show("bridge stopped", f"exit status {mcp.process.returncode}; stderr: {mcp.stderr_text.strip() or '(empty)'}")
    show("Gateway stopped")


reference = find_reference()
if reference is None:
    sys.exit("the reference OpenClaw 2026.9.6 is not installed")
anyio.run(demo, reference)
PY
