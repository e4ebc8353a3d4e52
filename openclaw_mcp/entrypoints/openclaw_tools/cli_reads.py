"""What the ``openclaw`` tool's CLI-backed read actions answer (spec openclaw-tools.md §7.3, decision D-OT4).

The reference runs its own ``status``, ``doctor``, ``plugins list`` and ``plugins search`` commands in
process and returns their console lines (its ``doctor`` also leaks lines to stdout, a reference bug). This
port answers with its own CLI's equivalent text, produced in process with both console streams captured, so
only MCP frames ever reach stdout:

* ``["mcp", "status"]`` → ``openclaw mcp status`` (this port's status of the managed MCP servers);
* ``["doctor"]`` → ``openclaw doctor`` (this port's doctor: the ``mcp`` config checks and legacy-key
  migration — like the CLI command it may migrate legacy ``mcp`` keys when the result is valid);
* ``["plugins", "list"]`` → the installed Python plugins (entry-point group ``openclaw_mcp.plugins``), one
  per line, listed from the distribution metadata without importing them;
* ``["plugins", "search", <query>]`` → a line saying ClawHub plugin search is not available in this port,
  then the installed plugins whose entry-point or distribution name contains the query (case-insensitive).

The CLI commands run in a worker thread (they drive their use cases without an event loop, or on their own
loop), with the process environment given to :func:`make_cli_text`.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Mapping, Sequence
from importlib import metadata

import anyio.to_thread

from openclaw_mcp.adapters.plugins.entry_points import ENTRY_POINT_GROUP
from openclaw_mcp.application.openclaw_tools._system_agent import CliText

__all__ = ["find_command", "installed_plugins", "make_cli_text", "run_cli_captured"]


def installed_plugins() -> list[tuple[str, str]]:
    """``(entry-point name, "<distribution> <version>")`` of the installed plugins, sorted by name (the first
    of several with one name wins, as the plugin loader picks it)."""
    chosen: dict[str, str] = {}
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = entry.dist
        chosen.setdefault(entry.name, f"{dist.name} {dist.version}" if dist is not None else "unknown distribution")
    return sorted(chosen.items())


def _plugin_lines(plugins: Sequence[tuple[str, str]]) -> list[str]:
    return [f"  - {name} ({source})" for name, source in plugins]


def _plugins_text(argv: Sequence[str]) -> tuple[int, str]:
    plugins = installed_plugins()
    if argv[1:2] == ["list"]:
        if not plugins:
            return 0, f"No Python plugins installed (entry-point group {ENTRY_POINT_GROUP})."
        return 0, "\n".join([f"Python plugins (entry-point group {ENTRY_POINT_GROUP}):", *_plugin_lines(plugins)])
    query = " ".join(argv[2:]).strip()
    wanted = query.lower()
    matches = [(name, source) for name, source in plugins if wanted in name.lower() or wanted in source.lower()]
    lines = [f'Plugin search (ClawHub) is not available in this port. Installed plugins matching "{query}":']
    lines += _plugin_lines(matches) if matches else ["  (none)"]
    return 0, "\n".join(lines)


def run_cli_captured(argv: Sequence[str], env: Mapping[str, str]) -> tuple[int, str]:
    """Run one CLI command (see the module docstring) with stdout and stderr captured together, in order."""
    if argv[:1] == ["plugins"]:
        return _plugins_text(argv)
    from openclaw_mcp.entrypoints.cli.console import Console

    buffer = io.StringIO()
    console = Console(stdout=buffer, stderr=buffer)
    if argv[:1] == ["mcp"]:
        from openclaw_mcp.entrypoints.cli.main import run

        code = run(list(argv[1:]), env, console)
    elif argv[:1] == ["doctor"]:
        from openclaw_mcp.entrypoints.cli.doctor_cli import doctor_main

        code = doctor_main(list(argv[1:]), env, console)
    else:
        return 1, f"openclaw-tools: no in-process CLI command {' '.join(argv)!r}"
    return code, buffer.getvalue().rstrip("\n")


def make_cli_text(env: Mapping[str, str] | None = None) -> CliText:
    """The ``cli_text`` callable of :class:`SystemAgentTool` over ``env`` (default: the process environment)."""
    environment = dict(os.environ if env is None else env)

    async def cli_text(argv: Sequence[str]) -> tuple[int, str]:
        return await anyio.to_thread.run_sync(run_cli_captured, list(argv), environment)

    return cli_text


def find_command(name: str, env: Mapping[str, str] | None = None) -> bool:
    """``models``'s local CLI check: whether ``name`` is an executable on ``PATH`` (the reference runs
    ``<name> --version``; finding it is enough here)."""
    path = (os.environ if env is None else env).get("PATH")
    return shutil.which(name, path=path) is not None
