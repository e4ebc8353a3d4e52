"""Who the ``openclaw-plugin-tools`` server runs for: the ``--openclaw-agent-id`` flag and the session key
from the environment (spec plugin-tools.md §1.2, §1.3; upstream ``src/mcp/agent-session-env.ts``,
``src/routing/session-key.ts`` ``parseAgentSessionKey``, ``normalizeAgentId``).

Pure functions of ``argv`` and an environment mapping; a bad launch raises :class:`LaunchError` whose text is
the reference's (the entrypoint prints it after ``plugin-tools-serve: `` and exits 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from openclaw_mcp.domain.tool_policy import normalize_agent_id, parse_session_key_agent
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none

__all__ = [
    "AGENT_ID_FLAG",
    "AGENT_ID_FLAG_ERROR",
    "SESSION_KEY_ENV",
    "SESSION_KEY_ERROR",
    "LaunchError",
    "SessionContext",
    "parse_agent_id_flag",
    "resolve_session_context",
]

AGENT_ID_FLAG: Final = "--openclaw-agent-id"
SESSION_KEY_ENV: Final = "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY"
AGENT_ID_FLAG_ERROR: Final = "--openclaw-agent-id requires one OpenClaw agent owner"
SESSION_KEY_ERROR: Final = (
    f"{SESSION_KEY_ENV} must be a canonical agent session key or have a matching explicit OpenClaw owner"
)


class LaunchError(ValueError):
    """The server cannot start for this flag / session key (``str(exc)`` is the reference's text)."""


@dataclass(frozen=True, slots=True)
class SessionContext:
    """``{sessionKey, agentId}``; both ``None`` is the empty context (no session)."""

    session_key: str | None = None
    agent_id: str | None = None

    @property
    def empty(self) -> bool:
        return self.session_key is None


def parse_agent_id_flag(argv: Sequence[str]) -> str | None:
    """The value of ``--openclaw-agent-id`` (trimmed, not yet normalised); ``None`` without the flag. A
    missing or empty value, a value starting with ``--`` or a repeated flag raise :class:`LaunchError`."""
    args = list(argv)
    if AGENT_ID_FLAG not in args:
        return None
    index = args.index(AGENT_ID_FLAG)
    value = js_trim(args[index + 1]) if index + 1 < len(args) else ""
    if not value or value.startswith("--") or AGENT_ID_FLAG in args[index + 1 :]:
        raise LaunchError(AGENT_ID_FLAG_ERROR)
    return value


def resolve_session_context(argv: Sequence[str], env: Mapping[str, str]) -> SessionContext:
    """The session context of a launch (§1.3): the session key from ``$OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY``
    and the agent from the flag or the key. Raises :class:`LaunchError` for a bad flag, a flag without a key,
    a non-canonical key without a flag, or a flag that disagrees with the key's owner."""
    explicit = parse_agent_id_flag(argv)
    session_key = js_trim_or_none(env.get(SESSION_KEY_ENV))
    encoded_owner = parse_session_key_agent(session_key) if session_key else None
    agent_id = normalize_agent_id(explicit) if explicit else encoded_owner
    if (
        (session_key and not agent_id)
        or (encoded_owner and encoded_owner != agent_id)
        or (not session_key and agent_id)
    ):
        raise LaunchError(SESSION_KEY_ERROR)
    return SessionContext(session_key, agent_id) if session_key else SessionContext()
