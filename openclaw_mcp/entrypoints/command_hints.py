"""The reference's ``formatCliCommand``: every ``openclaw …`` command a message suggests names the profile or
container the user is in (``Run openclaw --profile work mcp list …``, ``Try: openclaw --container box mcp --help``).

``--container <hint>`` when ``$OPENCLAW_CONTAINER_HINT`` is a valid container name (set inside a container run),
else ``--profile <name>`` for a non-default ``$OPENCLAW_PROFILE`` (set by ``--profile`` / ``--dev``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from openclaw_mcp.jscompat.text import js_trim

__all__ = ["format_cli_command", "format_command_hints", "hint_addition"]

_CONTAINER_HINT = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}")
_PROFILE_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}")
_COMMAND_IN_TEXT = re.compile(r"(?<![\w./-])openclaw (?=[a-z])")


def hint_addition(env: Mapping[str, str]) -> str | None:
    """``--container <hint>`` / ``--profile <name>`` for the environment, or ``None`` (no rewriting)."""
    container = js_trim(env.get("OPENCLAW_CONTAINER_HINT") or "")
    if container and _CONTAINER_HINT.fullmatch(container):
        return f"--container {container}"
    profile = js_trim(env.get("OPENCLAW_PROFILE") or "")
    if profile and profile.lower() != "default" and _PROFILE_NAME.fullmatch(profile):
        return f"--profile {profile}"
    return None


def format_cli_command(command: str, env: Mapping[str, str]) -> str:
    """One ``openclaw …`` command with the profile / container option after ``openclaw``."""
    addition = hint_addition(env)
    if addition is None or not command.startswith("openclaw ") or " --profile" in command or " --container" in command:
        return command
    return f"openclaw {addition}{command[len('openclaw') :]}"


def format_command_hints(text: str, addition: str) -> str:
    """Every ``openclaw <command>`` suggested in a message's text, with ``addition`` after ``openclaw``."""
    return _COMMAND_IN_TEXT.sub(f"openclaw {addition} ", text)
