"""What a session runtime serves (spec client-runtime §4.14, §10.8) and its fingerprints (decision D12)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openclaw_mcp.application.runtime.services import ServerSpec
from openclaw_mcp.domain.filters import server_denied_by_tool_policy, session_deny_set
from openclaw_mcp.domain.names import assign_safe_server_names
from openclaw_mcp.jscompat.jsjson import js_ordered_keys

__all__ = ["SessionConfig", "config_fingerprint", "server_spec"]


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """What a session runtime serves.

    ``servers`` is the merged, enabled server map of the session (§10.8), raw definitions in JavaScript
    key order. ``safe_server_names`` overrides the safe-name assignment (§5.2; default: assigned from every
    key of ``servers``, before any exclusion). ``tool_denylist`` is the session's tool-policy deny list:
    servers it matches (§6.5) are excluded before anything connects. ``mcp_tools_deny`` is
    ``toolOverrides.mcpToolsDeny`` (§6.6). ``configured_server_names`` are the names present in the user
    config's ``mcp.servers`` (the others are plugin-owned; ``None``: all configured).
    """

    session_id: str
    servers: Mapping[str, object]
    safe_server_names: Mapping[str, str] | None = None
    mcp_tools_deny: Mapping[str, Sequence[str]] | None = None
    mcp_apps_enabled: bool = False
    configured_server_names: frozenset[str] | None = None
    workspace_dir: str | None = None
    agent_dir: str | None = None
    tool_denylist: tuple[str, ...] = ()
    plugin_data_dirs: Mapping[str, str] | None = None
    """``PLUGIN_DATA`` directories of plugin-bundle stdio servers, by server name (§10.7, §10.8)."""

    def declared_names(self) -> list[str]:
        """Every server of the map, in JavaScript key order (§0.5)."""
        return js_ordered_keys(self.servers)

    def safe_names(self) -> dict[str, str]:
        """Safe server names of the declared set (§5.2)."""
        assigned = assign_safe_server_names(self.declared_names())
        if self.safe_server_names is not None:
            assigned.update(self.safe_server_names)
        return assigned

    def server_names(self) -> list[str]:
        """The servers the runtime serves (part order): declared ones not excluded by the tool policy."""
        if not self.tool_denylist:
            return self.declared_names()
        safe = self.safe_names()
        return [
            name for name in self.declared_names() if not server_denied_by_tool_policy(self.tool_denylist, safe[name])
        ]


def _digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _deny_digest(config: SessionConfig, names: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in names:
        denied = session_deny_set(config.mcp_tools_deny, name)
        if denied:
            out[name] = sorted(denied)
    return out


def config_fingerprint(config: SessionConfig, server_names: Sequence[str] | None = None) -> str:
    """SHA-256 of the canonical JSON (sorted keys, decision D12) of ``{servers, mcpAppsEnabled,
    safeServerNames, mcpToolsDeny}``: for the whole session (served servers, every declared safe name), or
    for one server's runtime when ``server_names`` is given (reuse on reload, §4.14)."""
    names = config.server_names() if server_names is None else list(server_names)
    safe = config.safe_names()
    payload: dict[str, object] = {
        "servers": {name: config.servers[name] for name in names},
        "mcpAppsEnabled": config.mcp_apps_enabled,
        "safeServerNames": safe if server_names is None else {name: safe[name] for name in names},
    }
    deny = _deny_digest(config, names)
    if deny:
        payload["mcpToolsDeny"] = deny
    return _digest(payload)


def server_spec(config: SessionConfig, name: str) -> ServerSpec:
    """The spec of server ``name`` of the session."""
    configured = config.configured_server_names
    return ServerSpec(
        server_name=name,
        definition=config.servers[name],
        safe_server_name=config.safe_names()[name],
        denied_tool_names=session_deny_set(config.mcp_tools_deny, name),
        plugin_owned=configured is not None and name not in configured,
        fingerprint=config_fingerprint(config, [name]),
        workspace_dir=config.workspace_dir,
        agent_dir=config.agent_dir,
        plugin_data_dir=(config.plugin_data_dirs or {}).get(name),
        mcp_apps_enabled=config.mcp_apps_enabled,
    )
