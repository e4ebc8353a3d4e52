"""Codex approval projection of MCP servers and tools (spec cli-registry §2.2 ``codex``, §6.2)."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["ANNOTATION_HINTS", "codex_annotations", "codex_approval_mode"]

ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_MODES = ("auto", "prompt", "approve")
_OPENCLAW_LOOPBACK = re.compile(r"^https?://(?:127\.0\.0\.1|localhost):\d+/mcp(?:[?#].*)?$")


def codex_approval_mode(server_name: str, server: object) -> str | None:
    """``codex.defaultToolsApprovalMode``, else the snake_case spelling, else ``approve`` for the
    loopback ``openclaw`` server, else ``None`` (callers show ``auto``)."""
    if not isinstance(server, Mapping):
        return None
    codex = server.get("codex")
    codex = codex if isinstance(codex, dict) else {}
    for key in ("defaultToolsApprovalMode", "default_tools_approval_mode"):
        if codex.get(key) in _MODES:
            return str(codex[key])
    url = server.get("url")
    if server_name == "openclaw" and isinstance(url, str) and _OPENCLAW_LOOPBACK.match(url):
        return "approve"
    return None


def codex_annotations(annotations: object) -> dict[str, bool]:
    """The boolean safety hints of an MCP tool's ``annotations``."""
    if not isinstance(annotations, Mapping):
        return {}
    return {key: annotations[key] for key in ANNOTATION_HINTS if isinstance(annotations.get(key), bool)}
