"""Other MCP clients' config files (``openclaw mcp export`` / ``import``): read one parsed, merge entries into
one and write it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.domain.interchange.formats import FileSyntax

__all__ = ["ForeignDocument", "ForeignFileError", "ForeignFiles", "ForeignUpdate", "WrittenFile"]


class ForeignFileError(ApplicationError):
    """A foreign file cannot be read, parsed or written. ``str()`` is one line ``<path>: <reason>``."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ForeignDocument:
    """A parsed foreign file: its path, its parsed value (plain ``dict``/``list``/scalars) and its mode bits."""

    path: str
    data: Any
    mode: int | None = None


@dataclass(frozen=True, slots=True)
class ForeignUpdate:
    """Entries to merge into ``data[top_key]`` (each named entry replaced whole, everything else kept).

    ``inputs``: VS Code ``inputs`` to add (by ``id``); ``private``: the written file and its backup get mode
    0600 (they hold secrets); otherwise an existing file keeps its mode and a new one gets 0644."""

    syntax: FileSyntax
    top_key: str
    entries: dict[str, dict[str, Any]]
    inputs: list[dict[str, Any]] = field(default_factory=list)
    private: bool = False


@dataclass(frozen=True, slots=True)
class WrittenFile:
    """What ``write`` did: the path, the backup of the previous file (``None``: there was none) and whether
    comments of the previous file were lost (JSONC rewritten as JSON)."""

    path: str
    backup: str | None
    comments_dropped: bool = False


class ForeignFiles(Protocol):
    async def read(self, path: str, syntax: FileSyntax) -> ForeignDocument | None:
        """The parsed file, ``None`` when it does not exist. Raises ``ForeignFileError`` (only) when it exists
        but cannot be read or is not valid ``syntax`` (the reason is the parser's one-line message)."""
        ...

    async def write(self, path: str, update: ForeignUpdate) -> WrittenFile:
        """Merge ``update`` into the file (created with its parent directories when absent) and replace it
        atomically: a reader sees the old or the new file, never a mix. An existing file is first copied to
        ``<path>.bak`` (overwriting an older backup). Raises ``ForeignFileError`` (only) when the existing file
        cannot be parsed (nothing is written then) or the write fails (the old file stays in place)."""
        ...

    async def render(self, update: ForeignUpdate) -> str:
        """The text a write of ``update`` into an absent file would produce (for ``--output -``). Never raises."""
        ...
