"""Projections of ``mcp.servers`` into the native MCP configuration of other agent runtimes (spec
runtime-projection): Codex app-server threads and CLI, Claude Code, the Gemini CLI. Pure functions; the use
cases that read tokens and write files are in :mod:`application.projection`."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the static view of the lazy names
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
        codex_fingerprint,
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
    from domain.projection.inline_toml import TomlInlineError, toml_inline
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

#: Where each public name lives: the submodules are imported on first use (the CLI imports only what it needs).
_SOURCES = {
    "CodexProjectionError": "domain.projection.codex",
    "EMPTY_CLAUDE_CONFIG": "domain.projection.claude",
    "GEMINI_WEB_SEARCH_TOOL": "domain.projection.gemini",
    "MCP_PLUGIN_ID": "domain.projection.native_policy",
    "NativeServerPolicy": "domain.projection.native_policy",
    "TomlInlineError": "domain.projection.inline_toml",
    "apply_native_policy": "domain.projection.native_policy",
    "build_codex_servers": "domain.projection.codex_cli",
    "clamp_ms": "domain.projection.codex",
    "claude_config_text": "domain.projection.claude",
    "claude_disallowed_tools": "domain.projection.claude",
    "code_unit_sorted": "domain.projection.selection",
    "codex_agent_allowed": "domain.projection.codex",
    "codex_cli_args": "domain.projection.codex_cli",
    "codex_fingerprint": "domain.projection.codex",
    "codex_tool_overrides_for_agent": "domain.projection.codex",
    "enabled_servers": "domain.projection.selection",
    "exact_denials": "domain.projection.selection",
    "gemini_server": "domain.projection.gemini",
    "gemini_settings": "domain.projection.gemini",
    "is_requester_scoped": "domain.projection.codex",
    "js_seconds": "domain.projection.codex",
    "mcp_config_paths": "domain.projection.claude",
    "mcp_tool_grants": "domain.projection.codex",
    "merge_disallowed_tools": "domain.projection.claude",
    "merge_exclude": "domain.projection.selection",
    "native_denials": "domain.projection.native_policy",
    "needs_bearer": "domain.projection.oauth_bearer",
    "normalize_codex": "domain.projection.codex",
    "normalize_denials": "domain.projection.selection",
    "oauth_token_env_var": "domain.projection.oauth_bearer",
    "partition_codex_servers": "domain.projection.codex",
    "prepare_native_policy": "domain.projection.native_policy",
    "string_map": "domain.projection.codex",
    "substitute_openclaw_templates": "domain.projection.claude",
    "toml_inline": "domain.projection.inline_toml",
    "with_bearer_header": "domain.projection.oauth_bearer",
    "with_mcp_config_file": "domain.projection.claude",
    "without_tool_filter": "domain.projection.selection",
}

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
    "codex_fingerprint",
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


def __getattr__(name: str) -> Any:
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
