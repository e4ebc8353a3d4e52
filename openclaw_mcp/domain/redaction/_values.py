"""Whether a string carries a secret by the project's redactors: the URL redactor (userinfo, sensitive query
values, Telegram bot paths — cli-registry §4.3) or the generic text redactor (vendor token prefixes,
``Bearer``, ``NAME=value`` assignments, PEM keys, …) would change it. For callers that hide a whole value
rather than print a masked copy of it (the settings page's sentinel, mcp-settings-page §2.2)."""

from __future__ import annotations

import functools

from openclaw_mcp.domain.redaction._text import redact_sensitive_text
from openclaw_mcp.domain.redaction._url import redact_sensitive_url

__all__ = ["holds_secret"]


@functools.lru_cache(maxsize=8192)
def holds_secret(text: str) -> bool:
    """``True`` when the URL redactor or the text redactor would change ``text`` (cached: the same config
    strings are asked about snapshot after snapshot)."""
    return redact_sensitive_url(text) != text or redact_sensitive_text(text) != text
