"""Projections of ``mcp.servers`` into the native MCP configuration of other agent runtimes (spec
runtime-projection), one module per target: :mod:`.codex` (the Codex mapping, ``codex.agents`` scoping, grants,
fingerprint), :mod:`.codex_cli` (the ``-c mcp_servers=…`` override), :mod:`.inline_toml`, :mod:`.claude`,
:mod:`.gemini`, :mod:`.oauth_bearer`, :mod:`.native_policy` (tool policy on what is projected) and
:mod:`.selection` (which servers, session denials). Pure functions; the use cases that read tokens and write
files are in :mod:`application.projection`. Import from the modules: the CLI loads only what it uses.
"""
