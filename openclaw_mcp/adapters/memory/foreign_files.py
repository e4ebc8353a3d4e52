"""``InMemoryForeignFiles``: foreign config files held in memory (tests, demos).

Seed files as text (parsed on read: JSON and JSONC with ``jscompat.json5``, TOML with the standard library's
``tomllib``, YAML only in its JSON-compatible subset). Written files are kept as parsed documents; their
text is a JSON rendering (TOML comments are not modelled).
"""

from __future__ import annotations

import copy
import json
import tomllib
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.ports.foreign_files import ForeignDocument, ForeignFileError, ForeignUpdate, WrittenFile
from openclaw_mcp.domain.interchange._json import merge_document
from openclaw_mcp.domain.interchange.formats import FileSyntax
from openclaw_mcp.jscompat.json5 import Json5Error, parse_json5

if TYPE_CHECKING:
    from openclaw_mcp.application.ports.foreign_files import ForeignFiles

__all__ = ["InMemoryForeignFiles"]


def _parse(path: str, text: str, syntax: FileSyntax) -> Any:
    try:
        if syntax == "toml":
            return tomllib.loads(text)
        return parse_json5(text) if text.strip() else {}
    except (tomllib.TOMLDecodeError, Json5Error) as exc:
        raise ForeignFileError(path, f"invalid {syntax.upper()}: {' '.join(str(exc).split())}") from exc


class InMemoryForeignFiles:
    def __init__(self, texts: dict[str, str] | None = None) -> None:
        self._texts: dict[str, str] = dict(texts or {})
        self._docs: dict[str, Any] = {}
        self.modes: dict[str, int] = {path: 0o644 for path in self._texts}

    def text(self, path: str) -> str | None:
        return self._texts.get(path)

    async def read(self, path: str, syntax: FileSyntax) -> ForeignDocument | None:
        if path in self._docs:
            return ForeignDocument(path, copy.deepcopy(self._docs[path]), self.modes.get(path))
        if path not in self._texts:
            return None
        return ForeignDocument(path, _parse(path, self._texts[path], syntax), self.modes.get(path))

    async def write(self, path: str, update: ForeignUpdate) -> WrittenFile:
        if update.syntax == "yaml":
            raise ForeignFileError(path, "writing YAML is not supported")
        current = await self.read(path, update.syntax)
        existing = current.data if current is not None else {}
        if not isinstance(existing, dict):
            raise ForeignFileError(path, "expected an object at the top level")
        merged = merge_document(existing, update.top_key, copy.deepcopy(update.entries), update.inputs)
        mode = 0o600 if update.private else (current.mode if current is not None and current.mode else 0o644)
        backup = None
        if current is not None:
            backup = f"{path}.bak"
            self._docs[backup] = copy.deepcopy(existing)
            self._texts[backup] = self._texts.get(path, json.dumps(existing))
            self.modes[backup] = mode
        dropped = update.syntax == "jsonc" and "//" in self._texts.get(path, "")
        self._docs[path] = merged
        self._texts[path] = json.dumps(merged, indent=2) + "\n"
        self.modes[path] = mode
        return WrittenFile(path, backup, dropped)

    async def render(self, update: ForeignUpdate) -> str:
        return json.dumps(merge_document({}, update.top_key, update.entries, update.inputs), indent=2) + "\n"


if TYPE_CHECKING:
    _: ForeignFiles = InMemoryForeignFiles()
