"""Projections of ``mcp.servers`` into the native MCP configuration of other agent runtimes (spec
runtime-projection): Codex app-server threads and CLI, Claude Code, the Gemini CLI. Pure functions; the use
cases that read tokens and write files are in :mod:`application.projection`."""

from domain.projection.claude import (
    EMPTY_CLAUDE_CONFIG,
    claude_config_text,
    claude_disallowed_tools,
    mcp_config_paths,
    merge_disallowed_tools,
    substitute_openclaw_templates,
    with_mcp_config_file,
)
from domain.projection.codex import (
    CodexProjectionError,
    clamp_ms,
    codex_agent_allowed,
    codex_tool_overrides_for_agent,
    is_requester_scoped,
    js_seconds,
    mcp_tool_grants,
    normalize_codex,
    partition_codex_servers,
    string_map,
)
from domain.projection.codex_cli import build_codex_servers, codex_cli_args
from domain.projection.gemini import GEMINI_WEB_SEARCH_TOOL, gemini_server, gemini_settings
from domain.projection.native_policy import (
    MCP_PLUGIN_ID,
    NativeServerPolicy,
    apply_native_policy,
    native_denials,
    prepare_native_policy,
)
from domain.projection.oauth_bearer import needs_bearer, oauth_token_env_var, with_bearer_header
from domain.projection.selection import (
    code_unit_sorted,
    enabled_servers,
    exact_denials,
    merge_exclude,
    normalize_denials,
    without_tool_filter,
)
from domain.projection.toml_inline import TomlInlineError, toml_inline

__all__ = [
    "EMPTY_CLAUDE_CONFIG",
    "GEMINI_WEB_SEARCH_TOOL",
    "MCP_PLUGIN_ID",
    "CodexProjectionError",
    "NativeServerPolicy",
    "TomlInlineError",
    "apply_native_policy",
    "build_codex_servers",
    "clamp_ms",
    "claude_config_text",
    "claude_disallowed_tools",
    "code_unit_sorted",
    "codex_agent_allowed",
    "codex_cli_args",
    "codex_tool_overrides_for_agent",
    "enabled_servers",
    "exact_denials",
    "gemini_server",
    "gemini_settings",
    "is_requester_scoped",
    "js_seconds",
    "mcp_config_paths",
    "mcp_tool_grants",
    "merge_disallowed_tools",
    "merge_exclude",
    "native_denials",
    "needs_bearer",
    "normalize_codex",
    "normalize_denials",
    "oauth_token_env_var",
    "partition_codex_servers",
    "prepare_native_policy",
    "string_map",
    "substitute_openclaw_templates",
    "toml_inline",
    "with_bearer_header",
    "with_mcp_config_file",
    "without_tool_filter",
]
