"""Pinning and reviewing a server's tools (issue 35): ``openclaw mcp pin`` and ``openclaw mcp review``.

The listing comes from the caller (the CLI connects and lists the server's tools as the server sends them);
this use case classifies it against the server's pins, builds the redacted diffs and writes accepted pins.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.application.ports.tool_pins import ServerPins, ToolPinStore
from openclaw_mcp.domain.tool_pins import PinVerdict, classify, tool_diff, tool_name

__all__ = ["PinReview", "ReviewedTool", "ToolPins", "not_pinned_message"]


def not_pinned_message(server: str) -> str:
    return f'MCP server "{server}" is not pinned. Run openclaw mcp pin {server} first.'


@dataclass(frozen=True, slots=True)
class ReviewedTool:
    """One tool to review: its name, the kind of change (``changed``/``new``/``removed``) and the redacted
    unified diff pinned → listed."""

    tool: str
    change: str
    diff: str


@dataclass(frozen=True, slots=True)
class PinReview:
    """A server's listing against its pins; ``listed``: name → definition as listed (the first occurrence)."""

    pins: ServerPins
    verdict: PinVerdict
    tools: tuple[ReviewedTool, ...]
    listed: Mapping[str, Mapping[str, Any]]

    @property
    def pending(self) -> tuple[str, ...]:
        """Every tool a review can accept: changed, new and removed."""
        return tuple(item.tool for item in self.tools)


def _by_name(listed: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    tools: dict[str, Mapping[str, Any]] = {}
    for tool in listed:
        tools.setdefault(tool_name(tool), tool)
    return tools


class ToolPins:
    """The pin use cases over a :class:`ToolPinStore`; ``by`` is who acts (recorded with each pin)."""

    def __init__(self, store: ToolPinStore, by: str) -> None:
        self._store = store
        self._by = by

    async def pin(self, server: str, listed: Sequence[Mapping[str, Any]]) -> ServerPins:
        """Pin exactly what ``server`` lists now (earlier pins replaced)."""
        return await self._store.pin_server(server, _by_name(listed), by=self._by)

    async def review(self, server: str, listed: Sequence[Mapping[str, Any]], only: Collection[str] = ()) -> PinReview:
        """The changed, new and removed tools (``only``: just these names) with their diffs. ``CommandError``
        when ``server`` is not pinned; ``ToolPinStoreError`` when the store cannot be read."""
        pins = await self._store.read_server(server)
        if pins is None:
            raise CommandError(not_pinned_message(server))
        verdict = classify(pins.fingerprints(), listed)
        tools = _by_name(listed)
        reviewed: list[ReviewedTool] = []
        for name in verdict.held:
            change = verdict.reason(name) or "changed"
            pinned = pins.tools[name].definition if name in pins.tools else None
            reviewed.append(ReviewedTool(name, change, tool_diff(server, name, pinned, tools[name])))
        for name in verdict.removed:
            reviewed.append(ReviewedTool(name, "removed", tool_diff(server, name, pins.tools[name].definition, None)))
        if only:
            reviewed = [item for item in reviewed if item.tool in only]
        return PinReview(pins, verdict, tuple(reviewed), tools)

    async def accept(self, review: PinReview, tools: Collection[str] = ()) -> tuple[str, ...]:
        """Accept what ``review`` showed (``tools``: only these; each must be pending, else ``CommandError`` and
        nothing changes): changed and new tools are pinned as listed, removed ones unpinned. The accepted
        names."""
        pending = review.pending
        unknown = [name for name in tools if name not in pending]
        if unknown:
            server = review.pins.server.server
            raise CommandError(f'Tool "{unknown[0]}" of MCP server "{server}" has nothing to review.')
        chosen = tuple(name for name in pending if not tools or name in tools)
        removed = set(review.verdict.removed)
        upserts = {name: review.listed[name] for name in chosen if name not in removed}
        deletes = frozenset(name for name in chosen if name in removed)
        if chosen:
            await self._store.update_pins(review.pins.server.server, upserts, deletes, by=self._by)
        return chosen
