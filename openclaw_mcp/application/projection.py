"""Projecting ``mcp.servers`` into Codex threads, the Codex CLI, Claude Code and the Gemini CLI (spec
runtime-projection §1.4, §3.1, §4–§6): the use cases around the pure mappings of :mod:`domain.projection`.

They resolve OAuth bearer tokens (:class:`~application.ports.projection.BearerTokens`), read existing
``--mcp-config`` files and write the generated ones (:class:`~application.ports.projection.ProjectionFiles`);
every written file is removed by the returned :meth:`CliProjection.cleanup`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.oauth import McpOAuth, oauth_server
from openclaw_mcp.application.ports.collation import Collator
from openclaw_mcp.application.ports.oauth import OAuthProtocol
from openclaw_mcp.application.ports.projection import BearerTokens, ProjectionFiles
from openclaw_mcp.application.runtime.session_runtime import SessionRuntime
from openclaw_mcp.domain.bundle_mcp import extract_server_map, merge_patch, to_cli_server_config
from openclaw_mcp.domain.projection.claude import (
    EMPTY_CLAUDE_CONFIG,
    claude_config_text,
    claude_disallowed_tools,
    mcp_config_paths,
    merge_disallowed_tools,
    with_mcp_config_file,
)
from openclaw_mcp.domain.projection.codex import codex_tool_overrides_for_agent, is_requester_scoped
from openclaw_mcp.domain.projection.codex_cli import build_codex_servers, codex_cli_args
from openclaw_mcp.domain.projection.gemini import gemini_settings
from openclaw_mcp.domain.projection.native_policy import (
    NativeServerPolicy,
    apply_native_policy,
    native_denials,
    prepare_native_policy,
)
from openclaw_mcp.domain.projection.oauth_bearer import needs_bearer, oauth_token_env_var, with_bearer_header
from openclaw_mcp.domain.projection.selection import enabled_servers, exact_denials, merge_exclude, normalize_denials
from openclaw_mcp.domain.tool_policy import session_pipeline_steps
from openclaw_mcp.jscompat.jsjson import js_dumps

__all__ = [
    "CLAUDE_MODE",
    "CODEX_MODE",
    "GEMINI_MODE",
    "CliProjection",
    "CliProjectionRequest",
    "McpOAuthBearerTokens",
    "ProjectionMode",
    "build_codex_thread_patch",
    "configured_servers",
    "native_policy_of",
    "prepare_cli_projection",
]

CLAUDE_MODE: Final = "claude-config-file"
GEMINI_MODE: Final = "gemini-system-settings"
CODEX_MODE: Final = "codex-config-overrides"
ProjectionMode = Literal["claude-config-file", "gemini-system-settings", "codex-config-overrides"]
GEMINI_SETTINGS_ENV: Final = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
REMOTE_OAUTH_MESSAGE: Final = "MCP OAuth bearer projection is only supported for local app-server connections."


def configured_servers(config: Mapping[str, Any]) -> dict[str, Any]:
    """``mcp.servers`` of an OpenClaw config (empty when absent or not an object)."""
    mcp = config.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    return dict(servers) if isinstance(servers, dict) else {}


def _web_search_disabled(tool_overrides: Mapping[str, Any] | None) -> bool:
    return (tool_overrides or {}).get("webSearch") is False


def _sorter(collator: Collator) -> Callable[[Iterable[str]], list[str]]:
    return lambda names: collator.sort(list(names))


class McpOAuthBearerTokens:
    """Bearer tokens from the MCP OAuth store (cli-registry §7): the operator identity of (name, URL),
    refreshed under the store's lease. ``protocol(url)`` opens the OAuth wire protocol for a refresh."""

    def __init__(self, oauth: McpOAuth, protocol: Callable[[str], AbstractAsyncContextManager[OAuthProtocol]]) -> None:
        self._oauth = oauth
        self._protocol = protocol

    async def access_token(self, name: str, server: Mapping[str, Any]) -> str:
        url = server.get("url")
        if not isinstance(url, str) or not url.strip():
            raise ApplicationError(f'MCP server "{name}" has no URL for OAuth.')
        oauth = server.get("oauth")
        settings: Mapping[str, Any] = oauth if isinstance(oauth, dict) else {}
        identity = oauth_server(
            name,
            url.strip(),
            scope=settings.get("scope"),
            redirect_url=settings.get("redirectUrl"),
            client_metadata_url=settings.get("clientMetadataUrl"),
        )
        async with self._protocol(identity.url) as protocol:
            token = await self._oauth.resolve_access_token(identity, protocol, accept_unknown_expiry=True)
        if token is None:  # pragma: no cover - resolve_access_token raises instead without allow_missing_token
            raise ApplicationError(f'MCP server "{name}" requires OAuth authorization. Run openclaw mcp login {name}.')
        return token


