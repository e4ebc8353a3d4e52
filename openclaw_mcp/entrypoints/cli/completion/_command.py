"""``openclaw completion``: print, cache (``--write-state``) or install (``--install``) the shell completion
script, as OpenClaw 2026.9.6 does; plus the hidden ``--list-servers`` the scripts call back for server names.

The command tree is built once from the ``openclaw mcp`` command table (``entrypoints.cli.command_table``) plus
:data:`_STATIC_COMMANDS`, the other top-level commands this CLI provides; the package's shell modules turn it
into the script of each shell. Texts and exit codes are the reference's: usage errors on stderr with exit 1, help
with its banner, progress of ``--install`` on stderr, failures in the ``[openclaw] The CLI command failed.``
frame. ``--yes`` is accepted and, as in the reference, changes nothing.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping, Sequence

from openclaw_mcp.entrypoints.cli.command_table import COMMANDS, GROUP_DESCRIPTION, Command, Option
from openclaw_mcp.entrypoints.cli.completion._profile import (
    cache_file_name,
    profile_hint,
    profile_path,
    reload_command,
    shell_from_env,
    update_profile,
)
from openclaw_mcp.entrypoints.cli.completion._scripts import generate
from openclaw_mcp.entrypoints.cli.completion._tree import (
    COMPLETION_SHELLS,
    LIST_SERVERS_FLAG,
    CompletionCommand,
    CompletionOperand,
    CompletionOption,
    OperandKind,
    Shell,
)
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.root_options import LOG_LEVELS

__all__ = ["command_tree", "completion_main", "completion_script"]

PROGRAM = "openclaw"
_HELP = ("-h", "--help")
_HELP_OPTION = CompletionOption(_HELP, "Display help for command")
_TRY = f"Try: {PROGRAM} completion --help"

_HELP_TEXT = """Usage: openclaw completion [options]

Generate shell completion script

Options:
  -h, --help           Display help for command
  -i, --install        Install completion script to shell profile
  -s, --shell <shell>  Shell to generate completion for (default: detected)
                       (choices: "zsh", "bash", "powershell", "fish")
  --write-state        Write completion scripts to
                       $OPENCLAW_STATE_DIR/completions (no stdout)
  -y, --yes            Skip confirmation (non-interactive) (default: false)

