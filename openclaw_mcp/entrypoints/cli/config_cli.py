"""``openclaw config get|set|unset|validate`` limited to the ``mcp`` section: argv → use case
(``application.config_paths``) → printed result and exit code.

The texts follow OpenClaw 2026.9.6. Paths outside ``mcp`` are refused with one line of our own
(``domain.config_paths.outside_mcp_message``); the reference's other ``config`` subcommands and the
``set`` builder/batch/dry-run flags are refused likewise.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from openclaw_mcp.application.errors import (
    ApplicationError,
    CommandError,
    InvalidConfigError,
)
from openclaw_mcp.domain.config_load import ConfigAnalysis, IssueView
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.failures import report_failure

__all__ = ["CliUsageError", "config_main", "drive", "issue_line", "parse_args"]

T = TypeVar("T")

DOCS = "Docs: https://docs.openclaw.ai/cli"

_SET_UNSUPPORTED_FLAGS = (
    "--allow-exec",
    "--dry-run",
    "--expect-current-absent",
    "--merge",
    "--provider-json-only",
    "--replace",
)
_SET_UNSUPPORTED_VALUES = (
    "--batch-file",
    "--batch-json",
    "--expect-current-json",
    "--provider-allowlist",
    "--provider-arg",
    "--provider-command",
    "--provider-env",
    "--provider-max-bytes",
    "--provider-max-output-bytes",
    "--provider-mode",
    "--provider-no-output-timeout-ms",
    "--provider-pass-env",
    "--provider-path",
    "--provider-source",
    "--provider-timeout-ms",
    "--provider-trusted-dir",
    "--ref-id",
    "--ref-provider",
    "--ref-source",
)

HELP = {
    "": """Usage: openclaw config [options] [command]

Non-interactive config helpers for the mcp section (get/set/unset/validate).

Options:
  -h, --help  Display help for command

Commands:
  get         Get a config value by dot path
  set         Set a config value by path
  unset       Remove a config value by dot path
  validate    Validate the current config against the schema without starting
              the gateway

openclaw-mcp manages only the mcp section (mcp, mcp.servers.<name>…, mcp.apps…).""",
    "get": """Usage: openclaw config get [options] <path>

Get a config value by dot path

Arguments:
  path        Config path (dot or bracket notation)

Options:
  -h, --help  Display help for command
  --json      Output JSON (default: false)""",
    "set": """Usage: openclaw config set [options] [path] [value]

Set a config value by path.
Example:
openclaw config set mcp.apps.enabled true --strict-json

Arguments:
  path           Config path (dot or bracket notation)
  value          Value (JSON/JSON5 or raw string)

Options:
  -h, --help     Display help for command
  --json         Legacy alias for --strict-json (default: false)
  --strict-json  Strict JSON parsing (error instead of raw string fallback)
                 (default: false)""",
    "unset": """Usage: openclaw config unset [options] <path>

Remove a config value by dot path

Arguments:
  path        Config path (dot or bracket notation)

Options:
  -h, --help  Display help for command""",
    "validate": """Usage: openclaw config validate [options]

Validate the current config against the schema without starting the gateway

