"""Plugin-bundle MCP config: shapes, path absolutization, merge precedence (spec client-runtime §10).

Everything here is pure: the filesystem adapter (``adapters.filesystem.bundle_mcp``) reads the manifests
and MCP files and hands the parsed documents to these functions, which produce the merged server map.

Paths follow Node's ``path.posix`` (the reference, :mod:`jscompat.paths`). Placeholders and path
absolutization (§10.6) are in :mod:`domain.bundle_paths`, the agent format (§10.7) in
:mod:`domain.bundle_agent`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from openclaw_mcp.domain.bundle_agent import AGENT_MCP_JSON, agent_uses_data_dir, parse_agent_mcp_json
from openclaw_mcp.domain.bundle_paths import absolutize_server
from openclaw_mcp.jscompat.jsjson import js_ordered_keys
from openclaw_mcp.jscompat.paths import path_resolve
from openclaw_mcp.jscompat.text import js_trim
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "BLOCKED_MERGE_KEYS",
    "DOT_MCP_JSON",
    "MANIFEST_OPTIONAL",
    "MANIFEST_PATHS",
    "BundleFormat",
    "BundleMcpResult",
    "BundlePlugin",
    "McpFileDocument",
    "PluginFormat",
    "PluginMcpConfig",
    "build_plugin_config",
    "declared_mcp_paths",
    "extract_server_map",
    "is_plain_object",
    "kept_data_dirs",
    "mcp_file_paths",
    "merge_patch",
    "merge_plugin_configs",
    "merge_with_config",
    "root_relative_config",
    "to_cli_server_config",
]

BundleFormat = Literal["claude", "codex", "cursor", "agent"]
PluginFormat = Literal["claude", "codex", "cursor", "agent", "native"]

#: Manifest location per bundle format, relative to the plugin root (§10.3).
MANIFEST_PATHS: Final[Mapping[str, str]] = {
    "claude": ".claude-plugin/plugin.json",
    "codex": ".codex-plugin/plugin.json",
    "cursor": ".cursor-plugin/plugin.json",
    "agent": "plugin.json",
}
#: Formats whose missing manifest is read as ``{}`` instead of a diagnostic.
MANIFEST_OPTIONAL: Final = frozenset({"claude"})
DOT_MCP_JSON: Final = ".mcp.json"
#: Keys a merge patch never writes (§10.5).
BLOCKED_MERGE_KEYS: Final = frozenset({"__proto__", "prototype", "constructor"})

_CLI_TYPE_BY_TRANSPORT: Final[Mapping[str, str]] = {
    "streamable-http": "http",
    "http": "http",
    "sse": "sse",
    "stdio": "stdio",
}


@dataclass(frozen=True, slots=True)
class BundlePlugin:
    """One activated plugin registry record that may contribute MCP servers (§10.2).

    ``format`` is the bundle format, or ``"native"`` for a native OpenClaw plugin whose manifest carries
    ``manifest_mcp_servers`` (its ``mcpServers`` map, absolutized against ``root``)."""

    plugin_id: str
    format: PluginFormat
    root: str
    manifest_mcp_servers: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class McpFileDocument:
    """One MCP file of a plugin as read: its declared relative path and its parsed JSON object."""

    relative_path: str
    document: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class PluginMcpConfig:
    """What one source (file, manifest map or plugin) contributes: servers, and the data dir of each
    server name it defines (``None`` = no data dir; a later source without one clears an earlier one)."""

    servers: dict[str, Any] = field(default_factory=dict)
    data_dirs: dict[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BundleMcpResult:
    """The bundle map of §10.2–10.7: ``servers`` in merge order, ``data_dirs`` (server name → PLUGIN_DATA
    directory to create before spawning) and ``diagnostics`` as ``(plugin id, message)`` pairs."""

    servers: dict[str, Any]
    data_dirs: dict[str, str]
    diagnostics: tuple[tuple[str, str], ...] = ()


def is_plain_object(value: object) -> bool:
    """A JSON object (``dict``), not an array and not ``null``."""
    return isinstance(value, dict)


# --- merge patch (§10.5) -------------------------------------------------------------------------------


def merge_patch(base: Any, patch: Any) -> Any:
    """RFC 7396-style merge with OpenClaw's safeguards: a non-object patch replaces ``base``; ``null``
    deletes; objects merge recursively; ``__proto__``/``prototype``/``constructor`` keys are skipped."""
    if not isinstance(patch, dict):
        return patch
    result: dict[str, Any] = dict(base) if isinstance(base, dict) else {}
    for key in js_ordered_keys(patch):
        if key in BLOCKED_MERGE_KEYS:
            continue
        value = patch[key]
        if value is None:
            result.pop(key, None)
            continue
        if isinstance(value, dict):
            current = result.get(key)
            result[key] = merge_patch(current if isinstance(current, dict) else {}, value)
            continue
        result[key] = value
    return result


# --- file shapes (§10.4) -------------------------------------------------------------------------------


def extract_server_map(doc: Any) -> dict[str, Any]:
    """The ``name → server`` map of an MCP file (``{mcpServers:{…}}``, ``{servers:{…}}`` or the map itself);
    non-object entries dropped, the others shallow-copied."""
    if not isinstance(doc, dict):
        return {}
    nested = doc.get("mcpServers")
    if not isinstance(nested, dict):
        nested = doc.get("servers")
        if not isinstance(nested, dict):
            nested = doc
    return {name: dict(nested[name]) for name in js_ordered_keys(nested) if isinstance(nested[name], dict)}


def declared_mcp_paths(value: Any) -> list[str]:
    """The manifest's declared MCP file paths (``mcpServers`` as a string or a list): trimmed, empty and
    non-string entries dropped, duplicates removed (first wins) (§10.3)."""
    if isinstance(value, str):
        raw: list[Any] = [value]
    elif isinstance(value, list):
        raw = value
    else:
        return []
    paths: list[str] = []
    for entry in raw:
        if not isinstance(entry, str):
            continue
        trimmed = js_trim(entry)
        if trimmed and trimmed not in paths:
            paths.append(trimmed)
    return paths


def mcp_file_paths(fmt: BundleFormat, manifest: Mapping[str, Any], *, default_exists: bool) -> list[str]:
    """The MCP files of a bundle plugin in merge order (§10.3). ``default_exists`` says whether the
    format's default file (``.mcp.json``; ``mcp.json`` for the agent format) exists at the root."""
    if fmt == "agent":
        return [AGENT_MCP_JSON] if default_exists else []
    paths = [DOT_MCP_JSON] if default_exists else []
    for entry in declared_mcp_paths(manifest.get("mcpServers")):
        if entry not in paths:
            paths.append(entry)
    return paths


