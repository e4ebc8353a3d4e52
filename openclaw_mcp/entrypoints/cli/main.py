"""``openclaw mcp …``: argv → use case → printed result and exit code.

Only this module knows the CLI's streams and exit codes. Commands that do not connect import nothing
heavy: no asyncio, no anyio, no MCP SDK, no pydantic, no dependency-injector (they run inline, see
``entrypoints.cli.inline``, over adapters from ``entrypoints.composition``; the long-running ``serve``
side uses ``entrypoints.containers``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from openclaw_mcp.entrypoints.cli.console import Console

if TYPE_CHECKING:
    from openclaw_mcp.entrypoints.cli.argv import Parsed
    from openclaw_mcp.entrypoints.settings import Settings

__all__ = ["main", "main_mcp", "run"]

VERSION = "0.1.0"


def run(argv: Sequence[str], env: Mapping[str, str], console: Console) -> int:
    """Run ``openclaw mcp <argv…>`` and return the exit code."""
    # deferred: `completion`, `config` and `doctor` start without the `openclaw mcp` parser and its options
    from openclaw_mcp.entrypoints.cli.argv import Parsed, UsageError, parse
    from openclaw_mcp.entrypoints.cli.help_text import render_help
    from openclaw_mcp.entrypoints.cli.options import ServeOptions, UiOptions

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
        if parsed.command is None and console.out_is_terminal():  # scripts read the reference's text only
            from openclaw_mcp.entrypoints.cli.help_text import own_commands_line

            console.raw_out(own_commands_line())
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
        from openclaw_mcp.entrypoints.settings import Settings

        settings = Settings.from_environ(env)  # resolved once, handed down
        if commands.runs_inline(parsed.typed, settings):
            from openclaw_mcp.entrypoints.cli.inline import run_inline

            return run_inline(commands.dispatch(parsed, settings, console, True))
        import anyio  # deferred: only commands that connect, lease or run checks concurrently need a loop

        from openclaw_mcp.entrypoints.logging_setup import ensure_logging  # the SDK's records: one line, no traceback

        ensure_logging(env)
        return anyio.run(_dispatch_until_signalled, parsed, settings, console)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last line of defence: a frame, never a bare traceback
        from openclaw_mcp.entrypoints.cli.failures import report_failure  # deferred: only failure paths render

        return report_failure(exc, env, console, as_json=as_json, argv=argv)


async def _dispatch_until_signalled(parsed: Parsed, settings: Settings, console: Console) -> int:
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
                code = await commands.dispatch(parsed, settings, console, False)
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


VERSION_LINE = f"OpenClaw 2026.9.6 (openclaw-mcp {VERSION})"
"""``--version``: the reference's parsable ``OpenClaw <version> (<build>)`` with our own identity as the build."""
_REFERENCE_ONLY = """
acp agent agents approvals attach audit automations backup browser capability channels chat clawbot configure connect
cron daemon dashboard database devices directory dns docs exec-approvals exec-policy file-transfer fleet gateway
googlemeet health hooks infer logs memory message migrate models node nodes onboard pairing plugins promos proxy qr
reset resume sandbox secrets security sessions setup skills status system tasks teamsmeetings telemetry terminal
transcripts triage tui uninstall update users webhooks worker worktrees zoommeetings
"""
REFERENCE_ONLY_COMMANDS = frozenset(_REFERENCE_ONLY.split())
"""The reference's other top-level commands (2026.9.6): refused with a line naming the full CLI."""


def main(argv: Sequence[str] | None = None) -> int:
    """Console script ``openclaw``: the root options, then ``mcp``, ``config``, ``doctor``, ``completion``, ``help``."""
    args = list(sys.argv[1:] if argv is None else argv)
    console = Console()
    try:
        return _main(args, os.environ, console)
    finally:
        console.flush()


def main_mcp(argv: Sequence[str] | None = None) -> int:
    """Console script ``openclaw-mcp``: the same as ``openclaw mcp`` (root options included)."""
    return main(["mcp", *(sys.argv[1:] if argv is None else argv)])


