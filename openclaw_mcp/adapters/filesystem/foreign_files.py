"""``FileForeignFiles``: other MCP clients' config files on the local filesystem.

JSON is parsed with the standard library, JSONC (VS Code) with ``jscompat.json5`` (comments are lost when
the file is rewritten), TOML with tomlkit (a merge keeps every other table, key and comment), YAML with
PyYAML (the safe loader, read only). Hostile documents are refused with one line before anything walks them:
nesting deeper than :data:`MAX_DEPTH`, and YAML whose alias graph is recursive or would add more than
:data:`MAX_ALIAS_EXPANSION` nodes when expanded (a "billion laughs" body of a few hundred bytes).

Writes go to a unique temporary file in the same directory and are renamed over the target
(``os.replace``), after the previous file was copied to ``<path>.bak``. A target that is a symbolic link is
written through: the file it points to is replaced (its temporary sibling sits next to it) and the link stays;
the backup is still ``<path>.bak``, next to the path the user named.
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


MAX_DEPTH = 100
"""Deepest nesting a foreign document may have (tomlkit's own limit); deeper documents are refused."""
MAX_ALIAS_EXPANSION = 10_000
"""Most nodes YAML aliases may add when expanded (each use of an alias counts the nodes it stands for)."""


class _Refused(ValueError):
    """A document refused before anything walks it (too deep, aliases expanding too far)."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split()) or "invalid syntax"


def _check_depth(value: Any) -> None:
    """``_Refused`` when ``value`` nests deeper than :data:`MAX_DEPTH` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise _Refused(f"nested more than {MAX_DEPTH} levels deep")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def _check_yaml_graph(root: Any) -> None:
    """``_Refused`` when the composed YAML node graph is recursive, nests deeper than :data:`MAX_DEPTH`, or
    its aliases would add more than :data:`MAX_ALIAS_EXPANSION` nodes once expanded. Each node is visited
    once (sizes are memoised), so the check itself is linear in the file."""
    import yaml

    size: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        children: list[Any] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [item for pair in node.value for item in pair]
        if done:
            active.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in children)
            continue
        if key in size:
            continue
        if key in active:
            raise _Refused("a recursive alias (an anchor used inside itself) is not supported")
        if depth >= MAX_DEPTH:
            raise _Refused(f"nested more than {MAX_DEPTH} levels deep")
        active.add(key)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in children if id(child) not in size)
    distinct = len(size)
    if size.get(id(root), 0) - distinct > MAX_ALIAS_EXPANSION:
        raise _Refused(f"aliases expand beyond {MAX_ALIAS_EXPANSION} nodes; refusing to expand them")


def _load_yaml(text: str) -> Any:
    """``yaml.safe_load`` with the node graph checked (:func:`_check_yaml_graph`) before it is constructed."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_yaml_graph(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def parse_text(path: str, text: str, syntax: FileSyntax) -> Any:
    """``text`` parsed as ``syntax``; ``ForeignFileError`` on a syntax error, and for documents nested deeper
    than :data:`MAX_DEPTH` or YAML whose aliases expand too far (refused before anything walks them)."""
    try:
        if syntax == "json":
            data = json.loads(text) if text.strip() else {}
        elif syntax == "jsonc":
            from openclaw_mcp.jscompat.json5 import parse_json5

            data = parse_json5(text) if text.strip() else {}
        elif syntax == "toml":
            import tomlkit

            data = tomlkit.parse(text).unwrap()
        else:
            loaded = _load_yaml(text)
            data = {} if loaded is None else loaded
        _check_depth(data)
        return data
    except RecursionError as exc:
        raise ForeignFileError(path, f"invalid {syntax.upper()}: nested more than {MAX_DEPTH} levels deep") from exc
    except ValueError as exc:  # json, json5 and tomlkit errors are ValueErrors (and _Refused)
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
            os.makedirs(os.path.dirname(os.path.realpath(path)) or ".", exist_ok=True)
            if previous is not None:
                backup = f"{path}.bak"
                replace_file(backup, previous, mode)
            replace_file(path, text.encode("utf-8"), mode, through_links=True)
        except OSError as exc:
            raise ForeignFileError(path, f"cannot write: {exc.strerror or exc}") from exc
        return WrittenFile(path, backup, dropped)

    async def render(self, update: ForeignUpdate) -> str:
        return render_text("-", None, update)[0]


if TYPE_CHECKING:
    _: ForeignFiles = FileForeignFiles()
