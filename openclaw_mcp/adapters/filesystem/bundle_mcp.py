"""Plugin-bundle MCP files on the local filesystem (spec client-runtime §10.3).

File safety follows the reference (``@openclaw/fs-safe`` ``openRootFileSync`` with symlinks rejected and
hard links rejected), reporting a failure by its reason word:

- ``path``: the file (or a directory on the way) does not exist;
- ``validation``: the path leaves the plugin root (lexically, after resolving against the root's real
  path), a component below the root is a symbolic link, a directory on the way is not a directory, the
  file is not a regular file, or it has more than one hard link;
- ``io``: any other operating-system error.

Files are read whole (no size limit), decoded as UTF-8 (invalid bytes become U+FFFD, a BOM is kept) and
parsed with ``JSON.parse`` semantics (``jscompat.jsonstrict``).
"""

from __future__ import annotations

import dataclasses
import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from openclaw_mcp.domain.bundle_agent import AGENT_MCP_JSON, plugin_data_dir
from openclaw_mcp.domain.bundle_mcp import (
    DOT_MCP_JSON,
    MANIFEST_OPTIONAL,
    MANIFEST_PATHS,
    BundleMcpResult,
    BundlePlugin,
    McpFileDocument,
    PluginMcpConfig,
    build_plugin_config,
    mcp_file_paths,
    merge_plugin_configs,
)
from openclaw_mcp.jscompat.jsjson import js_ordered_keys
from openclaw_mcp.jscompat.jsonstrict import JsonSyntaxError, parse_json_strict
from openclaw_mcp.jscompat.paths import path_resolve

__all__ = ["JsonRead", "load_bundle_mcp", "load_plugin_mcp", "read_json_object"]

_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP})


class _Refused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class JsonRead:
    """The outcome of reading one JSON file of a plugin.

    ``status``: ``ok`` (``document`` is the object), ``open`` (``reason`` is ``path``/``validation``/
    ``io``), ``parse`` (``error`` is ``SyntaxError: …``) or ``not_object``."""

    status: Literal["ok", "open", "parse", "not_object"]
    document: dict[str, Any] | None = None
    reason: str = ""
    error: str = ""


def _inside(root: str, target: str) -> bool:
    prefix = root if root.endswith("/") else root + "/"
    return target.startswith(prefix)


def _open_checked(root_real: str, relative_path: str) -> bytes:
    target = path_resolve(root_real, relative_path)
    if not _inside(root_real, target):
        raise _Refused("validation")
    current = root_real
    parts = target[len(root_real) :].strip("/").split("/")
    try:
        for index, part in enumerate(parts):
            current = f"{current.rstrip('/')}/{part}"
            info = os.lstat(current)
            if stat.S_ISLNK(info.st_mode):
                raise _Refused("validation")
            last = index == len(parts) - 1
            if not last and not stat.S_ISDIR(info.st_mode):
                raise _Refused("validation")
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
            raise _Refused("validation")
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(current, flags)
        try:
            opened = os.fstat(fd)
            if (
                not stat.S_ISREG(opened.st_mode)
                or opened.st_nlink > 1
                or (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino)
            ):
                raise _Refused("validation")
            chunks: list[bytes] = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)
    except OSError as error:
        raise _Refused("path" if error.errno in _MISSING else "io") from error


def read_json_object(root: str, relative_path: str) -> JsonRead:
    """Read ``relative_path`` under the plugin ``root`` with the §10.3 file-safety rules."""
    root_real = os.path.realpath(root)
    try:
        data = _open_checked(root_real, relative_path)
    except _Refused as refused:
        return JsonRead("open", reason=refused.reason)
    try:
        value = parse_json_strict(data.decode("utf-8", "replace"))
    except JsonSyntaxError as error:
        return JsonRead("parse", error=f"SyntaxError: {error.message}")
    if not isinstance(value, dict):
        return JsonRead("not_object")
    return JsonRead("ok", document=value)


def _describe(read: JsonRead, relative_path: str) -> str:
    if read.status == "open":
        return f"unable to read {relative_path}: {read.reason}"
    if read.status == "parse":
        return f"failed to parse {relative_path}: {read.error}"
    return f"{relative_path} must contain a JSON object"


def load_plugin_mcp(plugin: BundlePlugin, *, state_dir: str) -> tuple[PluginMcpConfig, list[str]]:
    """One plugin's servers, data dirs and diagnostics (§10.1 item 1, §10.3–10.7)."""
    if plugin.format == "native":
        return build_plugin_config(dataclasses.replace(plugin, root=os.path.abspath(plugin.root)), {}, [])
    manifest_path = MANIFEST_PATHS[plugin.format]
    manifest_read = read_json_object(plugin.root, manifest_path)
    if manifest_read.status == "open" and manifest_read.reason == "path" and plugin.format in MANIFEST_OPTIONAL:
        manifest: dict[str, Any] = {}
    elif manifest_read.document is None:
        return PluginMcpConfig(), [_describe(manifest_read, manifest_path)]
    else:
        manifest = manifest_read.document
    agent = plugin.format == "agent"
    default_name = AGENT_MCP_JSON if agent else DOT_MCP_JSON
    default_exists = os.path.exists(os.path.join(plugin.root, default_name))
    paths = mcp_file_paths(plugin.format, manifest, default_exists=default_exists)
    root = os.path.realpath(plugin.root) if agent else os.path.abspath(plugin.root)
    diagnostics: list[str] = []
    files: list[McpFileDocument] = []
    for relative_path in paths:
        read = read_json_object(root, relative_path)
        if read.document is not None:
            files.append(McpFileDocument(relative_path, read.document))
        elif read.status == "open" and read.reason == "path" and not agent:
            continue
        elif read.status == "open":
            diagnostics.append(_describe(read, relative_path))
        else:
            diagnostics.append(f"unable to read {relative_path}: {_describe(read, relative_path)}")
    data_dir = plugin_data_dir(os.path.abspath(state_dir), plugin.plugin_id) if agent else None
    # Only the agent format validates servers, and it has a single file: its validation diagnostics
    # follow the read diagnostics as in the reference.
    config, validation = build_plugin_config(dataclasses.replace(plugin, root=root), manifest, files, data_dir=data_dir)
    return config, diagnostics + validation


def load_bundle_mcp(plugins: Sequence[BundlePlugin], *, state_dir: str) -> BundleMcpResult:
    """The bundle map of the activated ``plugins`` in registry order (§10.1 item 2, §10.2)."""
    configs: list[PluginMcpConfig] = []
    diagnostics: list[tuple[str, str]] = []
    for plugin in plugins:
        config, messages = load_plugin_mcp(plugin, state_dir=state_dir)
        configs.append(config)
        diagnostics.extend((plugin.plugin_id, message) for message in messages)
    merged = merge_plugin_configs(configs)
    servers = {name: merged.servers[name] for name in js_ordered_keys(merged.servers)}
    data_dirs = {name: d for name, d in merged.data_dirs.items() if d is not None}
    return BundleMcpResult(servers, data_dirs, tuple(diagnostics))
