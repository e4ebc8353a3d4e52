"""Control characters made visible in human-readable output (issue 14 item 7): a server name or a message
carrying a newline, a carriage return or a terminal escape sequence must not rewrite the user's terminal.
JSON output is unaffected (JSON escapes them itself)."""

from __future__ import annotations

import re

__all__ = ["printable", "printable_lines"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROLS_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or f"\\x{ord(char):02x}"


def printable(text: str) -> str:
    """``text`` with every control character escaped (``\\n``, ``\\r``, ``\\t``, ``\\x1b`` …): one line."""
    return _CONTROLS.sub(_escape, text)


def printable_lines(text: str) -> str:
    """``text`` with every control character but line feeds and tabs escaped (a block of lines)."""
    return _CONTROLS_BUT_LINES.sub(_escape, text)
