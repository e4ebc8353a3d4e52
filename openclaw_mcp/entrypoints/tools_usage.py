"""``--help`` for the tool servers ``openclaw-plugin-tools`` and ``openclaw-tools`` (issue 36; beyond the reference).

The reference ignores every argument but ``--openclaw-agent-id`` (plugin-tools.md §1.2, openclaw-tools.md §1.2), so
``--help`` starts the server, which then waits silently for an MCP client on stdin. Here ``-h``/``--help`` print
the usage on stdout (exit 0) and any other argument starting with ``-`` prints one line on stderr (exit 2) —
before anything else runs. The reference's launch texts are untouched: a bad ``--openclaw-agent-id`` (missing
value, value starting with ``--``, repeated flag) still fails with the reference's line and exit 1, and
arguments not starting with ``-`` are still ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TextIO

from openclaw_mcp.domain.plugin_tools.launch import AGENT_ID_FLAG, LaunchError, parse_agent_id_flag

__all__ = ["HELP_FLAGS", "OPENCLAW_TOOLS_USAGE", "PLUGIN_TOOLS_USAGE", "usage_exit"]

HELP_FLAGS: Final = ("-h", "--help")

PLUGIN_TOOLS_USAGE: Final = """\
Usage: openclaw-plugin-tools [--openclaw-agent-id <id>]

Serve the tools of the installed OpenClaw plugins as an MCP server over stdio. Start it from an MCP client
(Claude Code, Codex, ...): it waits for the client's messages on stdin; stdout carries MCP messages only and
logs go to stderr. stdin end, SIGINT or SIGTERM stop it.

Options:
  --openclaw-agent-id <id>  The OpenClaw agent the tools run for (needed when the session key does not
                            name its agent: agent:<id>:...)
  -h, --help                Show this help and exit

Environment:
  OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY  Optional: the agent session the tools run in (without it, and
                                        without --openclaw-agent-id, they run with no session)
  OPENCLAW_CONFIG_PATH, OPENCLAW_STATE_DIR  Where the OpenClaw config is (default: ~/.openclaw/openclaw.json)"""

OPENCLAW_TOOLS_USAGE: Final = """\
Usage: OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY=<key> openclaw-tools [--openclaw-agent-id <id>]
       OPENCLAW_TOOLS_MCP_TOOLS=openclaw openclaw-tools [--openclaw-agent-id <id>]

Serve OpenClaw's built-in tools (automations, openclaw) as an MCP server over stdio. Start it from an MCP
client (Claude Code, Codex, ...): it waits for the client's messages on stdin; stdout carries MCP messages
only and logs go to stderr. stdin end, SIGINT or SIGTERM stop it.

The session key is required by default: the default selection (cron: the automations tool) refuses to
start without it ("OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY is required"). Only OPENCLAW_TOOLS_MCP_TOOLS=openclaw
serves without one.

Options:
  --openclaw-agent-id <id>  The OpenClaw agent the tools run for (needed when the session key does not
                            name its agent: agent:<id>:...)
  -h, --help                Show this help and exit

Environment:
  OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY  The agent session key (required unless OPENCLAW_TOOLS_MCP_TOOLS=openclaw)
  OPENCLAW_TOOLS_MCP_TOOLS              Comma list of: cron, openclaw (default: cron)
  OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_SURFACE  cli (default) or gateway
  OPENCLAW_CONFIG_PATH, OPENCLAW_STATE_DIR  Where the OpenClaw config is (default: ~/.openclaw/openclaw.json)
  OPENCLAW_GATEWAY_URL, OPENCLAW_GATEWAY_TOKEN  The Gateway the automations tool calls"""


def _request(argv: Sequence[str]) -> str | None:
    """``"--help"`` for a help flag, the first unknown flag, or ``None`` (serve as the reference does)."""
    try:
        parse_agent_id_flag(argv)
    except LaunchError:
        return None  # the reference's launch error wins
    args = list(argv)
    index = 0
    while index < len(args):
        token = args[index]
        if token == AGENT_ID_FLAG:
            index += 2
            continue
        if token in HELP_FLAGS:
            return "--help"
        if token.startswith("-") and token != "-":
            return token
        index += 1
    return None


def usage_exit(program: str, usage: str, argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int | None:
    """The exit status when ``argv`` asks for help (usage on ``stdout``, 0) or holds an unknown flag (one line on
    ``stderr``, 2); ``None`` when the server should start."""
    request = _request(argv)
    if request is None:
        return None
    if request == "--help":
        stdout.write(usage + "\n")
        stdout.flush()
        return 0
    stderr.write(f"{program}: unknown option '{request}' (see {program} --help)\n")
    stderr.flush()
    return 2
