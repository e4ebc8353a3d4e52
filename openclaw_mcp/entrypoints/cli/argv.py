"""Parse ``openclaw mcp <subcommand> …`` the way commander 15 (inside OpenClaw 2026.9.6) does (spec cli-registry
§3.0.1–§3.0.3, D3). The help is rendered by ``entrypoints.cli.help_text``, the usage errors are worded by
``entrypoints.cli.usage_errors``.

``argv`` is what follows ``mcp``. The model, from commander with ``enablePositionalOptions``:

- group level: a known subcommand as the first token gets every later token; otherwise tokens are split
  into operands and "unknown" (from the first option-like token on; ``--`` ends that); then an unknown
  subcommand, ``-h``/``--help``, an unknown option, excess operands are reported in this order, and an
  empty invocation asks for the group help (without the banner);
- leaf level: options anywhere before ``--``; ``--opt value`` (the value is taken even when it starts with
  ``-`` or is ``--``), ``--opt=value``, ``-abc`` short groups; the first unrecognised option-like token
  (not a negative number) sends it and everything after to "unknown"; then ``-h``/``--help`` among the
  unknown tokens → help, unknown option, missing required argument, too many arguments;
- ``help <sub>`` is rewritten to ``<sub> --help`` as OpenClaw does; plain ``help`` is an unknown command.

Texts of usage errors go through OpenClaw's rewording of commander's messages (including its regular
expressions' quirks). Every text returned here has **no trailing newline**: print it followed by ``\\n``.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from openclaw_mcp.domain.record import Record
from openclaw_mcp.entrypoints.cli.command_table import Command, Option, find_command
from openclaw_mcp.entrypoints.cli.help_text import HelpRequest
from openclaw_mcp.entrypoints.cli.options import OPTION_TYPES, CommandOptions
from openclaw_mcp.entrypoints.cli.usage_errors import CommanderError, too_many, unknown_option, usage_json, usage_text

__all__ = [
    "HelpRequest",
    "OptionValue",
    "Parsed",
    "UsageError",
    "json_mode",
    "option_field",
    "parse",
]

OptionValue: TypeAlias = bool | str | list[str] | None

_HELP_FLAGS = ("-h", "--help")
_NEGATIVE_NUMBER_RE = r"^-([0-9]+|[0-9]*\.[0-9]+)(e[+-]?[0-9]+)?$"


class Parsed(Record):
    """A successfully parsed subcommand.

    ``typed``: the command's options dataclass (``entrypoints.cli.options``), what the handlers use.
    ``args`` and ``options`` hold the same values as commander does (``options`` is also the mapping
    ``entrypoints.serve.cli.run_serve`` reads).

    ``args``: every declared argument by name (``name``, ``value``), None when an optional one is absent.
    ``options``: every option of the command by ``Option.key`` (snake_case of the long flag; ``--no-x`` →
    ``x``): flags → bool (False when absent); ``--no-probe`` → ``probe`` True unless given; the pair
    ``--parallel``/``--no-parallel`` → True / False / None (neither; last one wins); value options → the
    last value or None (``claude_channel_mode`` defaults to ``"auto"``); repeatable options → list in order.
    """

    command: str
    args: dict[str, str | list[str] | None]
    options: dict[str, OptionValue]
    typed: CommandOptions

    @property
    def json_output(self) -> bool:
        """The command's resolved JSON output mode (``--json`` given to a command that has it)."""
        return getattr(self.typed, "json", False) is True


class UsageError(Exception):
    """A commander usage error: ``text`` on stderr, exit 1. When ``json`` is true the reference also
    prints ``{"ok": false, "error": {"type": "cli_error", "message": text}}`` on stdout (§0.5).
    ``command`` is the subcommand that rejected the input (None: the ``mcp`` group)."""

    def __init__(self, text: str, *, command: str | None, json: bool) -> None:
        super().__init__(text)
        self.text = text
        self.command = command
        self.json = json


# --------------------------------------------------------------------------------------------- parsing


def parse(argv: Sequence[str], *, format_command: Callable[[str], str] | None = None) -> Parsed | HelpRequest:
    """Parse the arguments after ``mcp``. Raises ``UsageError``.

    ``format_command`` rewrites the command hints inside usage errors (``Try: openclaw mcp list --help``,
    suggestion lines) as §3.0.6 ``formatCliCommand`` does; identity by default.
    """
    original = list(argv)
    try:
        return _parse_group(_normalize_help_command(original))
    except CommanderError as exc:
        fmt = format_command or _identity
        raise UsageError(
            usage_text(exc, fmt),
            command=None if exc.command is None else exc.command.name,
            json=usage_json(original, exc.command),
        ) from None


def json_mode(argv: Sequence[str]) -> bool:
    """Whether the reference routes failures of this invocation as JSON envelopes on stdout (§0.5).

    Usage errors: ``--json`` given to a command that defines it, or a ``--json``/``--json=…`` token that
    is not an option value, before ``--``. Parsed commands: ``Parsed.json_output``. Help: False.
    (2026.9.6 decides from its parse result, so e.g. ``add x --command --json`` is not JSON mode.)
    """
    try:
        result = parse(argv)
    except UsageError as exc:
        return exc.json
    return isinstance(result, Parsed) and result.json_output


def _identity(command: str) -> str:
    return command


def _maybe_option(arg: str) -> bool:
    return len(arg) > 1 and arg[0] == "-"


