"""``python -m entrypoints.plugin_tools [--openclaw-agent-id <id>]``."""

from openclaw_mcp.entrypoints.plugin_tools.cli import main

main()
