"""How a command's failure is printed, for every CLI command (``openclaw mcp …``, ``config``, ``doctor``): the
invalid-config block, a command error's one line, the read-only lines, or the reference's uncaught-error frame
(with the stack under ``OPENCLAW_DEBUG=1`` / ``--debug`` / ``--verbose``), each with its JSON envelope under
``--json``. Loaded only on failure paths."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from openclaw_mcp.application.errors import CommandError, ConfigReadOnlyError, InvalidConfigError, WriteRejectedError
from openclaw_mcp.entrypoints.cli import render
from openclaw_mcp.entrypoints.cli.console import Console

__all__ = ["debugging", "report_failure"]


def debugging(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether the uncaught-error frame includes the stack."""
    flag = env.get("OPENCLAW_DEBUG", "").strip().lower()
    return flag not in ("", "0", "false", "no", "off") or "--debug" in argv or "--verbose" in argv


def report_failure(
    exc: BaseException,
    env: Mapping[str, str],
    console: Console,
    *,
    as_json: bool = False,
    argv: Sequence[str] = (),
) -> int:
    """Print ``exc`` as the registry commands do and return the exit code (1)."""
    if isinstance(exc, InvalidConfigError):
        from openclaw_mcp.entrypoints.paths import resolve_home as home_dir

        shown = render.shorten_home(exc.path, home_dir(env))
        console.err(render.invalid_config_block(shown, os.path.basename(exc.path), exc.analysis, json_mode=as_json))
        if as_json:
            console.json(render.invalid_config_envelope(shown, exc.analysis))
        return 1
    if isinstance(exc, CommandError):
        if as_json:
            console.json(render.error_envelope(str(exc)))
        else:
            console.err(str(exc))
        return 1
    if isinstance(exc, ConfigReadOnlyError):
        console.err("\n".join(exc.lines))
        return 1
    if isinstance(exc, WriteRejectedError):
        console.err(str(exc))
    reason = str(exc) or type(exc).__name__
    stack = None
    if debugging(argv, env):
        import traceback  # deferred: only the failure path with debugging on prints a stack

        stack = "".join(traceback.format_exception(exc))
    console.err(render.uncaught_frame(reason, stack))
    if as_json:
        console.json(render.error_envelope(reason))
    return 1