def _normalize_help_command(argv: list[str]) -> list[str]:
    """OpenClaw's ``normalizeGeneratedHelpCommandArgv`` for ``openclaw mcp help …``."""
    positionals: list[tuple[str, int]] = []
    help_index: int | None = None
    for index, arg in enumerate(argv):
        if not arg or arg == "--":
            break
        if arg in _HELP_FLAGS:
            help_index = index
            continue
        if arg.startswith("-"):
            return argv
        positionals.append((arg, index))
    if not positionals or positionals[0][0] != "help":
        return argv
    if len(positionals) == 1 and help_index == positionals[0][1] + 1:
        return argv[:help_index] + argv[help_index + 1 :]
    if len(positionals) != 2 or (help_index is not None and help_index != positionals[1][1] + 1):
        return argv
    return [positionals[1][0], "--help"]


def _parse_group(tokens: list[str]) -> Parsed | HelpRequest:
    if tokens:
        command = find_command(tokens[0])
        if command is not None:
            return _parse_leaf(command, [], tokens[1:])
    operands: list[str] = []
    unknown: list[str] = []
    dest = operands
    for index, arg in enumerate(tokens):
        if arg == "--":
            if dest is unknown:
                unknown.append(arg)
            dest.extend(tokens[index + 1 :])
            break
        if dest is operands and _maybe_option(arg):
            dest = unknown
        dest.append(arg)
    if operands:
        command = find_command(operands[0])
        if command is not None:
            return _parse_leaf(command, operands[1:], unknown)
    everything = operands + unknown
    if everything and not everything[0].startswith("-"):
        raise CommanderError(f"unknown command '{everything[0]}'", None)
    if any(arg in _HELP_FLAGS for arg in unknown):
        return HelpRequest(None, True)
    if unknown:
        raise unknown_option(None, unknown[0])
    if operands:
        raise too_many(None, operands)
    return HelpRequest(None, False)


def _defaults(command: Command) -> dict[str, OptionValue]:
    negated = {option.key for option in command.options if option.kind == "negate"}
    affirmed = {option.key for option in command.options if option.kind == "flag"}
    values: dict[str, OptionValue] = {}
    for option in command.options:
        key = option.key
        if key in negated and key in affirmed:
            values[key] = None
        elif option.kind == "flag":
            values[key] = False
        elif option.kind == "negate":
            values[key] = True
        elif option.kind == "repeat":
            values[key] = []
        else:
            values[key] = option.default
    return values


def _store(values: dict[str, OptionValue], option: Option, value: str | None) -> None:
    key = option.key
    if option.kind == "flag":
        values[key] = True
    elif option.kind == "negate":
        values[key] = False
    elif option.kind == "repeat":
        previous = values.get(key)
        values[key] = [*(previous if isinstance(previous, list) else []), value or ""]
    else:
        values[key] = value


def _parse_leaf(command: Command, pre_operands: list[str], tokens: list[str]) -> Parsed | HelpRequest:
    operands = list(pre_operands)
    unknown: list[str] = []
    dest = operands
    values = _defaults(command)
    index = 0
    group: str | None = None
    while index < len(tokens) or group is not None:
        if group is not None:
            arg, group = group, None
        else:
            arg = tokens[index]
            index += 1
        if arg == "--":
            if dest is unknown:
                unknown.append(arg)
            dest.extend(tokens[index:])
            break
        if _maybe_option(arg):
            option = command.option_for_flag(arg)
            if option is not None:
                if option.takes_value:
                    if index >= len(tokens):
                        raise CommanderError(f"option '{option.flags}' argument missing", command)
                    _store(values, option, tokens[index])
                    index += 1
                else:
                    _store(values, option, None)
                continue
        if len(arg) > 2 and arg[0] == "-" and arg[1] != "-":
            option = command.option_for_flag("-" + arg[1])
            if option is not None:
                if option.takes_value:
                    _store(values, option, arg[2:])
                else:
                    _store(values, option, None)
                    group = "-" + arg[2:]
                continue
        if arg.startswith("--"):
            equals = arg.find("=")
            if equals > 2:
                option = command.option_for_flag(arg[:equals])
                if option is not None and option.takes_value:
                    _store(values, option, arg[equals + 1 :])
                    continue
        if dest is operands and _maybe_option(arg) and not re.match(_NEGATIVE_NUMBER_RE, arg):
            dest = unknown
        dest.append(arg)

    if any(arg in _HELP_FLAGS for arg in unknown):
        return HelpRequest(command.name, True)
    if unknown:
        raise unknown_option(command, unknown[0])
    for position, argument in enumerate(command.arguments):
        if argument.required and position >= len(operands):
            raise CommanderError(f"missing required argument '{argument.name}'", command)
    variadic = bool(command.arguments) and command.arguments[-1].variadic
    if len(operands) > len(command.arguments) and not variadic:
        raise too_many(command, operands)
    args: dict[str, str | list[str] | None] = {
        argument.name: operands[position] if position < len(operands) else None
        for position, argument in enumerate(command.arguments)
    }
    if variadic:  # ours only (``review <name> [tools...]``): the reference's commands have none
        args[command.arguments[-1].name] = operands[len(command.arguments) - 1 :]
    return Parsed(command.name, args, values, _typed(command.name, args, values))


def option_field(key: str) -> str:
    """The options dataclass field of an option key (a Python keyword such as ``from`` gets a ``_``)."""
    return f"{key}_" if keyword.iskeyword(key) else key


def _typed(name: str, args: dict[str, str | list[str] | None], values: dict[str, OptionValue]) -> CommandOptions:
    """The options dataclass of command ``name``; repeatable options and variadic arguments become tuples."""
    fields: dict[str, Any] = {key: tuple(value) if isinstance(value, list) else value for key, value in args.items()}
    for key, value in values.items():
        fields[option_field(key)] = tuple(value) if isinstance(value, list) else value
    return OPTION_TYPES[name](**fields)