async def _bearer(
    name: str,
    server: dict[str, Any],
    tokens: BearerTokens | None,
    *,
    literal: bool,
    env: dict[str, str],
) -> tuple[dict[str, Any] | None, str | None]:
    """(the server with its resolved bearer, or ``None`` and the reason it is unavailable)."""
    if not needs_bearer(server):
        return server, None
    try:
        if tokens is None:
            raise ApplicationError(f'MCP server "{name}" requires OAuth authorization. Run openclaw mcp login {name}.')
        token = await tokens.access_token(name, server)
    except (ApplicationError, OSError) as exc:
        return None, str(exc)
    if literal:
        return with_bearer_header(server, f"Bearer {token}"), None
    variable = oauth_token_env_var(name)
    env[variable] = token
    return with_bearer_header(server, "Bearer ${" + variable + "}"), None


async def native_policy_of(
    runtime: SessionRuntime,
    config: Mapping[str, Any],
    *,
    collator: Collator,
    agent_id: str | None,
    session_key: str | None = None,
    tools_allow: Sequence[str] | None = None,
    warn: Callable[[str], None] = lambda _line: None,
) -> dict[str, NativeServerPolicy]:
    """The native policy (§3.1 steps 3–4) of the servers of a session runtime: their tools listed, then the
    agent's conversation policy (profile, global, agent layers) and the run's ``tools_allow`` cap."""
    catalog = await runtime.get_catalog()
    steps = session_pipeline_steps(config, agent_id=agent_id, session_key=session_key)
    return prepare_native_policy(catalog, steps, collator.key, tools_allow=tools_allow, warn=warn)


# --- Codex app-server threads (§3) ----------------------------------------------------------------------


async def build_codex_thread_patch(
    config: Mapping[str, Any],
    *,
    collator: Collator,
    agent_id: str | None = None,
    tool_overrides: Mapping[str, Any] | None = None,
    tokens: BearerTokens | None = None,
    grants: Mapping[str, Sequence[str]] | None = None,
    policy: Mapping[str, NativeServerPolicy] | None = None,
    allow_literal_oauth: bool = True,
    on_server_unavailable: Callable[[str, str], None] | None = None,
) -> dict[str, Any] | None:
    """``{"mcp_servers": {…}}`` for a Codex app-server thread of ``agent_id``, or ``None`` when nothing is
    projected. ``policy`` is the prepared native policy (servers without an allowed tool are omitted);
    ``grants`` the agent's approved tools per server; unavailable OAuth servers are reported through
    ``on_server_unavailable(name, message)``."""
    servers = configured_servers(config)
    overrides = codex_tool_overrides_for_agent(servers, agent_id, tool_overrides)
    selected: dict[str, dict[str, Any]] = {}
    for name, server in enabled_servers(servers, overrides).items():
        if is_requester_scoped(server):
            continue
        if not allow_literal_oauth and server.get("auth") == "oauth":
            if on_server_unavailable is not None:
                on_server_unavailable(name, REMOTE_OAUTH_MESSAGE)
            continue
        selected[name] = server
    if policy is not None:
        selected = apply_native_policy(selected, policy)
    resolved: dict[str, dict[str, Any]] = {}
    for name, server in selected.items():
        entry, reason = await _bearer(name, server, tokens, literal=True, env={})
        if entry is None:
            if on_server_unavailable is not None:
                on_server_unavailable(name, reason or "")
            continue
        resolved[name] = merge_exclude(entry, exact_denials(overrides, name))
    codex_servers = build_codex_servers(resolved, sort=_sorter(collator), grants=grants)
    return {"mcp_servers": codex_servers} if codex_servers else None