Docs: https://docs.openclaw.ai/cli/completion
"""

# Values the `openclaw mcp` options accept (their help texts list them); every shell offers these.
_VALUE_CHOICES: dict[str, tuple[str, ...]] = {
    "--transport": ("streamable-http", "sse"),
    "--approval": ("auto", "prompt", "approve"),
    "--auth": ("oauth",),
    "--ssl-verify": ("true", "false"),
    "--claude-channel-mode": ("auto", "on", "off"),
    "--format": ("claude", "codex", "gemini", "cursor", "vscode"),
    "--from": ("claude", "claude-desktop", "codex", "cursor", "vscode", "gemini", "hermes"),
}
_PATH_VALUES = ("path", "file")
_SERVER_ARGUMENTS = ("name",)
_NEW_SERVER_COMMANDS = ("add",)  # their name is a new one: nothing to complete
_FILE_ARGUMENTS = ("file",)

_COMPLETION_OPTIONS = (
    CompletionOption(
        ("-s", "--shell"), "Shell to generate completion for (default: detected)", "shell", COMPLETION_SHELLS
    ),
    CompletionOption(("-i", "--install"), "Install completion script to shell profile"),
    CompletionOption(("--write-state",), "Write completion scripts to $OPENCLAW_STATE_DIR/completions (no stdout)"),
    CompletionOption(("-y", "--yes"), "Skip confirmation (non-interactive)"),
)

_JSON = CompletionOption(("--json",), "Output JSON")
_CONFIG_PATH = CompletionOperand("path", True)
_STATIC_COMMANDS = (
    CompletionCommand("completion", "Generate shell completion script", (*_COMPLETION_OPTIONS, _HELP_OPTION)),
    CompletionCommand(
        "config",
        "Non-interactive config helpers (get/set/patch/unset/file/schema/validate)",
        (_HELP_OPTION,),
        commands=(
            CompletionCommand("get", "Get a config value by dot path", (_JSON, _HELP_OPTION), (_CONFIG_PATH,)),
            CompletionCommand(
                "set",
                "Set config values by path",
                (_HELP_OPTION,),
                (CompletionOperand("path", False), CompletionOperand("value", False)),
            ),
            CompletionCommand("unset", "Remove a config value by dot path", (_HELP_OPTION,), (_CONFIG_PATH,)),
            CompletionCommand(
                "validate",
                "Validate the current config against the schema without starting the gateway",
                (CompletionOption(("--json",), "Output validation result as JSON"), _HELP_OPTION),
            ),
        ),
    ),
    CompletionCommand(
        "doctor",
        "Health checks + quick fixes for the gateway and channels",
        (CompletionOption(("--fix",), "Apply recommended repairs (alias for --repair)"), _HELP_OPTION),
    ),
)
_ROOT_OPTIONS = (
    CompletionOption(("--container",), "Run the CLI inside a running Podman/Docker container named <name>", "name"),
    CompletionOption(("--dev",), "Dev profile: isolate state under ~/.openclaw-dev"),
    _HELP_OPTION,
    CompletionOption(("--log-level",), "Global log level override for file + console", "level", LOG_LEVELS),
    CompletionOption(("--no-color",), "Disable ANSI colors"),
    CompletionOption(("--profile",), "Use a named profile (isolates OPENCLAW_STATE_DIR/OPENCLAW_CONFIG_PATH)", "name"),
    CompletionOption(("-V", "--version"), "output the version number"),
)


def _option(option: Option) -> CompletionOption:
    flags = tuple(flag for flag in (option.short, option.long) if flag is not None)
    if not option.takes_value:
        return CompletionOption(flags, option.description)
    placeholder = option.flags.rsplit("<", 1)[-1].rstrip(">")
    return CompletionOption(
        flags,
        option.description,
        placeholder,
        _VALUE_CHOICES.get(option.long, ()),
        placeholder in _PATH_VALUES,
        option.kind == "repeat",
    )


def _mcp_command(command: Command) -> CompletionCommand:
    operands = []
    for argument in command.arguments:
        kind: OperandKind = "text"
        if argument.name in _SERVER_ARGUMENTS and command.name not in _NEW_SERVER_COMMANDS:
            kind = "server"
        elif argument.name in _FILE_ARGUMENTS:
            kind = "file"
        operands.append(CompletionOperand(argument.name, argument.required, kind))
    options = (*(_option(option) for option in command.options), _HELP_OPTION)
    return CompletionCommand(command.name, command.summary, options, tuple(operands), hidden=command.hidden)


def command_tree() -> CompletionCommand:
    """``openclaw`` with the commands this CLI provides: ``mcp`` (from the command table), ``completion``,
    ``config``, ``doctor`` and ``help``, sorted by name; the root options."""
    mcp = CompletionCommand(
        "mcp",
        GROUP_DESCRIPTION,
        (_HELP_OPTION,),
        commands=tuple(_mcp_command(command) for command in sorted(COMMANDS, key=lambda command: command.name)),
    )
    names = tuple(sorted(["mcp", "help", *(command.name for command in _STATIC_COMMANDS)]))
    help_command = CompletionCommand(
        "help", "Display help for command", operands=(CompletionOperand("command", False, "word", names),)
    )
    commands = sorted((*_STATIC_COMMANDS, mcp, help_command), key=lambda command: command.name)
    return CompletionCommand(PROGRAM, "", _ROOT_OPTIONS, commands=tuple(commands))


def completion_script(shell: Shell) -> str:
    """The completion script of ``shell`` (ends with a newline)."""
    return generate(shell, command_tree())


# ------------------------------------------------------------------------------------------------- argv


class _Usage(Exception):
    """A usage error: the reference's text (without the ``Try:`` line), exit 1."""


