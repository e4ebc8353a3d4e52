"""The private redirect page ``openclaw mcp ui`` opens in the browser (issue 32): a file under
``<state dir>/ui/`` created exclusively with mode 0600 in a 0700 directory, so that the browser's command line
holds only its path and no other local user can read what it points at."""

from __future__ import annotations

import os
import secrets

from openclaw_mcp.adapters.filesystem._atomic import remove_quietly, write_new_file

__all__ = ["remove_launch_page", "write_launch_page"]


def write_launch_page(state_dir: str, html: str) -> str:
    """Write ``html`` to a new private file (``<state_dir>/ui/open-<pid>-<random>.html``); returns its path.
    Raises ``OSError`` when the state directory cannot hold it."""
    directory = os.path.join(state_dir, "ui")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    path = os.path.join(directory, f"open-{os.getpid()}-{secrets.token_hex(8)}.html")
    write_new_file(path, html.encode("utf-8"), 0o600)
    return path


def remove_launch_page(path: str) -> None:
    remove_quietly(path)
