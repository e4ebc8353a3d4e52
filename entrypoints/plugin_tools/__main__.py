"""``python -m entrypoints.plugin_tools [--openclaw-agent-id <id>]``."""

from entrypoints.plugin_tools.cli import main

main()