Options:
  -h, --help  Display help for command
  --json      Output validation result as JSON (default: false)""",
}


class CliUsageError(Exception):
    """A usage error: the text to print (one or more lines)."""


@dataclass(slots=True)
class Args:
    positionals: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    help: bool = False


def parse_args(
    tokens: Sequence[str],
    command: str,
    *,
    flags: Sequence[str],
    unsupported_flags: Sequence[str] = (),
    unsupported_values: Sequence[str] = (),
    max_positionals: int,
) -> Args:
    """Commander-like parsing of one leaf command's argv: boolean ``flags`` anywhere, ``--`` ends options,
    ``-h``/``--help``; flags the reference has but we do not provide are refused with our own line."""
    parsed = Args()
    only_positionals = False
    for token in tokens:
        if only_positionals or token == "-" or not token.startswith("-"):
            parsed.positionals.append(token)
            continue
        if token == "--":
            only_positionals = True
            continue
        if token in ("-h", "--help"):
            parsed.help = True
            continue
        name = token.split("=", 1)[0]
        if name in flags and "=" not in token:
            parsed.flags.add(name)
            continue
        if name in unsupported_flags or name in unsupported_values:
            raise CliUsageError(f'openclaw-mcp does not support "{name}" for openclaw {command}.')
        raise CliUsageError(f'OpenClaw does not recognize option "{name}".\nTry: openclaw {command} --help')
    if not parsed.help and len(parsed.positionals) > max_positionals:
        raise CliUsageError(f"Too many arguments for this command.\nTry: openclaw {command} --help")
    return parsed


def drive(make: Callable[[], Coroutine[Any, Any, T]], *, inline: bool) -> T:
    """Run a use case: without an event loop when its adapters never suspend, else under ``anyio.run``."""
    if inline:
        from openclaw_mcp.entrypoints.cli.inline import run_inline

        return run_inline(make())
    import anyio  # deferred: only writes that hold the lifecycle lease need a loop

    async def run() -> T:
        return await make()

    return anyio.run(run)


def _home(env: Mapping[str, str]) -> str:
    from openclaw_mcp.entrypoints.paths import resolve_home as home_dir

    return home_dir(env)


def _short(path: str, env: Mapping[str, str]) -> str:
    from openclaw_mcp.entrypoints.cli.render import shorten_home

    return shorten_home(path, _home(env))


def issue_line(issue: IssueView, config_name: str) -> str:
    """``[<file>:<line> — ]<path>: <message>[, got: <value>]`` (spec cli-registry §1.4)."""
    where = f"{config_name}:{issue.line} — " if issue.line is not None else ""
    got = f", got: {issue.got}" if issue.got is not None else ""
    return f"{where}{issue.display}: {issue.message}{got}"


def _usage(console: Console, text: str, *, as_json: bool) -> int:
    console.raw_err(text)
    if as_json:
        from openclaw_mcp.entrypoints.cli.render import error_envelope

        console.json(error_envelope(text))
    return 1


def config_main(argv: Sequence[str], env: Mapping[str, str], console: Console) -> int:
    """``openclaw config <argv…>``; returns the exit code. Never raises (a failure is a printed line or frame)."""
    args = list(argv)
    if not args or args[0] in ("-h", "--help"):
        console.raw_out(HELP[""])
        return 0
    sub, rest = args[0], args[1:]
    if sub == "help":
        console.raw_out(HELP.get(rest[0], HELP[""]) if rest else HELP[""])
        return 0
    if sub not in HELP:
        if sub in ("patch", "file", "schema"):
            console.err(f'openclaw-mcp does not provide "openclaw config {sub}"; it manages only the mcp section.')
            return 1
        text = f'OpenClaw config has no command "{sub}".\nTry: openclaw config --help\n{DOCS}'
        return _usage(console, text, as_json=False)
    as_json = sub == "get" or (sub != "set" and "--json" in rest)
    try:
        if sub == "get":
            parsed = parse_args(rest, "config get", flags=("--json",), max_positionals=1)
        elif sub == "set":
            parsed = parse_args(
                rest,
                "config set",
                flags=("--json", "--strict-json"),
                unsupported_flags=_SET_UNSUPPORTED_FLAGS,
                unsupported_values=_SET_UNSUPPORTED_VALUES,
                max_positionals=2,
            )
        elif sub == "unset":
            parsed = parse_args(
                rest,
                "config unset",
                flags=("--json",),
                unsupported_flags=("--allow-exec", "--dry-run"),
                max_positionals=1,
            )
        else:
            parsed = parse_args(rest, "config validate", flags=("--json",), max_positionals=0)
        if parsed.help:
            console.raw_out(HELP[sub])
            return 0
        if sub in ("get", "unset") and not parsed.positionals:
            raise CliUsageError(f'Missing required argument "path".\nTry: openclaw config {sub} --help')
    except CliUsageError as exc:
        return _usage(console, str(exc), as_json=as_json)
    try:
        if sub == "get":
            return _get(parsed, env, console)
        if sub == "validate":
            return _validate(parsed, env, console)
        return _write(sub, parsed, env, console)
    except KeyboardInterrupt:
        return 130


def _reader(env: Mapping[str, str], console: Console) -> Any:
    from openclaw_mcp.application.config_paths import ConfigPaths
    from openclaw_mcp.entrypoints import composition
    from openclaw_mcp.entrypoints.settings import Settings

    service = composition.config_service(Settings.from_environ(env), console.err, inline=True, lifecycle=False)
    return ConfigPaths(service, lambda _: None)


def _get(parsed: Args, env: Mapping[str, str], console: Console) -> int:
    from openclaw_mcp.entrypoints.cli import render

    as_json = "--json" in parsed.flags
    raw = parsed.positionals[0]
    paths = _reader(env, console)
    try:
        value = drive(lambda: paths.get(raw), inline=True)
    except InvalidConfigError as exc:
        shown = _short(exc.path, env)
        if as_json:
            console.json(render.invalid_config_envelope(shown, exc.analysis))
            return 1
        name = os.path.basename(exc.path)
        lines = [f"OpenClaw config is invalid: {shown}"]
        lines += [f"- {issue_line(issue, name)}" for issue in exc.analysis.issues]
        lines.append("Run `openclaw doctor --fix` to repair, then retry.")
        console.err("\n".join(lines))
        return 1
    except CommandError as exc:
        if as_json:
            console.json(render.error_envelope(str(exc)))
        else:
            console.err(str(exc))
        return 1
    except (ApplicationError, OSError) as exc:
        if as_json:
            console.json(render.error_envelope(str(exc)))
            return 1
        return report_failure(exc, env, console)
    if as_json:
        console.json(value)
    elif isinstance(value, str | int | float) and value is not None:
        from openclaw_mcp.jscompat.jsjson import js_to_string

        console.raw_out(js_to_string(value))
    else:
        console.json(value)
    return 0


def _validation_lines(path: str, analysis: ConfigAnalysis, env: Mapping[str, str]) -> str:
    name = os.path.basename(path)
    lines = [f"OpenClaw config is invalid: {_short(path, env)}"]
    lines += [f"  × {issue_line(issue, name)}" for issue in analysis.issues]
    lines += [
        "",
        "Run `openclaw doctor --fix` to repair, or fix the keys above manually.",
        "Inspect with openclaw config validate.",
    ]
    return "\n".join(lines)


def _validate(parsed: Args, env: Mapping[str, str], console: Console) -> int:
    from openclaw_mcp.entrypoints.cli import render
    from openclaw_mcp.jscompat.jsjson import js_dumps

    as_json = "--json" in parsed.flags
    paths = _reader(env, console)
    try:
        result = drive(paths.validate, inline=True)
    except (ApplicationError, OSError) as exc:
        return report_failure(exc, env, console)
    shown = _short(result.path, env)
    if not result.exists:
        if as_json:
            document = {**render.error_envelope("file not found"), "valid": False, "path": result.path}
            console.raw_out(js_dumps(document, None))
        else:
            console.err(
                f"Config file not found: {shown}\nCreate one with openclaw onboard or run openclaw doctor --fix."
            )
        return 1
    if not result.analysis.valid:
        if as_json:
            envelope = render.invalid_config_envelope(shown, result.analysis)
            console.json(
                {
                    "ok": False,
                    "error": envelope["error"],
                    "valid": False,
                    "path": result.path,
                    "issues": envelope["issues"],
                }
            )
        else:
            console.err(_validation_lines(result.path, result.analysis, env))
        return 1
    if as_json:
        console.raw_out(js_dumps({"valid": True, "path": result.path, "warnings": []}, None))
    else:
        console.out(f"Config valid: {shown}")
    return 0


def _write(sub: str, parsed: Args, env: Mapping[str, str], console: Console) -> int:
    from openclaw_mcp.application.config_paths import ConfigPaths
    from openclaw_mcp.entrypoints import composition
    from openclaw_mcp.entrypoints.settings import Settings

    if sub == "set":
        if not parsed.positionals:
            console.err("config set mode error: value/json mode requires <path> when batch mode is not used.")
            return 1
        if len(parsed.positionals) < 2:
            console.err("config set mode error: value/json mode requires <value>.")
            return 1
    elif "--json" in parsed.flags:
        console.err("--json can only be used with --dry-run.")
        return 1
    settings = Settings.from_environ(env)
    inline = not settings.state_db_exists()
    try:
        registry = composition.registry(settings, console.err, inline=inline, lifecycle=True)
        paths = ConfigPaths(registry.config, registry.clearing)
        action: Callable[[], Awaitable[str]]
        if sub == "set":
            strict = bool(parsed.flags & {"--strict-json", "--json"})
            raw, value = parsed.positionals

            def action() -> Awaitable[str]:
                return paths.set(raw, value, strict=strict)
        else:
            raw = parsed.positionals[0]

            def action() -> Awaitable[str]:
                return paths.unset(raw)

        line = drive(_as_coroutine(action), inline=inline)
    except (ApplicationError, OSError) as exc:
        return report_failure(exc, env, console)
    except Exception as exc:  # the last line of defence: a frame, never a bare traceback
        return report_failure(exc, env, console)
    console.out(line)
    return 0


def _as_coroutine(action: Callable[[], Awaitable[T]]) -> Callable[[], Coroutine[Any, Any, T]]:
    async def run() -> T:
        return await action()

    return run
