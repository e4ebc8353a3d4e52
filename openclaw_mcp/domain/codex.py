"""Codex approval projection of MCP servers and tools (spec cli-registry §2.2 ``codex``, §6.2)."""

from __future__ import annotations

import re

__all__ = [
    "ANNOTATION_HINTS",
    "codex_annotations",
    "codex_approval_mode",
    "codex_approval_remedy",
    "codex_requires_approval",
]

ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_MODES = ("auto", "prompt", "approve")
_REMEDY_NAME = re.compile(r"[\w.][\w.-]{0,127}", re.ASCII)
_OPENCLAW_LOOPBACK = re.compile(r"^https?://(?:127\.0\.0\.1|localhost):\d+/mcp(?:[?#].*)?$")


def codex_approval_mode(server_name: str, server: object) -> str | None:
    """``codex.defaultToolsApprovalMode``, else the snake_case spelling, else ``approve`` for the
    loopback ``openclaw`` server, else ``None`` (callers show ``auto``)."""
    if not isinstance(server, dict):
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
    if not isinstance(annotations, dict):
        return {}
    return {key: annotations[key] for key in ANNOTATION_HINTS if isinstance(annotations.get(key), bool)}


def codex_requires_approval(
    mode: str | None = None, annotations: object = None, *, full_permission: bool = False
) -> bool:
    """Whether the Codex harness asks before an MCP tool call (spec runtime-projection §2.3, informative):
    ``approve`` never, ``prompt`` always, ``auto`` by the tool's hints. Without a mode: ``approve`` under a
    full-permission posture, else ``auto``."""
    effective = mode or ("approve" if full_permission else "auto")
    if effective == "approve":
        return False
    if effective == "prompt":
        return True
    hints = annotations if isinstance(annotations, dict) else {}
    if hints.get("destructiveHint") is True:
        return True
    if hints.get("readOnlyHint") is True:
        return False
    return not (hints.get("destructiveHint") is False and hints.get("openWorldHint") is False)


def codex_approval_remedy(server_name: object) -> str:
    """The hint shown with an approval prompt (a name that is not a plain identifier becomes ``<server>``)."""
    name = server_name if isinstance(server_name, str) and _REMEDY_NAME.fullmatch(server_name) else "<server>"
    return (
        f"Run openclaw mcp configure {name} --approval approve for a trusted server, "
        "or change the session permission mode."
    )
