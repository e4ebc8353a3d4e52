"""The settings page's tool pins (issue 35): the pinned servers (read from the store, never connecting), the
Review of one server (an explicit click: connects and lists it, as ``openclaw mcp review <name> --json``) and its
Accept (as ``review --accept``, limited to what the page showed: see
:func:`application.settings_page.accepted_as_shown`). Servers that were never pinned do not appear."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.errors import CommandError, ServerNotFoundError
from openclaw_mcp.application.registry import Registry, not_found_message
from openclaw_mcp.application.settings_page import accepted_as_shown, listed_fingerprint
from openclaw_mcp.domain.redaction import redact_text_line
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.pins_cli import accept_review, iso_ms, review_server
from openclaw_mcp.entrypoints.settings import Settings

if TYPE_CHECKING:
    from openclaw_mcp.application.tool_pins import PinReview, ReviewedTool

__all__ = ["PinsPage"]


class PinsPage:
    """The pin views of one ``openclaw mcp ui`` process over its config and state database."""

    def __init__(self, registry: Registry, settings: Settings) -> None:
        self._registry = registry
        self._settings = settings

    async def pinned(self) -> dict[str, Any]:
        """``GET /api/mcp/pins``: the configured servers that are pinned (store only; nothing is created)."""
        analysis = await self._registry.load()
        stored = {server.server: server for server in await composition.tool_pins(self._settings).pinned_servers()}
        names = self._registry.sorted_names(dict.fromkeys(name for name in stored if name in analysis.servers))
        servers = [
            {
                "name": name,
                "tools": stored[name].tool_count,
                "pinnedAt": iso_ms(stored[name].pinned_at),
                "pinnedBy": stored[name].pinned_by,
            }
            for name in names
        ]
        return {"ok": True, "servers": servers}

    async def _review(self, name: str) -> PinReview:
        analysis = await self._registry.load()
        if name not in analysis.servers:
            raise ServerNotFoundError(not_found_message(name, self._registry.path))
        quiet = Console(io.StringIO(), io.StringIO())  # the runtime's lines: the review answers for itself
        try:
            return await review_server(self._registry, analysis.servers, name, self._settings, quiet)
        except CommandError as exc:  # e.g. a listing failure quoting the server: redacted, as the CLI prints it
            raise CommandError(redact_text_line(str(exc))) from exc

    async def review(self, name: str) -> dict[str, Any]:
        """``POST /api/mcp/servers/<name>/review``: what ``openclaw mcp review <name> --json`` prints, each tool
        with the fingerprint of its listed definition (``null``: removed) for the Accept."""
        return _document(await self._review(name))

    async def accept(self, name: str, shown: Mapping[str, str | None]) -> dict[str, Any]:
        """``POST /api/mcp/servers/<name>/accept``: a fresh review, then ``review --accept`` of the tools the page
        showed (each still as shown), and what is left to review."""
        review = await self._review(name)
        accepted = await accept_review(self._settings, review, accepted_as_shown(review, shown))
        count = len(accepted)
        document = _document(review, [item for item in review.tools if item.tool not in accepted])
        return {
            **document,
            "accepted": list(accepted),
            "message": f"Accepted {count} {'change' if count == 1 else 'changes'}: {', '.join(accepted)}.",
        }


def _document(review: PinReview, tools: list[ReviewedTool] | None = None) -> dict[str, Any]:
    server = review.pins.server
    return {
        "ok": True,
        "server": server.server,
        "pinnedAt": iso_ms(server.pinned_at),
        "pinnedBy": server.pinned_by,
        "tools": [
            {
                "tool": item.tool,
                "change": item.change,
                "diff": item.diff,
                "fingerprint": listed_fingerprint(review, item.tool),
            }
            for item in (review.tools if tools is None else tools)
        ],
    }
