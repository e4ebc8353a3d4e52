"""Plugin-bundle MCP config: shapes, path absolutization, merge precedence (spec client-runtime §10).

Everything here is pure: the filesystem adapter (``adapters.filesystem.bundle_mcp``) reads the manifests
and MCP files and hands the parsed documents to these functions, which produce the merged server map.

Paths follow Node's ``path.posix`` (the reference): *normalise* is ``path.normalize`` (``.``/``..`` and
repeated separators folded, a leading ``//`` folded too, a trailing separator kept) and *resolve* is
``path.resolve(base, value)`` (normalised, no trailing separator).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from jscompat.jsjson import js_ordered_keys
from jscompat.text import js_trim, to_well_formed
from jscompat.undefined import UNDEFINED

__all__ = [
    "AGENT_MCP_JSON",
    "AGENT_MCP_SCHEMA",
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
    "absolutize_server",
    "agent_uses_data_dir",
    "build_plugin_config",
    "declared_mcp_paths",
    "encode_plugin_install_dir_name",
    "expand_placeholders",
    "extract_server_map",
    "is_plain_object",
    "js_normalize",
    "js_resolve",
    "kept_data_dirs",
    "mcp_file_paths",
    "merge_patch",
    "merge_plugin_configs",
    "merge_with_config",
    "parse_agent_mcp_json",
    "plugin_data_dir",
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
AGENT_MCP_JSON: Final = "mcp.json"
AGENT_MCP_SCHEMA: Final = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
#: Keys a merge patch never writes (§10.5).
BLOCKED_MERGE_KEYS: Final = frozenset({"__proto__", "prototype", "constructor"})

_CLAUDE_ROOT = "${CLAUDE_PLUGIN_ROOT}"
_AGENT_ROOT = "${PLUGIN_ROOT}"
_AGENT_DATA = "${PLUGIN_DATA}"
_PLACEHOLDER = re.compile(r"\$\{(?:CLAUDE_PLUGIN_ROOT|PLUGIN_ROOT|PLUGIN_DATA)\}")
_AGENT_TOP_KEYS = frozenset({"$schema", "mcpServers"})
_AGENT_STDIO_KEYS = frozenset({"type", "command", "args", "env", "cwd"})
_AGENT_HTTP_KEYS = frozenset({"type", "url", "headers"})
_BARE_COMMAND_FORBIDDEN = re.compile(r"[\s/\\]")
_CLI_TYPE_BY_TRANSPORT: Final[Mapping[str, str]] = {
    "streamable-http": "http",
    "http": "http",
    "sse": "sse",
    "stdio": "stdio",
}
_SEGMENT_UNSAFE = re.compile(r"[^a-zA-Z0-9._]+")


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


# --- paths and placeholders (§10.6) --------------------------------------------------------------------


def js_normalize(path: str) -> str:
    """Node's ``path.posix.normalize``."""
    if not path:
        return "."
    normalized = posixpath.normpath(path)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    if path.endswith("/") and not normalized.endswith("/"):
        normalized += "/"
    return normalized


def js_resolve(base: str, path: str) -> str:
    """Node's ``path.posix.resolve(base, path)`` for an absolute ``base``."""
    joined = path if path.startswith("/") else f"{base}/{path}"
    normalized = posixpath.normpath(joined)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    return normalized


def _is_explicit_relative(value: str) -> bool:
    return value in (".", "..") or value.startswith(("./", "../"))


def _normalize_if_absolute(value: str) -> str:
    return js_normalize(value) if value.startswith("/") else value


def _command_like(base: str, value: str) -> str:
    """``command`` and ``args`` entries: explicitly relative → resolved; absolute → normalised."""
    return js_resolve(base, value) if _is_explicit_relative(value) else _normalize_if_absolute(value)


def _is_inside(root: str, target: str) -> bool:
    """``target`` is ``root`` or below it (both already resolved)."""
    if target == root:
        return True
    prefix = root if root.endswith("/") else root + "/"
    return target.startswith(prefix)


def expand_placeholders(value: str, *, root: str, data_dir: str | None = None) -> str:
    """Replace ``${CLAUDE_PLUGIN_ROOT}`` with ``root``; ``${PLUGIN_ROOT}`` and ``${PLUGIN_DATA}`` only when
    a plugin data dir is given (agent format), else they stay literal."""

    def substitute(match: re.Match[str]) -> str:
        placeholder = match.group(0)
        if placeholder == _CLAUDE_ROOT or (placeholder == _AGENT_ROOT and data_dir):
            return root
        return data_dir if data_dir is not None else placeholder

    return _PLACEHOLDER.sub(substitute, value)


