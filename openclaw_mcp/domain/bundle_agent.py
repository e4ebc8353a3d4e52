"""The agent plugin format (spec client-runtime §10.7): the ``mcp.json`` document and its server rules, and the
plugin's data directory (``<state dir>/plugin-data/<encoded plugin id>``)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.domain.bundle_paths import PLUGIN_DATA_PLACEHOLDER, PLUGIN_ROOT_PLACEHOLDER, expand_placeholders
from openclaw_mcp.jscompat.jsjson import js_ordered_keys
from openclaw_mcp.jscompat.paths import is_path_inside, path_normalize, path_resolve
from openclaw_mcp.jscompat.text import js_trim, to_well_formed
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "AGENT_MCP_JSON",
    "AGENT_MCP_SCHEMA",
    "agent_uses_data_dir",
    "encode_plugin_install_dir_name",
    "parse_agent_mcp_json",
    "plugin_data_dir",
]

AGENT_MCP_JSON: Final = "mcp.json"
AGENT_MCP_SCHEMA: Final = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
_AGENT_TOP_KEYS = frozenset({"$schema", "mcpServers"})
_AGENT_STDIO_KEYS = frozenset({"type", "command", "args", "env", "cwd"})
_AGENT_HTTP_KEYS = frozenset({"type", "url", "headers"})
_BARE_COMMAND_FORBIDDEN = re.compile(r"[\s/\\]")
_SEGMENT_UNSAFE = re.compile(r"[^a-zA-Z0-9._]+")


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
    return path_normalize(f"{state_dir}/plugin-data/{encode_plugin_install_dir_name(plugin_id)}")


def _is_string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _valid_agent_command(command: Any, root: str) -> bool:
    if not isinstance(command, str) or not command:
        return False
    if command.startswith("./"):
        return len(command) > 2 and is_path_inside(root, path_resolve(root, command))
    return _BARE_COMMAND_FORBIDDEN.search(command) is None


def _valid_agent_cwd(cwd: Any, root: str, data_dir: str) -> bool:
    if not isinstance(cwd, str):
        return False
    if cwd.startswith("./") or cwd == PLUGIN_ROOT_PLACEHOLDER or cwd.startswith(PLUGIN_ROOT_PLACEHOLDER + "/"):
        base = root
    elif cwd == PLUGIN_DATA_PLACEHOLDER or cwd.startswith(PLUGIN_DATA_PLACEHOLDER + "/"):
        base = data_dir
    else:
        return False
    expanded = expand_placeholders(cwd, root=root, data_dir=data_dir)
    return is_path_inside(base, path_resolve(base, expanded))


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
