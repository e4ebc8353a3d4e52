"""``FileForeignFiles``: other MCP clients' config files on the local filesystem.

JSON is parsed with the standard library, JSONC (VS Code) with ``jscompat.json5`` (comments are lost when
the file is rewritten), TOML with tomlkit (a merge keeps every other table, key and comment), YAML with
PyYAML (``safe_load``, read only). Writes go to a unique temporary file in the same directory and are
renamed over the target (``os.replace``), after the previous file was copied to ``<path>.bak``.
"""

from __future__ import annotations

import json
import os
import stat
from typing import TYPE_CHECKING, Any

from openclaw_mcp.adapters.filesystem._atomic import replace_file
from openclaw_mcp.application.ports.foreign_files import ForeignDocument, ForeignFileError, ForeignUpdate, WrittenFile
from openclaw_mcp.domain.interchange._json import merge_document
from openclaw_mcp.domain.interchange.formats import FileSyntax

if TYPE_CHECKING:
    from openclaw_mcp.application.ports.foreign_files import ForeignFiles

__all__ = ["FileForeignFiles", "parse_text", "render_text"]


def _one_line(text: str) -> str:
    return " ".join(str(text).split()) or "invalid syntax"


def parse_text(path: str, text: str, syntax: FileSyntax) -> Any:
    """``text`` parsed as ``syntax``; ``ForeignFileError`` on a syntax error."""
    try:
        if syntax == "json":
            return json.loads(text) if text.strip() else {}
        if syntax == "jsonc":
            from openclaw_mcp.jscompat.json5 import parse_json5

            return parse_json5(text) if text.strip() else {}
        if syntax == "toml":
            import tomlkit

            return tomlkit.parse(text).unwrap()
        import yaml

        loaded = yaml.safe_load(text)
        return {} if loaded is None else loaded
    except ValueError as exc:  # json, json5 and tomlkit errors are ValueErrors
        raise ForeignFileError(path, f"invalid {syntax.upper()}: {_one_line(str(exc))}") from exc
    except Exception as exc:  # yaml.YAMLError and its subclasses (no type information for PyYAML)
        import yaml

        if isinstance(exc, yaml.YAMLError):
            raise ForeignFileError(path, f"invalid YAML: {_one_line(str(exc))}") from exc
        raise


def _toml_value(value: Any) -> Any:
    import tomlkit

    if isinstance(value, dict):
        inline = tomlkit.inline_table()
        for key, item in value.items():
            inline[key] = _toml_value(item)
        return inline
    return value


def _merge_toml(path: str, existing: str | None, update: ForeignUpdate) -> str:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(existing) if existing is not None else tomlkit.document()
    except TOMLKitError as exc:
        raise ForeignFileError(path, f"invalid TOML: {_one_line(str(exc))}") from exc
    servers = document.get(update.top_key)
    if not isinstance(servers, dict):
        servers = tomlkit.table(is_super_table=True)
        document[update.top_key] = servers
    for name, entry in update.entries.items():
        table = tomlkit.table()
        for key, value in entry.items():
            table[key] = _toml_value(value)
        servers[name] = table
    return tomlkit.dumps(document)


def render_text(path: str, existing: str | None, update: ForeignUpdate) -> tuple[str, bool]:
    """The merged text and whether comments of ``existing`` were dropped."""
    if update.syntax == "toml":
        return _merge_toml(path, existing, update), False
    if update.syntax == "yaml":
        raise ForeignFileError(path, "writing YAML is not supported")
    data = parse_text(path, existing, update.syntax) if existing is not None else {}
    if not isinstance(data, dict):
        raise ForeignFileError(path, "expected a JSON object at the top level")
    merged = merge_document(data, update.top_key, update.entries, update.inputs)
    dropped = update.syntax == "jsonc" and existing is not None and ("//" in existing or "/*" in existing)
    return json.dumps(merged, indent=2, ensure_ascii=False) + "\n", dropped


class FileForeignFiles:
    """Foreign config files on the local filesystem (synchronous I/O inside the async methods: small files)."""

    async def read(self, path: str, syntax: FileSyntax) -> ForeignDocument | None:
        try:
            with open(path, "rb") as handle:
                info = os.fstat(handle.fileno())
                raw = handle.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ForeignFileError(path, exc.strerror or str(exc)) from exc
        text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
        return ForeignDocument(path, parse_text(path, text, syntax), stat.S_IMODE(info.st_mode))

    async def write(self, path: str, update: ForeignUpdate) -> WrittenFile:
        previous: bytes | None
        mode = 0o600 if update.private else 0o644
        try:
            with open(path, "rb") as handle:
                previous = handle.read()
                if not update.private:
                    mode = stat.S_IMODE(os.fstat(handle.fileno()).st_mode)
        except FileNotFoundError:
            previous = None
        except OSError as exc:
            raise ForeignFileError(path, exc.strerror or str(exc)) from exc
        existing = None if previous is None else previous.decode("utf-8", errors="replace").removeprefix("\ufeff")
        text, dropped = render_text(path, existing, update)
        backup = None
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            if previous is not None:
                backup = f"{path}.bak"
                replace_file(backup, previous, mode)
            replace_file(path, text.encode("utf-8"), mode)
        except OSError as exc:
            raise ForeignFileError(path, f"cannot write: {exc.strerror or exc}") from exc
        return WrittenFile(path, backup, dropped)

    async def render(self, update: ForeignUpdate) -> str:
        return render_text("-", None, update)[0]


if TYPE_CHECKING:
    _: ForeignFiles = FileForeignFiles()
