"""``python -m openclaw_mcp …`` runs the ``openclaw`` CLI."""

import sys

from openclaw_mcp.entrypoints.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