class _Failure(Exception):
    """A failed command: printed in the ``[openclaw] The CLI command failed.`` frame, exit 1."""


class _Options:
    def __init__(self) -> None:
        self.shell: Shell | None = None
        self.install = False
        self.write_state = False
        self.yes = False
        self.list_servers = False
        self.help = False


_BOOLEAN = {
    "-i": "install",
    "--install": "install",
    "--write-state": "write_state",
    "-y": "yes",
    "--yes": "yes",
    LIST_SERVERS_FLAG: "list_servers",
}
_SHELL_FLAGS = ("-s", "--shell")
_SHELL_SPEC = "-s, --shell <shell>"


def _set_shell(options: _Options, value: str) -> None:
    for shell in COMPLETION_SHELLS:
        if value == shell:
            options.shell = shell
            return
    raise _Usage(
        f"OpenClaw could not parse this command: option '{_SHELL_SPEC}' argument '{value}' is invalid. "
        f"Allowed choices are {', '.join(COMPLETION_SHELLS)}."
    )


def _parse(argv: Sequence[str]) -> _Options:
    """Commander's parse of ``completion``'s options: values checked as they are read, then help, then the
    first unknown option, then excess operands."""
    options = _Options()
    operands: list[str] = []
    unknown: list[str] = []
    dest = operands
    tokens = list(argv)
    while tokens:
        arg = tokens.pop(0)
        if arg == "--":
            if dest is unknown:
                unknown.append(arg)
            dest.extend(tokens)
            break
        if arg in _BOOLEAN:
            setattr(options, _BOOLEAN[arg], True)
            continue
        if arg in _SHELL_FLAGS:
            if not tokens:
                raise _Usage(f"OpenClaw could not parse this command: option '{_SHELL_SPEC}' argument missing")
            _set_shell(options, tokens.pop(0))
            continue
        if len(arg) > 2 and arg[0] == "-" and arg[1] != "-":
            short = arg[:2]
            if short == "-s":
                _set_shell(options, arg[2:])
                continue
            if short in _BOOLEAN:
                setattr(options, _BOOLEAN[short], True)
                tokens.insert(0, "-" + arg[2:])
                continue
        if arg.startswith("--shell="):
            _set_shell(options, arg[len("--shell=") :])
            continue
        if len(arg) > 1 and arg[0] == "-":
            dest = unknown
        dest.append(arg)
    if any(arg in _HELP for arg in unknown):
        options.help = True
        return options
    if unknown:
        raise _Usage(f'OpenClaw does not recognize option "{unknown[0]}".')
    if operands:
        raise _Usage("Too many arguments for this command.")
    return options


# ------------------------------------------------------------------------------------------------- run


def _banner(env: Mapping[str, str]) -> str:
    """The reference's help banner (empty when ``OPENCLAW_SUPPRESS_HELP_BANNER=1``), from ``argv``'s renderer."""
    from openclaw_mcp.entrypoints.cli.help_text import HelpRequest, render_group_help, render_help

    text = render_help(HelpRequest(None, True), env)
    return text[: len(text) - len(render_group_help())]


def _list_servers(env: Mapping[str, str], console: Console) -> int:
    """The configured server names, one per line, read as ``openclaw mcp list`` reads them; nothing at all when
    the config cannot be read (a completion must never print errors into the user's command line)."""
    from openclaw_mcp.entrypoints import composition
    from openclaw_mcp.entrypoints.cli.inline import run_inline
    from openclaw_mcp.entrypoints.settings import Settings

    def ignore(_: str) -> None:
        return None

    try:
        registry = composition.registry(Settings.from_environ(env), ignore, inline=True, lifecycle=False)
        analysis = run_inline(registry.load())
        names = registry.sorted_names(analysis.servers)
    except Exception:  # any failure means "no names": the caller is a shell completion function
        return 0
    for name in names:
        if name and "\n" not in name and "\r" not in name:
            console.raw_out(name)
    return 0


