"""``python -m openclaw_mcp.entrypoints.openclaw_tools`` = the ``openclaw-tools`` console script."""

from openclaw_mcp.entrypoints.openclaw_tools.cli import main

main()