# --- one plugin (§10.1, §10.3) --------------------------------------------------------------------------


def _file_config(
    fmt: BundleFormat, file: McpFileDocument, *, root: str, data_dir: str | None
) -> tuple[PluginMcpConfig, list[str]]:
    base = path_resolve(root, posixpath.dirname(path_resolve(root, file.relative_path)))
    if fmt == "agent":
        candidate = data_dir or ""
        servers, diagnostics = parse_agent_mcp_json(file.document, root=root, data_dir=candidate)
        used_dir = candidate if data_dir and agent_uses_data_dir(servers) else None
        absolutized = {
            name: absolutize_server(server, root=root, base=base, agent_data_dir=used_dir, agent_format=True)
            for name, server in servers.items()
        }
        dirs = {
            name: (used_dir if used_dir and server.get("transport") == "stdio" else None)
            for name, server in servers.items()
        }
        return PluginMcpConfig(absolutized, dirs), diagnostics
    servers = extract_server_map(file.document)
    absolutized = {name: absolutize_server(server, root=root, base=base) for name, server in servers.items()}
    return PluginMcpConfig(absolutized, dict.fromkeys(servers)), []


def root_relative_config(servers: Mapping[str, Any], *, root: str) -> PluginMcpConfig:
    """An inline manifest map or a native plugin's map, absolutized against the plugin root."""
    normalized_root = path_resolve("/", root)
    extracted = {name: servers[name] for name in js_ordered_keys(servers) if isinstance(servers[name], dict)}
    return PluginMcpConfig(
        {name: absolutize_server(s, root=normalized_root, base=normalized_root) for name, s in extracted.items()},
        dict.fromkeys(extracted),
    )


