"""The Claude channel mode (spec serve-bridge §3.3, §4.1, §8.1): what ``serve`` needs before ``initialize`` is
answered, kept apart from the event routing of :mod:`domain.bridge.channel` (which re-exports these names) so
that start-up does not import the queue and the approval rules.

upstream: ``mcp-cli.ts`` (the ``--claude-channel-mode`` value), ``channel-tools.ts``
(``getChannelMcpCapabilities``).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from openclaw_mcp.jscompat.jsjson import js_to_string
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "CLAUDE_CHANNEL_MODES",
    "INVALID_CHANNEL_MODE_MESSAGE",
    "PERMISSION_REQUEST_METHOD",
    "ClaudeChannelMode",
    "InvalidClaudeChannelMode",
    "experimental_capabilities",
    "parse_claude_channel_mode",
]

ClaudeChannelMode = Literal["auto", "on", "off"]
CLAUDE_CHANNEL_MODES: Final[tuple[ClaudeChannelMode, ...]] = ("auto", "on", "off")
INVALID_CHANNEL_MODE_MESSAGE: Final = 'Invalid --claude-channel-mode value. Use "auto", "on", or "off".'
PERMISSION_REQUEST_METHOD: Final = "notifications/claude/channel/permission_request"


class InvalidClaudeChannelMode(ValueError):
    """``--claude-channel-mode`` is not ``auto``, ``on`` or ``off``; the message is the reference's."""

    def __init__(self) -> None:
        super().__init__(INVALID_CHANNEL_MODE_MESSAGE)


def parse_claude_channel_mode(value: object = None) -> ClaudeChannelMode:
    """The mode of a ``--claude-channel-mode`` value: numbers and booleans stringified, trimmed, blank or
    missing → ``auto``, lower-cased. Raises :class:`InvalidClaudeChannelMode` for anything else."""
    if isinstance(value, bool | int | float):
        value = js_to_string(value)
    mode = ((js_trim(value) if isinstance(value, str) else "") or "auto").lower()
    for known in CLAUDE_CHANNEL_MODES:
        if mode == known:
            return known
    raise InvalidClaudeChannelMode()


def experimental_capabilities(mode: ClaudeChannelMode) -> dict[str, Any] | None:
    """The ``experimental`` server capabilities: the two Claude channel entries unless the mode is ``off``."""
    if mode == "off":
        return None
    return {"claude/channel": {}, "claude/channel/permission": {}}