def absolutize_server(
    server: Mapping[str, Any],
    *,
    root: str,
    base: str,
    agent_data_dir: str | None = None,
    agent_format: bool = False,
) -> dict[str, Any]:
    """A copy of ``server`` with placeholders expanded and paths made absolute (§10.6).

    ``root`` is the plugin root and ``base`` the directory of the file the server came from (both
    absolute and normalised); ``agent_data_dir`` is the agent-format plugin's data dir, if it has one."""
    nxt = dict(server)
    if (
        not isinstance(nxt.get("cwd"), str)
        and not isinstance(nxt.get("workingDirectory"), str)
        and (not agent_format or isinstance(nxt.get("command"), str))
    ):
        nxt["cwd"] = base

    def expand(value: str) -> str:
        return expand_placeholders(value, root=root, data_dir=agent_data_dir)

    command = nxt.get("command")
    if isinstance(command, str):
        expanded = expand(command)
        nxt["command"] = (
            js_resolve(base, expanded) if _is_explicit_relative(expanded) else _normalize_if_absolute(expanded)
        )
    cwd = nxt.get("cwd")
    if isinstance(cwd, str):
        expanded = expand(cwd)
        nxt["cwd"] = expanded if expanded.startswith("/") else js_resolve(base, expanded)
    working = nxt.get("workingDirectory")
    if isinstance(working, str):
        expanded = expand(working)
        nxt["workingDirectory"] = js_normalize(expanded) if expanded.startswith("/") else js_resolve(base, expanded)
    args = nxt.get("args")
    if isinstance(args, list):
        new_args: list[Any] = []
        for entry in args:
            if not isinstance(entry, str):
                new_args.append(entry)
                continue
            expanded = expand(entry)
            new_args.append(
                js_resolve(base, expanded) if _is_explicit_relative(expanded) else _normalize_if_absolute(expanded)
            )
        nxt["args"] = new_args
    env = nxt.get("env")
    if isinstance(env, dict):
        nxt["env"] = {
            key: _normalize_if_absolute(expand(env[key])) if isinstance(env[key], str) else env[key]
            for key in js_ordered_keys(env)
        }
    if agent_data_dir and isinstance(nxt.get("command"), str):
        current = nxt.get("env")
        merged_env = dict(current) if isinstance(current, dict) else {}
        merged_env["PLUGIN_ROOT"] = root
        merged_env["PLUGIN_DATA"] = agent_data_dir
        nxt["env"] = merged_env
    return nxt


# --- agent format (§10.7) ------------------------------------------------------------------------------


def encode_plugin_install_dir_name(plugin_id: str) -> str:
    """The directory name of a plugin id (upstream ``encodePluginInstallDirName``): an unscoped id keeps
    its trimmed text with ``\\`` replaced by ``__``; an id with ``/`` becomes ``@`` + a hashed safe segment."""
    trimmed = js_trim(plugin_id)
    if "/" not in trimmed:
        return trimmed.replace("\\", "__")
    safe = _SEGMENT_UNSAFE.sub("-", trimmed)
    safe = safe.removeprefix("-")
    safe = safe.removesuffix("-")
    if not safe or safe in (".", ".."):
        safe = "skill"
    if safe != trimmed or len(safe) > 60:
        data = to_well_formed(trimmed).encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()[:10]
        return f"@{safe[:50]}-{digest}"
    return f"@{safe}"


def plugin_data_dir(state_dir: str, plugin_id: str) -> str:
    """``<state dir>/plugin-data/<encoded plugin id>`` (Node ``path.join``)."""
    return js_normalize(f"{state_dir}/plugin-data/{encode_plugin_install_dir_name(plugin_id)}")


def _is_string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _valid_agent_command(command: Any, root: str) -> bool:
    if not isinstance(command, str) or not command:
        return False
    if command.startswith("./"):
        return len(command) > 2 and _is_inside(root, js_resolve(root, command))
    return _BARE_COMMAND_FORBIDDEN.search(command) is None


