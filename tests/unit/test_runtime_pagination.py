"""Bounded pagination (spec client-runtime §4.5, D11; acceptance §11.4 #47–#49)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from openclaw_mcp.application.runtime.errors import LocalRequestTimeout, PaginationError
from openclaw_mcp.application.runtime.pagination import Page, collect_paginated

pytestmark = pytest.mark.asyncio


class Pager:
    """Serves scripted pages and records the cursor of every request."""

    def __init__(self, pages: list[tuple[list[Any], Any]]) -> None:
        self.pages = pages
        self.cursors: list[str | None] = []
        self.timeouts: list[int] = []

    async def __call__(self, cursor: str | None, timeout_ms: int) -> Page:
        self.cursors.append(cursor)
        self.timeouts.append(timeout_ms)
        items, next_cursor = self.pages[min(len(self.cursors) - 1, len(self.pages) - 1)]
        raw: dict[str, Any] = {"tools": items}
        if next_cursor is not None:
            raw["nextCursor"] = next_cursor
        return Page(items=items, next_cursor=next_cursor, raw=raw)


async def collect(load: Any, **caps: Any) -> list[Any]:
    with anyio.fail_after(5):
        return await collect_paginated(
            label="MCP tool listing", item_label="tools", timeout_ms=1500, load_page=load, **caps
        )


async def test_an_empty_string_cursor_continues_and_the_first_page_has_no_cursor() -> None:
    pager = Pager([(["p1"], ""), (["p2"], None)])
    assert await collect(pager) == ["p1", "p2"]
    assert pager.cursors == [None, ""]
    assert pager.timeouts == [1500, 1500]


async def test_a_repeated_cursor_fails_the_listing() -> None:
    pager = Pager([(["a"], "same")])
    with pytest.raises(PaginationError) as caught:
        await collect(pager)
    assert str(caught.value) == "MCP tool listing returned a repeated pagination cursor"
    assert pager.cursors == [None, "same"]


async def test_more_than_128_pages_fail_the_listing() -> None:
    count = 0

    async def endless(cursor: str | None, timeout_ms: int) -> Page:
        nonlocal count
        count += 1
        return Page(items=[count], next_cursor=f"c{count}", raw={"tools": [count], "nextCursor": f"c{count}"})

    with pytest.raises(PaginationError) as caught:
        await collect(endless)
    assert str(caught.value) == "MCP tool listing exceeded 128 pages"
    assert count == 128


async def test_more_than_16384_items_fail_the_listing() -> None:
    pager = Pager([(list(range(16_000)), "next"), (list(range(385)), None)])
    with pytest.raises(PaginationError) as caught:
        await collect(pager)
    assert str(caught.value) == "MCP tool listing exceeded 16384 tools"
    exactly = Pager([(list(range(16_000)), "next"), (list(range(384)), None)])
    assert len(await collect(exactly)) == 16_384


async def test_pages_totalling_more_than_10485760_bytes_fail_the_listing() -> None:
    big = "x" * 6_000_000
    pager = Pager([([big], "next"), ([big], None)])
    with pytest.raises(PaginationError) as caught:
        await collect(pager)
    assert str(caught.value) == "MCP tool listing exceeded 10485760 bytes"


async def test_the_byte_cap_counts_compact_utf8_json_of_each_page() -> None:
    # {"tools":["é"]} is 16 bytes compact (é is two bytes in UTF-8)
    pager = Pager([(["é"], None)])
    assert await collect(pager, max_bytes=16) == ["é"]
    with pytest.raises(PaginationError, match="exceeded 15 bytes"):
        await collect(Pager([(["é"], None)]), max_bytes=15)


async def test_the_overall_deadline_wins_over_a_page_error_that_arrives_after_it() -> None:
    async def slow(cursor: str | None, timeout_ms: int) -> Page:
        await anyio.sleep(timeout_ms / 1000 + 0.05)
        raise LocalRequestTimeout()

    with anyio.fail_after(5), pytest.raises(PaginationError) as caught:
        await collect_paginated(label="MCP prompt listing", item_label="prompts", timeout_ms=50, load_page=slow)
    assert str(caught.value) == "MCP prompt listing timed out after 50ms"


async def test_a_hanging_page_times_out_with_the_listing_label() -> None:
    async def hang(cursor: str | None, timeout_ms: int) -> Page:
        await anyio.sleep_forever()
        raise AssertionError

    with anyio.fail_after(5), pytest.raises(PaginationError) as caught:
        await collect_paginated(label="MCP resource listing", item_label="resources", timeout_ms=40, load_page=hang)
    assert str(caught.value) == "MCP resource listing timed out after 40ms"


async def test_page_errors_before_the_deadline_propagate_unchanged() -> None:
    boom = RuntimeError("MCP error -32603: nope")

    async def fail(cursor: str | None, timeout_ms: int) -> Page:
        raise boom

    with pytest.raises(RuntimeError) as caught:
        await collect(fail)
    assert caught.value is boom


async def test_an_unusable_timeout_is_rejected() -> None:
    with pytest.raises(PaginationError, match="MCP tool listing requires a positive timeout"):
        await collect_paginated(label="MCP tool listing", item_label="tools", timeout_ms=0, load_page=Pager([]))
