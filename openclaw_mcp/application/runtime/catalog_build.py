"""Listing a connected server's tools and composing its catalog (spec client-runtime §4.4 steps 6–9)."""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from openclaw_mcp.application.runtime.connection import Connection
from openclaw_mcp.application.runtime.errors import SERVER_FAILURES, ServerNotConnected
from openclaw_mcp.application.runtime.output_validation import build_output_validator
from openclaw_mcp.application.runtime.pagination import Page, collect_paginated
from openclaw_mcp.application.runtime.services import CATALOG_LIST_TIMEOUT_MS, RuntimeTuning, ServerSpec
from openclaw_mcp.application.runtime.spans import request_scope
from openclaw_mcp.domain.catalog import (
    Catalog,
    Diagnostic,
    build_server_catalog,
    normalize_listed_tools,
    summarize_capabilities,
)
from openclaw_mcp.domain.codex import codex_approval_mode
from openclaw_mcp.domain.filters import normalize_filter
from openclaw_mcp.domain.mcp_eras import catalog_fresh_ms
from openclaw_mcp.domain.redaction import sanitize_for_log
from openclaw_mcp.domain.tool_listing import InvalidToolListing, validate_list_tools_result
from openclaw_mcp.domain.tool_pins import PinReport
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig
from openclaw_mcp.jscompat.text import js_trim

__all__ = ["PinHold", "list_catalog", "list_timeout_ms"]

PinHold = Callable[[list[Any]], Awaitable[tuple[list[Any], PinReport | None]]]
"""Takes a listing, returns it without the held tools and the pinned server's report (``None``: unpinned)."""


def _has_configured_request_timeout(raw: object) -> bool:
    if not isinstance(raw, dict):
        return False
    for key in ("requestTimeoutMs", "timeout"):
        value = raw.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
            return True
    return False


def _is_method_not_found(error: BaseException) -> bool:
    if getattr(error, "code", None) == -32601:
        return True
    text = str(error)
    return "-32601" in text or re.search(r"\b(?:method not found|unknown method)\b", text, re.IGNORECASE) is not None


def _single_tool_problem(message: str) -> str:
    """``MCP tool listing returned an invalid result: tools.0<rest>`` (a one-tool page) → ``<rest>``."""
    _, _, detail = message.partition(": ")
    return detail[len("tools.0") :]


def list_timeout_ms(tuning: RuntimeTuning, definition: object, config: StdioConfig | HttpConfig) -> int:
    """The ``tools/list`` deadline of §4.4 step 6: the tuning override, else the configured request timeout,
    else 1 500 ms."""
    if tuning.catalog_list_timeout_ms is not None:
        return tuning.catalog_list_timeout_ms
    if _has_configured_request_timeout(definition):
        return config.request_timeout_ms
    return CATALOG_LIST_TIMEOUT_MS