def _valid_agent_cwd(cwd: Any, root: str, data_dir: str) -> bool:
    if not isinstance(cwd, str):
        return False
    if cwd.startswith("./") or cwd == _AGENT_ROOT or cwd.startswith(_AGENT_ROOT + "/"):
        base = root
    elif cwd == _AGENT_DATA or cwd.startswith(_AGENT_DATA + "/"):
        base = data_dir
    else:
        return False
    expanded = expand_placeholders(cwd, root=root, data_dir=data_dir)
    return _is_inside(base, js_resolve(base, expanded))


def _validate_agent_server(raw: Any, root: str, data_dir: str) -> dict[str, Any] | str:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        return "configuration must be an object with a supported type"
    kind: str = raw["type"]
    if kind == "stdio":
        if not set(raw) <= _AGENT_STDIO_KEYS:
            return "stdio configuration contains unknown fields"
        if not _valid_agent_command(raw.get("command"), root):
            return "stdio command must be a bare name or ./-relative path"
        args = raw.get("args", UNDEFINED)
        if args is not UNDEFINED and not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            return "stdio args must be an array of strings"
        env = raw.get("env", UNDEFINED)
        if env is not UNDEFINED and not _is_string_map(env):
            return "stdio env must contain only string values"
        if isinstance(env, dict) and ("PLUGIN_ROOT" in env or "PLUGIN_DATA" in env):
            return "stdio env must not define PLUGIN_ROOT or PLUGIN_DATA"
        cwd = raw.get("cwd", UNDEFINED)
        if cwd is not UNDEFINED and not _valid_agent_cwd(cwd, root, data_dir):
            return "stdio cwd must remain within PLUGIN_ROOT or PLUGIN_DATA"
    elif kind in ("streamable-http", "sse"):
        if not set(raw) <= _AGENT_HTTP_KEYS:
            return f"{kind} configuration contains unknown fields"
        url = raw.get("url")
        if not isinstance(url, str) or not url:
            return f"{kind} url must be a non-empty string"
        headers = raw.get("headers", UNDEFINED)
        if headers is not UNDEFINED and not _is_string_map(headers):
            return f"{kind} headers must contain only string values"
    else:
        return f"unsupported type: {kind}"
    server = {key: raw[key] for key in js_ordered_keys(raw) if key != "type"}
    server["transport"] = kind
    return server


def parse_agent_mcp_json(doc: Any, *, root: str, data_dir: str) -> tuple[dict[str, Any], list[str]]:
    """Validate an agent-format ``mcp.json`` (§10.7): the valid servers (``type`` moved to ``transport``,
    not yet absolutized) and one diagnostic per rejected server (or one for a malformed document).

    ``data_dir`` is the plugin's would-be data dir, used to check ``${PLUGIN_DATA}`` cwds."""
    if (
        not isinstance(doc, dict)
        or doc.get("$schema") != AGENT_MCP_SCHEMA
        or not set(doc) <= _AGENT_TOP_KEYS
        or not isinstance(doc.get("mcpServers"), dict)
    ):
        return {}, [f"invalid mcp.json: expected only $schema={AGENT_MCP_SCHEMA} and object mcpServers"]
    servers: dict[str, Any] = {}
    diagnostics: list[str] = []
    raw_servers: dict[str, Any] = doc["mcpServers"]
    for name in js_ordered_keys(raw_servers):
        validated = _validate_agent_server(raw_servers[name], root, data_dir)
        if isinstance(validated, str):
            diagnostics.append(f'invalid MCP server "{name}" in mcp.json: {validated}')
            continue
        servers[name] = validated
    return servers, diagnostics


def agent_uses_data_dir(servers: Mapping[str, Any]) -> bool:
    """An agent-format plugin gets its data dir when at least one valid server is stdio."""
    return any(isinstance(s, dict) and s.get("transport") == "stdio" for s in servers.values())


# --- one plugin (§10.1, §10.3) --------------------------------------------------------------------------


def _file_config(
    fmt: BundleFormat, file: McpFileDocument, *, root: str, data_dir: str | None
) -> tuple[PluginMcpConfig, list[str]]:
    base = js_resolve(root, posixpath.dirname(js_resolve(root, file.relative_path)))
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
    normalized_root = js_resolve("/", root)
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
    :func:`plugin_data_dir` for the agent format. Returns the config and the diagnostics of validation."""
    if plugin.format == "native":
        return root_relative_config(plugin.manifest_mcp_servers or {}, root=plugin.root), []
    fmt: BundleFormat = plugin.format
    root = js_resolve("/", plugin.root)
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
