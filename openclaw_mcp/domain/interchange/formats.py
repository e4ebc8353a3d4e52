"""The client formats: names, file syntax and default locations."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["EXPORT_FORMATS", "IMPORT_SOURCES", "FileSyntax", "Locations", "default_export_path", "default_import_paths"]

FileSyntax = Literal["json", "jsonc", "toml", "yaml"]

EXPORT_FORMATS: Final = ("claude", "codex", "gemini", "cursor", "vscode")
IMPORT_SOURCES: Final = ("claude", "claude-desktop", "codex", "cursor", "vscode", "gemini", "hermes")

SYNTAX: Final[dict[str, FileSyntax]] = {
    "claude": "json", "claude-desktop": "json", "codex": "toml", "cursor": "json", "vscode": "jsonc",
    "gemini": "json", "hermes": "yaml",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Locations:
    """Where the defaults are: the working directory, the user's home, ``CODEX_HOME`` (``None``: unset) and
    whether the host is macOS."""

    cwd: str
    home: str
    codex_home: str | None = None
    macos: bool = False

    def codex_config(self) -> str:
        base = self.codex_home if self.codex_home else posixpath.join(self.home, ".codex")
        return posixpath.join(base, "config.toml")

    def claude_desktop(self) -> str:
        if self.macos:
            return posixpath.join(self.home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
        return posixpath.join(self.home, ".config", "Claude", "claude_desktop_config.json")


def default_export_path(fmt: str, where: Locations) -> str:
    if fmt == "codex":
        return where.codex_config()
    relative = {
        "claude": ".mcp.json",
        "gemini": ".gemini/settings.json",
        "cursor": ".cursor/mcp.json",
        "vscode": ".vscode/mcp.json",
    }[fmt]
    return posixpath.join(where.cwd, relative)


def default_import_paths(source: str, where: Locations) -> list[str]:
    """The files an import without FILE reads (Claude: the project ``.mcp.json``, ``~/.claude.json`` (twice:
    ``mcpServers`` and ``projects[<cwd>].mcpServers``) and the Claude Desktop config)."""
    if source == "claude":
        claude_json = posixpath.join(where.home, ".claude.json")
        return [posixpath.join(where.cwd, ".mcp.json"), claude_json, claude_json, where.claude_desktop()]
    if source == "claude-desktop":
        return [where.claude_desktop()]
    if source == "hermes":
        return [posixpath.join(where.home, ".hermes", "config.yaml")]
    return [default_export_path(source, where)]