def build_plugin_config(
    plugin: BundlePlugin,
    manifest: Mapping[str, Any],
    files: Sequence[McpFileDocument],
    *,
    data_dir: str | None = None,
) -> tuple[PluginMcpConfig, list[str]]:
    """One plugin's contribution from its already-read documents (§10.1 item 1).

    ``files`` are the MCP files that were read successfully, in :func:`mcp_file_paths` order; ``root`` of
    ``plugin`` must be the normalised root (the real path for the agent format); ``data_dir`` is
    :func:`domain.bundle_agent.plugin_data_dir` for the agent format. Returns the config and the diagnostics
    of validation."""
    if plugin.format == "native":
        return root_relative_config(plugin.manifest_mcp_servers or {}, root=plugin.root), []
    fmt: BundleFormat = plugin.format
    root = path_resolve("/", plugin.root)
    contributions: list[PluginMcpConfig] = []
    diagnostics: list[str] = []
    for file in files:
        config, file_diagnostics = _file_config(fmt, file, root=root, data_dir=data_dir)
        contributions.append(config)
        diagnostics.extend(file_diagnostics)
    if fmt != "agent":
        contributions.append(root_relative_config(extract_server_map(manifest.get("mcpServers")), root=root))
    return merge_plugin_configs(contributions), diagnostics


def merge_plugin_configs(configs: Iterable[PluginMcpConfig]) -> PluginMcpConfig:
    """Deep-merge contributions in order (§10.1): servers by :func:`merge_patch`; data dirs like the
    reference's merge-patched map: a ``None`` marker deletes an earlier entry and is itself dropped, so the
    result holds no ``None`` (a later *plugin* therefore never clears another plugin's data dir)."""
    servers: dict[str, Any] = {}
    data_dirs: dict[str, str | None] = {}
    for config in configs:
        servers = merge_patch(servers, config.servers)
        for name in js_ordered_keys(config.data_dirs):
            if name in BLOCKED_MERGE_KEYS:
                continue
            data_dir = config.data_dirs[name]
            if data_dir is None:
                data_dirs.pop(name, None)
            else:
                data_dirs[name] = data_dir
    return PluginMcpConfig(servers, data_dirs)


# --- user config and session overrides (§10.8) ---------------------------------------------------------


def _override(overrides: Mapping[str, Any] | None, name: str) -> Any:
    if overrides is None or name not in overrides:
        return UNDEFINED
    return overrides[name]


def _configured_entries(configured: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    if not isinstance(configured, Mapping):
        return {}
    return {name: dict(configured[name]) for name in js_ordered_keys(configured) if isinstance(configured[name], dict)}


def _split(
    bundle: Mapping[str, Any], configured: Mapping[str, Any] | None, overrides: Mapping[str, Any] | None
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    entries = _configured_entries(configured)
    masked = {
        name
        for name, server in entries.items()
        if _override(overrides, name) is not True and server.get("enabled") is False
    }
    enabled_configured = {
        name: server
        for name, server in entries.items()
        if _override(overrides, name) is not False
        and (_override(overrides, name) is True or server.get("enabled") is not False)
    }
    enabled_bundle = {
        name: bundle[name]
        for name in js_ordered_keys(bundle)
        if _override(overrides, name) is not False and name not in masked
    }
    return enabled_bundle, enabled_configured


def merge_with_config(
    bundle: Mapping[str, Any],
    configured: Mapping[str, Any] | None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The runtime's server map (§10.8): bundle servers, overlaid wholesale by configured ones, filtered by
    ``enabled: false`` masks and the session's ``toolOverrides.mcpServers`` (``True``/``False``).

    Keys come in JavaScript order: bundle names first, configured-only names after."""
    enabled_bundle, enabled_configured = _split(bundle, configured, overrides)
    merged: dict[str, Any] = {**enabled_bundle, **enabled_configured}
    return {name: merged[name] for name in js_ordered_keys(merged)}


def kept_data_dirs(
    data_dirs: Mapping[str, str],
    bundle: Mapping[str, Any],
    configured: Mapping[str, Any] | None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """The data dirs still needed after :func:`merge_with_config`: bundle servers in the result that a
    configured server did not replace."""
    enabled_bundle, enabled_configured = _split(bundle, configured, overrides)
    return {
        name: data_dirs[name]
        for name in js_ordered_keys(data_dirs)
        if name in enabled_bundle and name not in enabled_configured
    }


# --- CLI-backend adapter (§10.9) ------------------------------------------------------------------------


def to_cli_server_config(server: Mapping[str, Any]) -> dict[str, Any]:
    """A server for an external CLI: ``transport`` dropped, mapped to ``type`` unless a string ``type``
    exists (``streamable-http``/``http`` → ``http``, ``sse`` → ``sse``, ``stdio`` → ``stdio``)."""
    nxt = {key: value for key, value in server.items() if key != "transport"}
    if isinstance(nxt.get("type"), str):
        return nxt
    transport = server.get("transport")
    if isinstance(transport, str) and transport in _CLI_TYPE_BY_TRANSPORT:
        nxt["type"] = _CLI_TYPE_BY_TRANSPORT[transport]
    return nxt
