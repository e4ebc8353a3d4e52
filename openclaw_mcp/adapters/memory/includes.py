"""``$include`` files held in memory (absolute path → text), confined to the config's directory.

Held to the ``IncludeLoader`` contract suite; never suspends (nothing blocks), so it also serves inline runs.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openclaw_mcp.domain.includes import IncludeError
from openclaw_mcp.jscompat.json5 import Json5Error, parse_json5

__all__ = ["InMemoryIncludeLoader"]


class InMemoryIncludeLoader:
    """The include files of the config at ``config_path``: ``files`` maps absolute paths to their text (read
    at each ``load``, so later changes are seen)."""

    def __init__(self, config_path: str, files: Mapping[str, str]) -> None:
        self._root = posixpath.dirname(config_path)
        self._files = files

    async def resolve(self, include_path: str, including_file: str) -> str:
        base = posixpath.dirname(including_file)
        resolved = posixpath.normpath(posixpath.join(base, include_path))
        if resolved != self._root and not resolved.startswith(self._root.rstrip("/") + "/"):
            raise IncludeError(f"Include path escapes config directory: {include_path} (root: {self._root})")
        return resolved

    async def load(self, include_path: str, resolved_path: str) -> Any:
        text = self._files.get(resolved_path)
        if text is None:
            raise IncludeError(f"Failed to read include file: {include_path} (resolved: {resolved_path})")
        try:
            return parse_json5(text)
        except Json5Error as exc:
            raise IncludeError(f"Failed to parse include file: {include_path} (resolved: {resolved_path})") from exc


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.config import IncludeLoader

    _: IncludeLoader = InMemoryIncludeLoader("/m/openclaw.json", {})
