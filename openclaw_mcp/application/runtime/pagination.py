"""Bounded pagination of MCP list requests (spec client-runtime §4.5, decision D11).

upstream: ``src/agents/mcp-pagination.ts`` ``collectMcpPaginatedItems``. One overall deadline covers the
whole listing; each page request gets the same timeout as its own request timeout. Page 1 is requested
without a cursor, later pages with the previous ``nextCursor`` (an empty string is a valid cursor; ``None``
ends the listing like an absent cursor). Three caps bound what a server can make us hold: pages, items and
the compact-JSON UTF-8 size of all pages.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from openclaw_mcp.application.runtime.errors import SERVER_FAILURES, PaginationError
from openclaw_mcp.domain.transport import resolve_timeout

__all__ = [
    "MAX_LIST_BYTES",
    "MAX_LIST_ITEMS",
    "MAX_LIST_PAGES",
    "LoadPage",
    "Page",
    "collect_paginated",
    "json_utf8_size",
]

MAX_LIST_PAGES = 128
MAX_LIST_ITEMS = 16_384
MAX_LIST_BYTES = 10_485_760


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a listing: its items, its continuation cursor (``None`` = last page) and the raw page
    value whose serialized size counts against the byte cap."""

    items: Sequence[Any]
    next_cursor: str | None
    raw: Any


LoadPage = Callable[[str | None, int], Awaitable[Page]]
"""``load_page(cursor, request_timeout_ms)``: request one page (``cursor`` ``None`` for the first)."""


def json_utf8_size(value: Any) -> int:
    """UTF-8 size of ``value`` as compact JSON (``JSON.stringify`` spacing; number spelling may differ from
    JavaScript by a few bytes for floats, which the caps tolerate)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    return len(text.encode("utf-8", "surrogatepass"))


async def collect_paginated(
    *,
    label: str,
    item_label: str,
    timeout_ms: int | float,
    load_page: LoadPage,
    max_pages: int = MAX_LIST_PAGES,
    max_items: int = MAX_LIST_ITEMS,
    max_bytes: int = MAX_LIST_BYTES,
) -> list[Any]:
    """Collect every item of a paginated listing.

    Raises :class:`PaginationError` with ``<label> timed out after <T>ms``, ``<label> exceeded <N> bytes``,
    ``<label> exceeded <N> <item label>``, ``<label> returned a repeated pagination cursor`` or
    ``<label> exceeded <N> pages``; ``<label> requires a positive timeout`` for an unusable timeout.
    Errors of ``load_page`` propagate unchanged unless they arrive after the overall deadline passed (the
    deadline error wins, as the reference's earlier-armed deadline timer does). Caller cancellation
    propagates.
    """
    timeout = resolve_timeout(timeout_ms, 0)
    if timeout <= 0:
        raise PaginationError(f"{label} requires a positive timeout")
    for name, value in (("maxPages", max_pages), ("maxItems", max_items), ("maxBytes", max_bytes)):
        if value <= 0:
            raise PaginationError(f"{label} {name} must be a positive safe integer")
    timed_out = PaginationError(f"{label} timed out after {timeout}ms")
    deadline = anyio.current_time() + timeout / 1000
    items: list[Any] = []
    with anyio.move_on_after(timeout / 1000) as scope:
        seen: set[str] = set()
        total_bytes = 0
        cursor: str | None = None
        for _ in range(max_pages):
            try:
                page = await load_page(cursor, timeout)
            except SERVER_FAILURES as exc:
                if anyio.current_time() >= deadline:
                    raise timed_out from exc
                raise
            if anyio.current_time() >= deadline:
                raise timed_out
            size = json_utf8_size(page.raw)
            if total_bytes + size > max_bytes:
                raise PaginationError(f"{label} exceeded {max_bytes} bytes")
            total_bytes += size
            for item in page.items:
                if len(items) >= max_items:
                    raise PaginationError(f"{label} exceeded {max_items} {item_label}")
                items.append(item)
            if page.next_cursor is None:
                return items
            if page.next_cursor in seen:
                raise PaginationError(f"{label} returned a repeated pagination cursor")
            seen.add(page.next_cursor)
            cursor = page.next_cursor
        raise PaginationError(f"{label} exceeded {max_pages} pages")
    if scope.cancelled_caught:
        raise timed_out
    raise AssertionError("unreachable")  # pragma: no cover
