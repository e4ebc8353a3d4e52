"""The POSIX shell quoting rule, defined once: a word is printed as it is when it matches a "plain" pattern, else
wrapped in single quotes with each ``'`` inside written ``'\\''``. Every suggested command (``openclaw config set
'mcp.servers[a]' …``, the settings page's ``openclaw mcp probe 'o'\\''brien'``) and the bash/zsh completion
scripts quote with it; only the plain pattern differs between callers (the reference's own sets).

fish and PowerShell quote differently (``entrypoints.cli.completion``): those rules are not this one.
"""

from __future__ import annotations

import re

__all__ = ["POSIX_PLAIN_WORD", "posix_quote", "posix_single_quote"]

POSIX_PLAIN_WORD = re.compile(r"[A-Za-z0-9_/:=.,@%+-]+")
"""The characters a suggested CLI argument may hold unquoted (the reference's shell-safe set)."""


def posix_single_quote(value: str) -> str:
    """``value`` in single quotes, each ``'`` written ``'\\''`` (always quoted, also when empty)."""
    return "'" + value.replace("'", "'\\''") + "'"


def posix_quote(value: str, plain: re.Pattern[str] = POSIX_PLAIN_WORD) -> str:
    """``value`` as one shell word: as it is when it fully matches ``plain`` (never when empty), else
    :func:`posix_single_quote`."""
    if plain.fullmatch(value):
        return value
    return posix_single_quote(value)
