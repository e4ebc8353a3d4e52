"""``openclaw mcp …``: argv → use case → printed result and exit code.

Only this module knows the CLI's streams and exit codes. Commands that do not connect import nothing
heavy: no asyncio, no anyio, no MCP SDK, no pydantic, no dependency-injector (they run inline, see
``entrypoints.cli.inline``, over adapters from ``entrypoints.composition``; the long-running ``serve``
side uses ``entrypoints.containers``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from openclaw_mcp.application.errors import (
    ApplicationError,
    CommandError,
    ConfigReadOnlyError,
    InvalidConfigError,
    WriteRejectedError,
)
from openclaw_mcp.entrypoints.cli.argv import Parsed, UsageError, parse, render_help
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.options import ServeOptions, UiOptions

__all__ = ["main", "main_mcp", "run"]

VERSION = "0.1.0"


def _debug(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    flag = env.get("OPENCLAW_DEBUG", "").strip().lower()
    return flag not in ("", "0", "false", "no", "off") or "--debug" in argv or "--verbose" in argv


def run(argv: Sequence[str], env: Mapping[str, str], console: Console) -> int:
    """Run ``openclaw mcp <argv…>`` and return the exit code."""
    try:
        parsed = parse(argv)
    except UsageError as exc:
        from openclaw_mcp.entrypoints.cli import render  # deferred: only failure paths render frames and envelopes

        console.raw_err(exc.text)
        if exc.json:
            console.json(render.error_envelope(exc.text))
        return 1
    if not isinstance(parsed, Parsed):
        console.raw_out(render_help(parsed, env))
        return 0

    as_json = parsed.json_output
    try:
        if isinstance(parsed.typed, ServeOptions):  # the bridge composes itself (entrypoints.containers)
            from openclaw_mcp.entrypoints.serve.cli import serve_command

            return serve_command(parsed.options, env)
        if isinstance(parsed.typed, UiOptions):  # a long-running server of its own (entrypoints.ui)
            from openclaw_mcp.entrypoints.ui.cli import ui_command

            return ui_command(parsed.options, env, console)
        from openclaw_mcp.entrypoints.cli import commands  # deferred: keeps `--help` and usage errors instant

        if commands.runs_inline(parsed.typed, env):
            from openclaw_mcp.entrypoints.cli.inline import run_inline

            return run_inline(commands.dispatch(parsed, env, console, True))
        import anyio  # deferred: only commands that connect, lease or run checks concurrently need a loop

        return anyio.run(_dispatch_until_signalled, parsed, env, console)
    except InvalidConfigError as exc:
        from openclaw_mcp.entrypoints.cli import render  # deferred: only failure paths render frames and envelopes
        from openclaw_mcp.entrypoints.composition import home_dir

        shown = render.shorten_home(exc.path, home_dir(env))
        console.err(render.invalid_config_block(shown, os.path.basename(exc.path), exc.analysis, json_mode=as_json))
        if as_json:
            console.json(render.invalid_config_envelope(shown, exc.analysis))
        return 1
    except CommandError as exc:
        from openclaw_mcp.entrypoints.cli import render  # deferred: only failure paths render frames and envelopes

        if as_json:
            console.json(render.error_envelope(str(exc)))
        else:
            console.err(str(exc))
        return 1
    except ConfigReadOnlyError as exc:
        console.err("\n".join(exc.lines))
        return 1
    except WriteRejectedError as exc:
        console.err(str(exc))
        return _uncaught(str(exc), exc, argv, env, console, as_json)
    except (ApplicationError, OSError) as exc:
        return _uncaught(str(exc), exc, argv, env, console, as_json)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last line of defence: a frame, never a bare traceback
        return _uncaught(str(exc) or type(exc).__name__, exc, argv, env, console, as_json)


async def _dispatch_until_signalled(parsed: Parsed, env: Mapping[str, str], console: Console) -> int:
    """``commands.dispatch`` on the loop, cancelled by SIGINT, SIGTERM or SIGHUP.

    The first signal cancels the command; its connections tear down under that cancellation (a stdio
    server's whole process group is killed and confirmed extinct) while later signals are swallowed, so
    they cannot cut the teardown short; once it is over they are ignored until the process exits. The exit
    code is then 128 + the first signal's number (130, 143, 129), whatever the command's outcome.
    """
    import signal  # deferred, like anyio: only the commands that run on a loop watch signals

    import anyio
    import anyio.abc

    from openclaw_mcp.entrypoints.cli import commands
    from openclaw_mcp.entrypoints.stdio_process import receive_signals

    signums = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    received: list[signal.Signals] = []
    failure: Exception | None = None
    code = 1
    work = anyio.CancelScope()

    def stop(signum: signal.Signals) -> None:
        if not received:
            received.append(signum)
            work.cancel()

    async def watch(*, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        try:
            await receive_signals(stop, signums, task_status=task_status)
        finally:
            if received:  # on the way out: closing the receiver restored the default (fatal) handlers
                for signum in signums:
                    signal.signal(signum, signal.SIG_IGN)

    async with anyio.create_task_group() as tg:
        await tg.start(watch)
        try:
            with work:
                code = await commands.dispatch(parsed, env, console, False)
        except Exception as exc:  # raised below, outside the task group (not as an exception group)
            failure = exc
        finally:
            tg.cancel_scope.cancel()  # the receiver: handlers stay until the command's teardown is over
    if received:
        if failure is not None:  # e.g. the teardown could not confirm a process group gone
            console.err(str(failure) or type(failure).__name__)
        return 128 + received[0]
    if failure is not None:
        raise failure
    return code


def _uncaught(
    reason: str,
    exc: BaseException,
    argv: Sequence[str],
    env: Mapping[str, str],
    console: Console,
    as_json: bool,
) -> int:
    from openclaw_mcp.entrypoints.cli import render  # deferred: only failure paths render frames and envelopes

    stack = None
    if _debug(argv, env):
        import traceback  # deferred: only the failure path with debugging on prints a stack

        stack = "".join(traceback.format_exception(exc))
    console.err(render.uncaught_frame(reason, stack))
    if as_json:
        console.json(render.error_envelope(reason))
    return 1


def main_mcp(argv: Sequence[str] | None = None) -> int:
    """Console script ``openclaw-mcp``: the same as ``openclaw mcp``."""
    args = list(sys.argv[1:] if argv is None else argv)
    console = Console()
    try:
        code = run(args, os.environ, console)
    finally:
        console.flush()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Console script ``openclaw``: only the ``mcp`` command group is provided."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["mcp"]:
        return main_mcp(args[1:])
    if args[:1] in (["--version"], ["-V"]):
        print(f"openclaw-mcp {VERSION} (OpenClaw 2026.9.6 compatible)")
        return 0
    if not args or args[:1] in (["--help"], ["-h"]):
        print("Usage: openclaw mcp [options] [command]\n\nThis install provides the `mcp` command group.")
        return 0
    Console().err(f"openclaw-mcp provides only `openclaw mcp`; unknown command {args[0]!r}.")
    return 1


def _entry(fn: Any) -> None:
    sys.exit(fn())


if __name__ == "__main__":
    _entry(main)