# --- CLI backends (§4–§6) -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CliProjectionRequest:
    """One CLI backend run: its argv, workspace and environment, the OpenClaw config and session overrides.

    ``servers`` replaces the configured ``mcp.servers`` (a caller that merged plugin bundle servers passes the
    merged map); ``additional_config`` is the managed loopback config (``{"mcpServers": {…}}``); ``policy``
    the prepared native policy (``None``: policy not applied, only exact session denials)."""

    mode: ProjectionMode
    args: Sequence[str]
    workspace_dir: str
    config: Mapping[str, Any] = field(default_factory=dict)
    resume_args: Sequence[str] | None = None
    enabled: bool = True
    env: Mapping[str, str] = field(default_factory=dict)
    process_env: Mapping[str, str] = field(default_factory=dict)
    tool_overrides: Mapping[str, Any] | None = None
    servers: Mapping[str, Any] | None = None
    additional_config: Mapping[str, Any] | None = None
    policy: Mapping[str, NativeServerPolicy] | None = None


@dataclass(slots=True)
class CliProjection:
    """The rewritten argv and environment, the generated file (if any) and the warnings of one projection."""

    args: list[str]
    resume_args: list[str]
    env: dict[str, str]
    warnings: list[str]
    config_path: str | None = None
    hashed: object = None
    _files: ProjectionFiles | None = None

    @property
    def mcp_config_hash(self) -> str | None:
        """SHA-256 of the merged config's JSON text (§5.5, D-RP3), computed when asked for."""
        return None if self.hashed is None else _hash(self.hashed)

    async def cleanup(self) -> None:
        """Removes the generated file and its directory (idempotent)."""
        if self.config_path is not None and self._files is not None:
            await self._files.remove(self.config_path)
            self.config_path = None

    @asynccontextmanager
    async def held(self) -> AsyncIterator[CliProjection]:
        """The projection, cleaned up when the block ends (also on cancellation)."""
        try:
            yield self
        finally:
            await self.cleanup()


async def _existing_claude_servers(request: CliProjectionRequest, files: ProjectionFiles) -> dict[str, Any]:
    resume = list(request.resume_args or [])
    paths = mcp_config_paths(resume, request.workspace_dir) or mcp_config_paths(request.args, request.workspace_dir)
    merged: dict[str, Any] = {}
    for path in paths:
        text = await files.read_text(path)
        try:
            document = json.loads(text) if text is not None else None
        except ValueError:
            document = None
        servers = extract_server_map(document) if isinstance(document, dict) else {}
        merged = merge_patch(merged, servers)
    return merged


def _hash(document: object) -> str:
    return hashlib.sha256((js_dumps(document, indent=2) + "\n").encode("utf-8")).hexdigest()


