"""The reference's ``openclaw migrate claude`` plan for MCP servers (spec runtime-projection §9.1): the four
Claude sources in order, one config-patch item per server, conflicts for names defined twice or already
configured. :func:`domain.interchange.claude.combine_sources` applies the same rule to ``openclaw mcp import``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from openclaw_mcp.domain.interchange.claude import WHITELIST, duplicate_names

__all__ = [
    "CLAUDE_SOURCES",
    "MigrationItem",
    "claude_source_servers",
    "migrate_claude_items",
    "sanitize_item_id",
]

#: (source id, label) in the order the reference reads them.
CLAUDE_SOURCES: Final = (
    ("project-mcp", "project .mcp.json"),
    ("user-claude-json", "user ~/.claude.json"),
    ("user-claude-json-project", "project entry in ~/.claude.json"),
    ("desktop", "Claude Desktop config"),
)
_LABELS: Final = dict(CLAUDE_SOURCES)
_UNSAFE_RUN: Final = re.compile(r"[^a-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class MigrationItem:
    """One planned config patch: ``value`` is ``{name: server}`` for ``target`` ``mcp.servers.<name>``;
    ``conflict`` is the reason it is not applied (``None``: it is)."""

    id: str
    source: str
    name: str
    target: str
    value: dict[str, Any]
    message: str
    conflict: str | None = None


def sanitize_item_id(text: str) -> str:
    """Trimmed, lowercased, runs outside ``[a-z0-9._-]`` → ``-``, no leading or trailing ``-``."""
    return _UNSAFE_RUN.sub("-", text.strip().lower()).strip("-")


def _servers_of(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def claude_source_servers(source_id: str, document: object, project_dir: str = "") -> dict[str, Any]:
    """The raw ``{name: server}`` map one source contributes (the §9.1 table)."""
    doc = document if isinstance(document, dict) else {}
    if source_id == "project-mcp":
        return _servers_of(doc["mcpServers"]) if isinstance(doc.get("mcpServers"), dict) else _servers_of(doc)
    if source_id == "user-claude-json-project":
        projects = doc.get("projects")
        entry = projects.get(project_dir) if isinstance(projects, dict) else None
        return _servers_of(entry.get("mcpServers")) if isinstance(entry, dict) else {}
    return _servers_of(doc.get("mcpServers"))


def _copied(server: Mapping[str, Any]) -> dict[str, Any]:
    return {key: server[key] for key in WHITELIST if key in server and server[key] is not None}


def migrate_claude_items(
    sources: Sequence[tuple[str, Mapping[str, Any]]], *, existing: Collection[str] = (), overwrite: bool = False
) -> list[MigrationItem]:
    """The plan items of ``(source id, raw servers)`` pairs, in source order: names blank after trimming, non-object
    values and servers with none of the copied keys are skipped; values are copied verbatim."""
    kept: list[tuple[str, str, dict[str, Any]]] = []
    for source_id, servers in sources:
        for raw_name, server in servers.items():
            name = raw_name.strip()
            if not name or not isinstance(server, dict):
                continue
            copied = _copied(server)
            if copied:
                kept.append((source_id, name, copied))
    twice = duplicate_names([[name for source, name, _ in kept if source == sid] for sid, _ in sources])
    items: list[MigrationItem] = []
    for source_id, name, server in kept:
        conflict = None
        if name in twice:
            conflict = f'multiple Claude MCP sources define "{name}"'
        elif name in existing and not overwrite:
            conflict = "target exists"
        items.append(
            MigrationItem(
                id=f"config:mcp-server:{sanitize_item_id(source_id)}:{sanitize_item_id(name)}",
                source=source_id,
                name=name,
                target=f"mcp.servers.{name}",
                value={name: server},
                message=f'Import Claude MCP server "{name}" from {_LABELS.get(source_id, source_id)}.',
                conflict=conflict,
            )
        )
    return items