def _node_message(exc: OSError) -> str:
    """An ``OSError`` worded as Node's ``fs`` errors (``EACCES: permission denied, open '/x'``)."""
    code = errno.errorcode.get(exc.errno or 0)
    reason = (exc.strerror or str(exc)).lower()
    if code is None:
        return str(exc)
    target = f", open '{exc.filename}'" if exc.filename else ""
    return f"{code}: {reason}{target}"


def _cache_path(shell: Shell, env: Mapping[str, str]) -> str:
    from openclaw_mcp.entrypoints.paths import resolve_state_dir

    return os.path.join(resolve_state_dir(env), "completions", cache_file_name(shell, PROGRAM))


def _write_state(shells: Sequence[Shell], env: Mapping[str, str]) -> None:
    from openclaw_mcp.entrypoints.composition import completion_files as files

    completion_files = files()
    tree = command_tree()
    for shell in shells:
        completion_files.write_script(_cache_path(shell, env), generate(shell, tree))


def _install(shell: Shell, env: Mapping[str, str], console: Console) -> int:
    from openclaw_mcp.entrypoints.composition import completion_files as files

    completion_files = files()
    cache = _cache_path(shell, env)
    if not completion_files.exists(cache):
        raise _Failure(f"Completion cache not found at {cache}. Run `{PROGRAM} completion --write-state` first.")
    home = env.get("HOME") or completion_files.os_home()
    bashrc = completion_files.exists(os.path.join(home, ".bashrc")) if shell == "bash" else False
    profile = profile_path(shell, env, home, bashrc)
    try:
        content = completion_files.read_text(profile)
        if content is None:
            console.err(f"Profile not found at {profile}. Creating a new one.")
            content = ""
        update = update_profile(content, shell, cache, home, PROGRAM)
        if not update.changed:
            console.err(f"Completion already installed in {profile}")
            return 0
        console.err(f"{'Updating' if update.had_existing else 'Installing'} completion in {profile}...")
        completion_files.write_profile(profile, update.content)
    except OSError as exc:
        raise _Failure(f"Failed to install completion: {_node_message(exc)}") from exc
    hint = profile_hint(shell, profile, env.get("HOME") or None)
    console.err(f"Completion installed. Restart your shell or run: {reload_command(shell, hint)}")
    return 0


def _run(options: _Options, env: Mapping[str, str], console: Console) -> int:
    shell = options.shell or shell_from_env(env)
    if options.install and not options.write_state:
        return _install(shell, env, console)
    if options.write_state:
        try:
            _write_state([shell] if options.shell else list(COMPLETION_SHELLS), env)
        except OSError as exc:
            raise _Failure(_node_message(exc)) from exc
    if options.install:
        return _install(shell, env, console)
    if options.write_state:
        return 0
    console.raw_out(completion_script(shell))
    return 0


def completion_main(argv: Sequence[str], env: Mapping[str, str], console: Console) -> int:
    """Run ``openclaw completion <argv…>`` (``argv``: what follows ``completion``) and return the exit code."""
    try:
        options = _parse(argv)
    except _Usage as exc:
        console.raw_err(f"{exc}\n{_TRY}")
        return 1
    if options.list_servers:
        return _list_servers(env, console)
    if options.help:
        console.raw_out(_banner(env) + _HELP_TEXT)
        return 0
    try:
        return _run(options, env, console)
    except _Failure as exc:
        return _uncaught(str(exc), console)
    except Exception as exc:  # the last line of defence, as in entrypoints.cli.main: a frame, never a traceback
        return _uncaught(str(exc) or type(exc).__name__, console)


def _uncaught(reason: str, console: Console) -> int:
    from openclaw_mcp.entrypoints.cli import render

    console.err(render.uncaught_frame(reason))
    return 1