async def prepare_cli_projection(
    request: CliProjectionRequest,
    *,
    files: ProjectionFiles,
    collator: Collator,
    tokens: BearerTokens | None = None,
) -> CliProjection:
    """The projection of one CLI run (§4–§6). Raises ``OSError`` when a generated file cannot be written and
    ``CodexProjectionError`` for a wildcard tool filter in Codex mode."""
    args = list(request.args)
    resume = list(request.resume_args if request.resume_args is not None else request.args)
    env = dict(request.env)
    warnings: list[str] = []
    web_search_disabled = _web_search_disabled(request.tool_overrides)
    if not request.enabled:
        if request.mode == CLAUDE_MODE and web_search_disabled:
            args = merge_disallowed_tools(args, ["WebSearch"])
            resume = merge_disallowed_tools(resume, ["WebSearch"])
        return CliProjection(args, resume, env, warnings)

    overrides = request.tool_overrides
    configured = request.servers if request.servers is not None else configured_servers(request.config)
    base = await _existing_claude_servers(request, files) if request.mode == CLAUDE_MODE else {}
    chosen = {name: to_cli_server_config(server) for name, server in enabled_servers(configured, overrides).items()}
    merged: dict[str, Any] = merge_patch(base, chosen)
    additional = extract_server_map(request.additional_config) if request.additional_config else {}
    merged = merge_patch(merged, additional)

    servers: dict[str, dict[str, Any]] = {}
    for name, server in merged.items():
        if not isinstance(server, dict):
            continue
        entry, reason = await _bearer(name, server, tokens, literal=False, env=env)
        if entry is None:
            warnings.append(f"bundle MCP skipped unavailable OAuth server {name}: {reason}")
            continue
        servers[name] = entry
    overridden = (overrides or {}).get("mcpServers")
    if isinstance(overridden, dict):
        servers = {name: s for name, s in servers.items() if overridden.get(name) is not False}

    if request.policy is not None:
        own = {name: s for name, s in servers.items() if name not in additional}
        narrowed = apply_native_policy(own, request.policy)
        servers = {name: s for name, s in servers.items() if name in narrowed or name in additional}
        servers.update(narrowed)
        denials = native_denials(request.policy)
        denials.update({name: exact_denials(overrides, name) for name in additional})
        denials = normalize_denials(denials)
    else:
        denials = normalize_denials((overrides or {}).get("mcpToolsDeny"))

    if request.mode == CODEX_MODE:
        with_denials = {name: merge_exclude(s, denials.get(name, ())) for name, s in servers.items()}
        codex_servers = build_codex_servers(with_denials, sort=_sorter(collator))
        extra = codex_cli_args([], codex_servers, web_search_disabled=web_search_disabled)
        return CliProjection([*args, *extra], [*resume, *extra], env, warnings, hashed={"mcpServers": servers})
    if request.mode == GEMINI_MODE:
        return await _gemini(request, servers, denials, env, warnings, files, web_search_disabled)
    return await _claude(args, resume, servers, denials, env, warnings, files, web_search_disabled)


async def _claude(
    args: list[str],
    resume: list[str],
    servers: dict[str, dict[str, Any]],
    denials: dict[str, list[str]],
    env: dict[str, str],
    warnings: list[str],
    files: ProjectionFiles,
    web_search_disabled: bool,
) -> CliProjection:
    text = claude_config_text(servers, env) if servers else EMPTY_CLAUDE_CONFIG
    path = await files.write_private("openclaw-cli-mcp-", "mcp.json", text)
    denied = claude_disallowed_tools(denials, web_search_disabled=web_search_disabled)
    document: object = {"mcpServers": servers}
    if denials or web_search_disabled:
        document = {"config": document, "mcpToolsDeny": denials, "webSearchDisabled": web_search_disabled}
    return CliProjection(
        merge_disallowed_tools(with_mcp_config_file(args, path), denied),
        merge_disallowed_tools(with_mcp_config_file(resume, path), denied),
        env,
        warnings,
        config_path=path,
        hashed=document,
        _files=files,
    )


async def _gemini(
    request: CliProjectionRequest,
    servers: dict[str, dict[str, Any]],
    denials: dict[str, list[str]],
    env: dict[str, str],
    warnings: list[str],
    files: ProjectionFiles,
    web_search_disabled: bool,
) -> CliProjection:
    base_path = (env.get(GEMINI_SETTINGS_ENV) or request.process_env.get(GEMINI_SETTINGS_ENV) or "").strip()
    base: dict[str, Any] = {}
    if base_path:
        text = await files.read_text(base_path)
        try:
            parsed = json.loads(text) if text is not None and text.strip() else {}
        except ValueError:
            parsed = {}
        base = parsed if isinstance(parsed, dict) else {}

    def lookup(name: str) -> str | None:
        return env.get(name, request.process_env.get(name))

    settings = gemini_settings(base, servers, denials, lookup, web_search_disabled=web_search_disabled)
    path = await files.write_private("openclaw-gemini-mcp-", "settings.json", js_dumps(settings, indent=2) + "\n")
    env[GEMINI_SETTINGS_ENV] = path
    return CliProjection(
        list(request.args),
        list(request.resume_args or []),
        env,
        warnings,
        config_path=path,
        hashed={"mcpServers": servers},
        _files=files,
    )