def _main(args: list[str], environ: MutableMapping[str, str], console: Console) -> int:
    """The reference's start-up order: ``--container`` and ``--profile``/``--dev`` scanned (bad values: exit 2),
    the profile's paths applied to the environment, ``--log-level`` checked, the container hop, then the command."""
    from openclaw_mcp.entrypoints.cli.root_options import RootOptionError, invalid_log_level_text, scan_root_options

    try:
        root = scan_root_options(args)
    except RootOptionError as exc:
        console.err(f"[openclaw] {exc}")
        return 2
    container = None
    if root.container or environ.get("OPENCLAW_CONTAINER"):
        from openclaw_mcp.entrypoints.cli.container import container_target

        container = container_target(root.container, environ)
    if root.profile is not None:
        from openclaw_mcp.entrypoints.cli.root_options import profile_env
        from openclaw_mcp.entrypoints.paths import resolve_home

        environ.update(profile_env(root.profile, environ, resolve_home(environ), os.getcwd()))
    if container is not None and root.profile is not None:
        console.err("[openclaw] --container cannot be combined with --profile/--dev")
        return 2
    if root.log_level is not None and (refused := invalid_log_level_text(root.log_level)) is not None:
        console.err(refused)
        return 1
    if container is not None:
        return _in_container(container, root.without_container, environ, console)
    if root.no_color:
        environ["NO_COLOR"] = "1"
        environ["FORCE_COLOR"] = "0"
    if root.log_level is not None:  # every library logger through one configuration (entrypoints.logging_setup)
        from openclaw_mcp.entrypoints.logging_setup import configure_logging

        environ["OPENCLAW_LOG_LEVEL"] = root.log_level.strip()
        configure_logging(root.log_level.strip(), environ)
    if environ.get("OPENCLAW_PROFILE") or environ.get("OPENCLAW_CONTAINER_HINT"):
        from openclaw_mcp.entrypoints.command_hints import hint_addition

        console.command_hints = hint_addition(environ)
    return _command(list(root.argv), environ, console)


def _in_container(name: str, argv: Sequence[str], env: Mapping[str, str], console: Console) -> int:
    from openclaw_mcp.entrypoints.cli import render
    from openclaw_mcp.entrypoints.cli.container import ContainerError, run_in_container

    console.flush()
    try:
        return run_in_container(name, argv, env)
    except ContainerError as exc:
        console.err(render.uncaught_frame(str(exc)))
        return 1


def _command(args: list[str], env: Mapping[str, str], console: Console) -> int:
    if args[:1] == ["help"]:  # `help [command…]` is `[command…] --help`, as commander's help command
        args = [*args[1:], "--help"]
        if args[0] == "help":  # `help help`: the root help, as commander's help command
            args = ["--help"]
    head = args[0] if args else None
    if head == "mcp":
        return run(args[1:], env, console)
    if head == "completion":
        from openclaw_mcp.entrypoints.cli.completion import completion_main

        return completion_main(args[1:], env, console)
    if head == "config":
        from openclaw_mcp.entrypoints.cli.config_cli import config_main

        return config_main(args[1:], env, console)
    if head == "doctor":
        from openclaw_mcp.entrypoints.cli.doctor_cli import doctor_main

        return doctor_main(args[1:], env, console)
    if head in ("--version", "-V", "-v"):
        console.out(VERSION_LINE)
        return 0
    if head is None or head in ("--help", "-h"):
        from openclaw_mcp.entrypoints.cli.help_text import banner, render_root_help

        console.raw_out(banner(env) + render_root_help())
        return 0
    if head in REFERENCE_ONLY_COMMANDS:
        console.err(
            f'openclaw-mcp provides the mcp, config, doctor and completion commands; "{head}" needs the full '
            "OpenClaw CLI."
        )
        return 1
    console.err(
        f'OpenClaw does not know the command "{head}".\nTry: openclaw --help\nPlugin command? openclaw plugins list\n'
        "Docs: https://docs.openclaw.ai/cli"
    )
    return 1


def _entry(fn: Any) -> None:
    sys.exit(fn())


if __name__ == "__main__":
    _entry(main)
