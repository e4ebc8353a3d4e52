"""``openclaw mcp pin`` and ``openclaw mcp review`` (issue 35, ours only), and the pin facts ``status`` adds
for pinned servers (read from the store, without connecting).

``pin``/``review`` connect through the client runtime with pinning switched off (they must see every tool the
server lists, held or not), then page ``tools/list`` themselves to get the definitions exactly as listed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.application.ports.tool_pins import ToolPinStoreError
from openclaw_mcp.application.registry import Registry, not_found_message
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.options import PinOptions, ReviewOptions
from openclaw_mcp.entrypoints.cli.printable import printable
from openclaw_mcp.entrypoints.settings import Settings

if TYPE_CHECKING:
    from openclaw_mcp.application.tool_pins import PinReview, ToolPins

__all__ = ["accept_review", "annotate_status", "cmd_pin", "cmd_review", "iso_ms", "review_server"]

_MAX_PAGES = 100


def iso_ms(ms: int) -> str:
    """Epoch ms as ``2026-01-01T00:00:00.000Z``."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


async def _listings(
    servers: Mapping[str, dict[str, Any]], settings: Settings, console: Console
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
    """Each server's tools exactly as listed, and the failure message of each server that could not be listed."""
    from openclaw_mcp.application.runtime.errors import SERVER_FAILURES
    from openclaw_mcp.entrypoints.runtime_api import RuntimeHost, SessionMcpRuntime, runtime_container

    def warn(text: str) -> None:
        console.err(f"[bundle-mcp] {text}")

    container = runtime_container(settings)
    from dependency_injector import providers  # after entrypoints.containers imported it without its extras

    container.tool_pins.override(providers.Object(None))  # see every listed tool, held or not
    runtime = SessionMcpRuntime(
        servers, session_id="openclaw-cli-mcp-pin", host=RuntimeHost(warn=warn, container=container)
    )
    listings: dict[str, list[dict[str, Any]]] = {}
    failures: dict[str, str] = {}
    async with runtime:
        catalog = await runtime.session.get_catalog()
        messages = {d.server_name: d.message for d in catalog.diagnostics or ()}
        for name in servers:
            entry = catalog.servers.get(name)
            if entry is None:
                failures[name] = messages.get(name, "could not connect to this server")
                continue
            tools: list[dict[str, Any]] = []
            cursor: str | None = None
            try:
                for _ in range(_MAX_PAGES):
                    page = await runtime.session.list_tools(name, None if cursor is None else {"cursor": cursor})
                    listed = page.get("tools")
                    tools += [tool for tool in listed if isinstance(tool, dict)] if isinstance(listed, list) else []
                    following = page.get("nextCursor")
                    if not isinstance(following, str) or not following:
                        break
                    cursor = following
            except SERVER_FAILURES as exc:
                if entry.tools is not None:  # a server without the tools capability simply has none
                    failures[name] = str(exc) or type(exc).__name__
                    continue
            listings[name] = tools
    return listings, failures


def _selected(registry: Registry, servers: Mapping[str, dict[str, Any]], name: str) -> dict[str, dict[str, Any]]:
    if name not in servers:
        raise CommandError(not_found_message(name, registry.path))
    if servers[name].get("enabled") is False:
        raise CommandError(
            f'MCP server "{name}" is disabled in {registry.path}. Run openclaw mcp configure {name} --enable first.'
        )
    return {name: servers[name]}


def _pins(settings: Settings) -> ToolPins:
    from openclaw_mcp.application.tool_pins import ToolPins

    return ToolPins(composition.tool_pins(settings), settings.user)


async def cmd_pin(registry: Registry, options: PinOptions, console: Console, settings: Settings) -> int:
    analysis = await registry.load()
    if (options.name is None) == (not options.all):
        raise CommandError("pin: give one MCP server name or --all.")
    if options.name is not None:
        selected = _selected(registry, analysis.servers, options.name)
    else:
        selected = {name: server for name, server in analysis.servers.items() if server.get("enabled") is not False}
    listings, failures = await _listings(selected, settings, console)
    pins = _pins(settings)
    pinned: dict[str, Any] = {}
    try:
        for name in registry.sorted_names(listings):
            stored = await pins.pin(name, listings[name])
            pinned[name] = {
                "tools": list(stored.tools),
                "pinnedAt": iso_ms(stored.server.pinned_at),
                "pinnedBy": stored.server.pinned_by,
            }
    except ToolPinStoreError as exc:
        raise CommandError(f"pin store unwritable: {exc}") from exc
    if options.json:
        console.json({"path": registry.path, "pinned": pinned, "failed": failures})
    else:
        lines = []
        for name, item in pinned.items():
            count = len(item["tools"])
            listed = f": {', '.join(printable(tool) for tool in item['tools'])}" if count else ""
            lines.append(
                f'Pinned {count} {"tool" if count == 1 else "tools"} of MCP server "{printable(name)}"{listed}.'
            )
        if not pinned and not failures:
            lines.append(f"No enabled MCP servers in {registry.path}.")
        if lines:
            console.out("\n".join(lines))
    for name, message in failures.items():
        console.err(f"! {printable(name)}: {message}")
    return 1 if failures else 0


async def review_server(
    registry: Registry,
    servers: Mapping[str, dict[str, Any]],
    name: str,
    settings: Settings,
    console: Console,
    only: Collection[str] = (),
) -> PinReview:
    """``review <name>``: connect, list and review ``name`` against its pins (also the settings page's Review).
    ``CommandError`` for an unknown, disabled or unpinned server or one that cannot be listed;
    ``ToolPinStoreError`` when the store cannot be read."""
    selected = _selected(registry, servers, name)
    if await composition.tool_pins(settings).read_server(name) is None:  # before connecting
        from openclaw_mcp.application.tool_pins import not_pinned_message

        raise CommandError(not_pinned_message(name))
    listings, failures = await _listings(selected, settings, console)
    if name in failures:
        raise CommandError(f'MCP server "{name}" could not be listed: {failures[name]}')
    return await _pins(settings).review(name, listings[name], only)


async def accept_review(settings: Settings, review: PinReview, tools: Collection[str] = ()) -> tuple[str, ...]:
    """``review --accept``: pin what ``review`` showed (``tools``: only these); the accepted names."""
    return await _pins(settings).accept(review, tools)


async def cmd_review(registry: Registry, options: ReviewOptions, console: Console, settings: Settings) -> int:
    analysis = await registry.load()
    name = options.name
    try:
        review = await review_server(registry, analysis.servers, name, settings, console, options.tools)
        accepted: tuple[str, ...] = ()
        if options.accept:
            accepted = await accept_review(settings, review, options.tools)
    except ToolPinStoreError as exc:
        raise CommandError(f"pin store unreadable: {exc}") from exc
    server = review.pins.server
    if options.json:
        document: dict[str, Any] = {
            "server": name,
            "pinnedAt": iso_ms(server.pinned_at),
            "pinnedBy": server.pinned_by,
            "tools": [{"tool": item.tool, "change": item.change, "diff": item.diff} for item in review.tools],
        }
        if options.accept:
            document["accepted"] = list(accepted)
        console.json(document)
        return 0
    lines = [f'MCP tool review for "{printable(name)}" (pinned {iso_ms(server.pinned_at)} by {server.pinned_by}):']
    if not review.tools:
        lines.append("No changes since the server was pinned.")
    for item in review.tools:
        lines.append(f"{item.change}: {printable(item.tool)}")
        if item.diff:
            lines.append(item.diff)
    if options.accept:
        if accepted:
            lines.append(
                f"Accepted {len(accepted)} {'change' if len(accepted) == 1 else 'changes'}: {', '.join(accepted)}."
            )
        else:
            lines.append("Nothing to accept.")
    elif review.tools:
        lines.append(f"Accept with: openclaw mcp review {name} --accept [TOOL...]")
    console.out("\n".join(lines))
    return 0


async def annotate_status(entries: list[dict[str, Any]], settings: Settings, console: Console) -> None:
    """``status``: each pinned server's entry gains ``pins`` (tool count, when, by whom), from the store; an
    unreadable store is one line on stderr. Nothing changes for servers that were never pinned."""
    try:
        pinned = {server.server: server for server in await composition.tool_pins(settings).pinned_servers()}
    except ToolPinStoreError as exc:
        console.err(f"pin store unreadable: {exc}")
        return
    for entry in entries:
        server = pinned.get(entry["name"])
        if server is not None:
            entry["pins"] = {
                "tools": server.tool_count,
                "pinnedAt": iso_ms(server.pinned_at),
                "pinnedBy": server.pinned_by,
            }