async def list_catalog(
    conn: Connection,
    *,
    spec: ServerSpec,
    config: StdioConfig | HttpConfig,
    tuning: RuntimeTuning,
    now: Callable[[], int],
    check_live: Callable[[], None],
    hold: PinHold | None = None,
) -> Catalog:
    """List every tool of the connected ``conn`` and build the server's catalog; set the connection's output
    validators and, on a 2026-07-28 connection, when the listing goes stale (``conn.fresh_until``: the first page's
    arrival plus ``catalog_fresh_ms`` of the pages' ``ttlMs``, protocol-eras §3.4, D-PE6). ``check_live`` raises
    once the runtime is disposed (called after the listing). ``hold`` takes the unreviewed tools of a pinned
    server out of the listing (``application.runtime.pin_gate``; its report goes to the server entry's ``pins``)."""
    name, safe, launch = spec.server_name, spec.safe_server_name, config.description
    client = conn.client
    if client is None:  # pragma: no cover - connected implies a client
        raise ServerNotConnected(name)
    capabilities = summarize_capabilities(client.capabilities)
    dropped: list[Diagnostic] = []
    ttls: list[object] = []
    first_page_at: list[int] = []

    def on_page(page: dict[str, Any]) -> None:
        if not first_page_at:
            first_page_at.append(now())
        ttls.append(page.get("ttlMs"))

    try:
        listed = await _list_all_tools(
            conn, list_timeout_ms(tuning, spec.definition, config), spec, launch, dropped, tuning, on_page
        )
    except SERVER_FAILURES as exc:
        if (
            capabilities.tools is None
            and (capabilities.resources is not None or capabilities.prompts is not None)
            and _is_method_not_found(exc)
        ):
            listed, dropped = [], []
        else:
            raise
    check_live()
    pin_report = None
    if hold is not None:
        listed, pin_report = await hold(listed)
        check_live()
    if conn.modern:
        conn.fresh_until = (first_page_at[0] if first_page_at else now()) + catalog_fresh_ms(ttls)
    tool_filter = normalize_filter(spec.definition.get("toolFilter") if isinstance(spec.definition, dict) else None)
    denied = spec.denied_tool_names
    normalized = normalize_listed_tools(listed, tool_filter, denied)
    if dropped:
        normalized = replace(normalized, listed_count=normalized.listed_count + len(dropped))
    conn.validators = {
        tool: build_output_validator(schema)
        for tool, schema in normalized.output_schemas().items()
        if isinstance(schema, dict)
    }
    catalog = build_server_catalog(
        server_name=name,
        safe_server_name=safe,
        launch_summary=launch,
        request_timeout_ms=config.request_timeout_ms,
        supports_parallel_tool_calls=config.supports_parallel_tool_calls,
        capabilities=capabilities,
        normalized=normalized,
        tool_filter=tool_filter,
        denied_tool_names=denied,
        generated_at=now(),
        codex_approval_mode=codex_approval_mode(name, spec.definition),
    )
    if dropped:
        catalog = replace(catalog, diagnostics=tuple(dropped))
    if pin_report is not None:
        catalog = replace(catalog, servers={name: replace(catalog.servers[name], pins=pin_report)})
    return catalog


async def _list_all_tools(
    conn: Connection,
    timeout_ms: int,
    spec: ServerSpec,
    launch: str,
    dropped: list[Diagnostic],
    tuning: RuntimeTuning,
    on_page: Callable[[dict[str, Any]], None],
) -> list[Any]:
    offset = 0

    async def load_page(cursor: str | None, request_timeout_ms: int) -> Page:
        nonlocal offset
        client = conn.client
        if client is None or not conn.connected:
            raise ServerNotConnected(spec.server_name, conn.disconnect_reason)
        params = None if cursor is None else {"cursor": cursor}
        with request_scope(conn.telemetry, spec.server_name, conn.config, client, "tools/list", params):
            page = await client.request("tools/list", params, timeout_ms=request_timeout_ms)
        tools = _validated_tools(page, offset, spec, launch, dropped)
        on_page(page)
        offset += len(page["tools"])
        next_cursor = page.get("nextCursor")
        return Page(items=tools, next_cursor=next_cursor, raw=page)

    return await collect_paginated(
        label="MCP tool listing",
        item_label="tools",
        timeout_ms=timeout_ms,
        load_page=load_page,
        max_pages=tuning.max_list_pages,
        max_items=tuning.max_list_items,
        max_bytes=tuning.max_list_bytes,
    )


def _validated_tools(page: object, offset: int, spec: ServerSpec, launch: str, dropped: list[Diagnostic]) -> list[Any]:
    """The page's tools after the MCP shape check (D10). A tool whose ``inputSchema`` is unusable is
    dropped alone and reported as ``MCP tool listing dropped tool "<name>": tools.<i>.inputSchema…``
    (beyond the reference, which fails the whole listing); any other problem fails the listing."""
    if not isinstance(page, dict) or not isinstance(page.get("tools"), list):
        validate_list_tools_result(page)
    assert isinstance(page, dict)
    validate_list_tools_result({**page, "tools": []})
    kept: list[Any] = []
    for index, tool in enumerate(page["tools"]):
        try:
            validate_list_tools_result({"tools": [tool]})
        except InvalidToolListing as exc:
            rest = _single_tool_problem(str(exc))
            path = f"tools.{offset + index}{rest}"
            if rest.startswith(".inputSchema"):
                name = sanitize_for_log(js_trim(str(tool.get("name", ""))))
                message = f'MCP tool listing dropped tool "{name}": {path}'
                dropped.append(Diagnostic(spec.server_name, spec.safe_server_name, launch, message))
                continue
            raise InvalidToolListing(f"MCP tool listing returned an invalid result: {path}") from None
        kept.append(tool)
    return kept
