"""Claude Code (``.mcp.json``, ``~/.claude.json``) and Claude Desktop (``claude_desktop_config.json``).

Entries ``{"mcpServers": {name: {type: stdio|http|sse, command, args, env, url, headers}}}``; Claude Code
expands ``${VAR}`` and ``${VAR:-default}`` in command, args, env, url and headers. Import follows
``openclaw migrate claude`` (runtime-projection §9.1): only the keys of :data:`WHITELIST` are read, and a name
defined by several sources is a conflict.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from openclaw_mcp.domain.interchange._json import JsonFormat, import_document
from openclaw_mcp.domain.interchange.model import Imported

__all__ = ["CLAUDE", "CLAUDE_DESKTOP", "WHITELIST", "combine_sources", "duplicate_names"]

WHITELIST: Final = (
    "command", "args", "env", "cwd", "workingDirectory", "url", "type", "transport", "headers",
    "connectionTimeoutMs",
)  # fmt: skip

CLAUDE: Final = JsonFormat("claude", "Claude Code", "mcpServers", "dollar", whitelist=WHITELIST)
CLAUDE_DESKTOP: Final = JsonFormat("claude-desktop", "Claude Desktop", "mcpServers", "dollar", whitelist=WHITELIST)


def duplicate_names(sources: Sequence[Collection[str]]) -> set[str]:
    """Names that more than one source defines."""
    seen: set[str] = set()
    twice: set[str] = set()
    for names in sources:
        for name in set(names):
            (twice if name in seen else seen).add(name)
    return twice


def combine_sources(sources: Sequence[Imported]) -> Imported:
    """The four migrate-claude sources in order; a name several of them define is skipped in all of them
    with the conflict ``multiple Claude MCP sources define "<name>"``."""
    twice = duplicate_names([[server.name for server in source.servers] for source in sources])
    out = Imported()
    reported: set[str] = set()
    for source in sources:
        out.problems += source.problems
        out.warnings += source.warnings
        out.manual += source.manual
        for server in source.servers:
            if server.name in twice:
                if server.name not in reported:
                    reported.add(server.name)
                    out.conflicts.append((server.name, f'multiple Claude MCP sources define "{server.name}"'))
                continue
            out.servers.append(server)
    return out


def import_claude(
    file: str, document: object, label: str, *, whole_fallback: bool, top_key: str = "mcpServers"
) -> Imported:
    """One Claude source: ``document[top_key]`` (else the whole object for a project ``.mcp.json``)."""
    spec = (
        CLAUDE
        if top_key == "mcpServers"
        else JsonFormat("claude", "Claude Code", top_key, "dollar", whitelist=WHITELIST)
    )
    return import_document(spec, file, document, label, whole_fallback=whole_fallback)
