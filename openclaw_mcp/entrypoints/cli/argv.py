"""Parse ``openclaw mcp <subcommand> …`` the way commander 15 (inside OpenClaw 2026.9.6) does, and render
its help (spec cli-registry §3.0.1–§3.0.4, D3).

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
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from openclaw_mcp.entrypoints.cli.command_table import COMMANDS, GROUP_DESCRIPTION, Command, Option, find_command
from openclaw_mcp.entrypoints.cli.options import OPTION_TYPES, CommandOptions
from openclaw_mcp.entrypoints.cli.record import Record
from openclaw_mcp.jscompat.text import JS_LINE_TERMINATORS, js_trim, utf16_units

__all__ = [
    "HelpRequest",
    "OptionValue",
    "Parsed",
    "UsageError",
    "json_mode",
    "option_field",
    "parse",
    "render_command_help",
    "render_group_help",
    "render_help",
]

OptionValue: TypeAlias = bool | str | list[str] | None

_VERSION = "2026.9.6"
_BUILD_COMMIT = "eb377ac"
_TAGLINE = "All your chats, one OpenClaw."
_DOCS_URL = "https://docs.openclaw.ai/cli"
_HELP_FLAGS = ("-h", "--help")
_HELP_DESCRIPTION = "Display help for command"
_HELP_WIDTH = 80  # commander's width when stdout is not a terminal (the port never asks the terminal)
_MIN_WIDTH_TO_WRAP = 40
_MAX_SUGGESTIONS = 3

# `.` in a non-unicode JS regular expression.
_JS_DOT = f"[^{JS_LINE_TERMINATORS}]"
_QUOTE = "['\"`]"
# Patterns are compiled on first use (re's cache): usage errors and banners are the rare paths.
_UNKNOWN_COMMAND_RE = f"^unknown command {_QUOTE}({_JS_DOT}+?){_QUOTE}"
_UNKNOWN_OPTION_RE = f"^unknown option {_QUOTE}({_JS_DOT}+?){_QUOTE}"
_MISSING_ARGUMENT_RE = f"^missing required argument {_QUOTE}({_JS_DOT}+?){_QUOTE}"
_TOO_MANY_RE = r"^too many arguments\b"
_NEGATIVE_NUMBER_RE = r"^-([0-9]+|[0-9]*\.[0-9]+)(e[+-]?[0-9]+)?$"
_COMMIT_RE = r"[0-9a-fA-F]{7,40}"


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
    args: dict[str, str | None]
    options: dict[str, OptionValue]
    typed: CommandOptions

    @property
    def json_output(self) -> bool:
        """The command's resolved JSON output mode (``--json`` given to a command that has it)."""
        return getattr(self.typed, "json", False) is True


class HelpRequest(Record):
    """Help was asked for: exit 0, ``text`` on stdout. ``command`` None means the group help.
    ``banner``: 2026.9.6 prints its one-line banner first (explicit ``-h``/``--help``, ``help <sub>``);
    the bare ``openclaw mcp`` group help has none (§3.0.4)."""

    command: str | None
    banner: bool

    @property
    def text(self) -> str:
        """The help as printed without environment overrides (see ``render_help``)."""
        return render_help(self)


class UsageError(Exception):
    """A commander usage error: ``text`` on stderr, exit 1. When ``json`` is true the reference also
    prints ``{"ok": false, "error": {"type": "cli_error", "message": text}}`` on stdout (§0.5).
    ``command`` is the subcommand that rejected the input (None: the ``mcp`` group)."""

    def __init__(self, text: str, *, command: str | None, json: bool) -> None:
        super().__init__(text)
        self.text = text
        self.command = command
        self.json = json


class _CommanderError(Exception):
    """Commander's raw message (without ``error: ``) and the command that raised it."""

    def __init__(self, message: str, command: Command | None) -> None:
        super().__init__(message)
        self.message = message
        self.command = command


# --------------------------------------------------------------------------------------------- parsing


def parse(argv: Sequence[str], *, format_command: Callable[[str], str] | None = None) -> Parsed | HelpRequest:
    """Parse the arguments after ``mcp``. Raises ``UsageError``.

    ``format_command`` rewrites the command hints inside usage errors (``Try: openclaw mcp list --help``,
    suggestion lines) as §3.0.6 ``formatCliCommand`` does; identity by default.
    """
    original = list(argv)
    try:
        return _parse_group(_normalize_help_command(original))
    except _CommanderError as exc:
        fmt = format_command or _identity
        raise UsageError(
            _usage_text(exc, fmt),
            command=None if exc.command is None else exc.command.name,
            json=_usage_json(original, exc.command),
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
        raise _CommanderError(f"unknown command '{everything[0]}'", None)
    if any(arg in _HELP_FLAGS for arg in unknown):
        return HelpRequest(None, True)
    if unknown:
        raise _unknown_option(None, unknown[0])
    if operands:
        raise _too_many(None, operands)
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
                        raise _CommanderError(f"option '{option.flags}' argument missing", command)
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
        raise _unknown_option(command, unknown[0])
    for position, argument in enumerate(command.arguments):
        if argument.required and position >= len(operands):
            raise _CommanderError(f"missing required argument '{argument.name}'", command)
    if len(operands) > len(command.arguments):
        raise _too_many(command, operands)
    args = {
        argument.name: operands[position] if position < len(operands) else None
        for position, argument in enumerate(command.arguments)
    }
    return Parsed(command.name, args, values, _typed(command.name, args, values))


def option_field(key: str) -> str:
    """The options dataclass field of an option key (a Python keyword such as ``from`` gets a ``_``)."""
    return f"{key}_" if keyword.iskeyword(key) else key


def _typed(name: str, args: dict[str, str | None], values: dict[str, OptionValue]) -> CommandOptions:
    """The options dataclass of command ``name``; repeatable options become tuples."""
    fields: dict[str, Any] = dict(args)
    for key, value in values.items():
        fields[option_field(key)] = tuple(value) if isinstance(value, list) else value
    return OPTION_TYPES[name](**fields)


def _unknown_option(command: Command | None, flag: str) -> _CommanderError:
    candidates = [] if command is None else [option.long for option in command.options]
    suggestion = _suggest_similar(flag, [*candidates, "--help"]) if flag.startswith("--") else ""
    return _CommanderError(f"unknown option '{flag}'{suggestion}", command)


def _too_many(command: Command | None, operands: list[str]) -> _CommanderError:
    expected = 0 if command is None else len(command.arguments)
    name = "mcp" if command is None else command.name
    plural = "" if expected == 1 else "s"
    return _CommanderError(
        f"too many arguments for '{name}'. Expected {expected} argument{plural} but got "
        f"{len(operands)}: {', '.join(operands)}.",
        command,
    )


# ------------------------------------------------------------------------------------ usage error texts


def _usage_text(exc: _CommanderError, fmt: Callable[[str], str]) -> str:
    message = exc.message
    unknown_command = re.match(_UNKNOWN_COMMAND_RE, message, re.IGNORECASE)
    if unknown_command:
        return _unknown_command_text(unknown_command.group(1), fmt)
    help_command = "openclaw mcp --help" if exc.command is None else f"openclaw mcp {exc.command.name} --help"
    return f"{_reword(message)}\nTry: {fmt(help_command)}"


def _reword(message: str) -> str:
    match = re.match(_UNKNOWN_OPTION_RE, message, re.IGNORECASE)
    if match:
        return f'OpenClaw does not recognize option "{match.group(1)}".'
    match = re.match(_MISSING_ARGUMENT_RE, message, re.IGNORECASE)
    if match:
        return f'Missing required argument "{match.group(1)}".'
    if re.match(_TOO_MANY_RE, message, re.IGNORECASE):
        return "Too many arguments for this command."
    return f"OpenClaw could not parse this command: {message}"


def _unknown_command_text(name: str, fmt: Callable[[str], str]) -> str:
    lines = [f'OpenClaw mcp has no command "{name}".']
    suggestions = _command_suggestions(name)
    if suggestions:
        lines.append("Did you mean this?")
        lines.extend(f"  {fmt(f'openclaw mcp {suggestion}')}" for suggestion in suggestions)
    lines.append(f"Try: {fmt('openclaw mcp --help')}")
    lines.append(f"Docs: {_DOCS_URL}")
    return "\n".join(lines)


def _levenshtein(left: list[int], right: list[int]) -> int:
    if left == right:
        return 0
    row = list(range(len(right) + 1))
    for left_index, left_code in enumerate(left):
        diagonal = left_index
        row[0] = left_index + 1
        for right_index, right_code in enumerate(right):
            above = row[right_index + 1]
            row[right_index + 1] = min(row[right_index] + 1, above + 1, diagonal + (left_code != right_code))
            diagonal = above
    return row[len(right)]


def _command_suggestions(name: str) -> list[str]:
    """OpenClaw's ``formatCliCommandSuggestions``: Levenshtein ≥ 1 and ≤ max(1, ⌊0.4·len⌋) to the
    trimmed, lower-cased input; by distance, then name; at most 3."""
    normalized = js_trim(name).lower()
    if not normalized:
        return []
    units = utf16_units(normalized)
    limit = max(1, int(len(units) * 0.4))
    scored = []
    for command in sorted(command.name for command in COMMANDS if not command.hidden):
        if command == normalized:
            continue
        distance = _levenshtein(units, utf16_units(command))
        if distance <= limit:
            scored.append((distance, command))
    scored.sort()
    return [command for _, command in scored[:_MAX_SUGGESTIONS]]


def _edit_distance(a: list[int], b: list[int]) -> int:
    """Commander's optimal-string-alignment distance (with its early exit above 3)."""
    if abs(len(a) - len(b)) > 3:
        return max(len(a), len(b))
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for j in range(1, len(b) + 1):
        for i in range(1, len(a) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def _suggest_similar(flag: str, candidates: list[str]) -> str:
    """Commander's ``suggestSimilar`` for an unknown ``--option`` (only visible when OpenClaw cannot
    reword the message, e.g. a flag containing a line break)."""
    word = utf16_units(flag[2:])
    similar: list[str] = []
    best = 3
    for candidate in dict.fromkeys(candidates):
        name = candidate[2:]
        if len(name) <= 1:
            continue
        units = utf16_units(name)
        distance = _edit_distance(word, units)
        length = max(len(word), len(units))
        if (length - distance) / length > 0.4:
            if distance < best:
                best = distance
                similar = [name]
            elif distance == best:
                similar.append(name)
    shown = [f"--{name}" for name in sorted(similar)]
    if len(shown) > 1:
        return f"\n(Did you mean one of {', '.join(shown)}?)"
    if shown:
        return f"\n(Did you mean {shown[0]}?)"
    return ""


def _requires_following_value(token: str, options: tuple[Option, ...]) -> bool:
    if "=" in token:
        return False
    for option in options:
        if token in (option.short, option.long):
            return option.takes_value
    if not token.startswith("-") or token.startswith("--"):
        return False
    group = token[1:]
    for position, char in enumerate(group):
        found = next((option for option in options if option.short == "-" + char), None)
        if found is None:
            return False
        if found.takes_value:
            return position == len(group) - 1
    return False


def _json_token(argv: list[str], command: Command | None, *, as_value: bool) -> bool:
    """OpenClaw's ``hasCommanderOptionToken(command, argv, {"--json"}, kind)``: ``--json`` in the role of
    an option value (``as_value``) or of a flag (``--json`` / ``--json=…``), before ``--``."""
    options: tuple[Option, ...] = ()
    at_leaf = False
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            break
        if command is not None and not at_leaf and arg == command.name:
            at_leaf = True
            options = command.options
            index += 1
            continue
        if _requires_following_value(arg, options):
            following = argv[index + 1] if index + 1 < len(argv) else ""
            if as_value and following == "--json":
                return True
            index += 2
            continue
        if not as_value and arg.split("=")[0] == "--json":
            return True
        index += 1
    return False


def _usage_json(argv: list[str], command: Command | None) -> bool:
    literal = False
    for arg in argv:
        if arg == "--":
            break
        if arg == "--json":
            literal = True
            break
    defines_json = command is not None and command.option_for_flag("--json") is not None
    if defines_json and literal and not _json_token(argv, command, as_value=True):
        return True
    return _json_token(argv, command, as_value=False)


# ------------------------------------------------------------------------------------------------ help


def _box_wrap(text: str, width: int) -> str:
    if width < _MIN_WIDTH_TO_WRAP:
        return text
    wrapped: list[str] = []
    for line in re.split(r"\r\n|\n", text):
        chunks = re.findall(r"\s*\S+", line)
        if not chunks:
            wrapped.append("")
            continue
        current = [chunks[0]]
        current_width = len(chunks[0])
        for chunk in chunks[1:]:
            if current_width + len(chunk) <= width:
                current.append(chunk)
                current_width += len(chunk)
                continue
            wrapped.append("".join(current))
            chunk = chunk.lstrip()
            current = [chunk]
            current_width = len(chunk)
        wrapped.append("".join(current))
    return "\n".join(wrapped)


def _format_item(term: str, term_width: int, description: str) -> str:
    if not description:
        return "  " + term
    remaining = _HELP_WIDTH - term_width - 4
    if remaining < _MIN_WIDTH_TO_WRAP or re.search(r"\n[^\S\r\n]", description):
        formatted = description
    else:
        formatted = _box_wrap(description, remaining).replace("\n", "\n" + " " * (term_width + 2))
    return "  " + term.ljust(term_width) + "  " + formatted.replace("\n", "\n  ")


def _option_description(option: Option) -> str:
    if option.help_default is None:
        return option.description
    return f"{option.description} (default: {option.help_default})"


def _layout(usage: str, description: str, sections: list[tuple[str, list[tuple[str, str]]]]) -> str:
    term_width = max((len(term) for _, items in sections for term, _ in items), default=0)
    lines = [f"Usage: {usage}", "", _box_wrap(description, _HELP_WIDTH), ""]
    for heading, items in sections:
        if items:
            lines.append(heading)
            lines.extend(_format_item(term, term_width, text) for term, text in items)
            lines.append("")
    return "\n".join(lines).removesuffix("\n")


def render_group_help() -> str:
    """``openclaw mcp``'s help (§3.0.4), byte for byte, without the trailing newline."""
    commands = sorted((command for command in COMMANDS if not command.hidden), key=lambda command: command.name)
    return _layout(
        "openclaw mcp [options] [command]",
        GROUP_DESCRIPTION,
        [
            ("Options:", [("-h, --help", _HELP_DESCRIPTION)]),
            ("Commands:", [(command.name, command.summary) for command in commands]),
        ],
    )


def render_command_help(command: Command | str) -> str:
    """``openclaw mcp <sub> --help`` in commander's layout (options sorted as commander's sortOptions,
    help width 80), without the banner and the trailing newline."""
    found = find_command(command) if isinstance(command, str) else command
    if found is None:
        raise KeyError(command)
    usage = " ".join(["openclaw mcp", found.name, "[options]", *(arg.usage for arg in found.arguments)])
    options = [(option.sort_key, option.flags, _option_description(option)) for option in found.options]
    options.append(("h", "-h, --help", _HELP_DESCRIPTION))
    options.sort(key=lambda item: item[0])
    return _layout(
        usage,
        found.summary,
        [
            ("Arguments:", [(argument.name, argument.description) for argument in found.arguments]),
            ("Options:", [(flags, text) for _, flags, text in options]),
        ],
    )


def _banner_commit(env: Mapping[str, str]) -> str:
    raw = js_trim(env.get("GIT_COMMIT", "")) or js_trim(env.get("GIT_SHA", ""))
    match = re.search(_COMMIT_RE, raw) if raw else None
    return match.group(0)[:7].lower() if match else _BUILD_COMMIT


ROOT_OPTIONS = (
    (
        "--container <name>",
        "Run the CLI inside a running Podman/Docker container named <name> (default: env OPENCLAW_CONTAINER)",
    ),
    (
        "--dev",
        "Dev profile: isolate state under ~/.openclaw-dev, default gateway port 19001, and shift derived ports "
        "(browser/canvas)",
    ),
    ("-h, --help", _HELP_DESCRIPTION),
    ("--log-level <level>", "Global log level override for file + console (silent|fatal|error|warn|info|debug|trace)"),
    ("--no-color", "Disable ANSI colors"),
    (
        "--profile <name>",
        "Use a named profile (isolates OPENCLAW_STATE_DIR/OPENCLAW_CONFIG_PATH under ~/.openclaw-<name>)",
    ),
    ("-V, --version", "output the version number"),
)
"""The reference's root options with its help texts, in commander's sorted order."""
ROOT_COMMANDS = (
    ("completion", "Generate shell completion script"),
    ("config *", "Non-interactive config helpers for the mcp section (get/set/unset/validate)"),
    ("doctor", "Check the MCP config and repair legacy MCP server keys (--fix)"),
    ("help", "Display help for command"),
    ("mcp *", GROUP_DESCRIPTION),
)
"""The commands this install provides (``*``: has subcommands), as the reference lists its own."""
_ROOT_HINT = "Hint: commands suffixed with * have subcommands. Run <command> --help for details."


def render_root_help() -> str:
    """``openclaw --help`` in the reference's layout, listing the commands this install provides."""
    width = max(len(term) for term, _ in (*ROOT_OPTIONS, *ROOT_COMMANDS))
    lines = ["Usage: openclaw [options] [command]", "", "Options:"]
    lines += [_format_item(term, width, text) for term, text in ROOT_OPTIONS]
    lines += ["", "Commands:", "  " + _ROOT_HINT]
    lines += [_format_item(term, width, text) for term, text in ROOT_COMMANDS]
    return "\n".join([*lines, "", "Docs: https://docs.openclaw.ai/cli", ""])


def banner(env: Mapping[str, str]) -> str:
    """The reference's help banner (``\\nOpenClaw 2026.9.6 (eb377ac) — All your chats, one OpenClaw.\\n\\n``), or
    ``""`` under ``OPENCLAW_SUPPRESS_HELP_BANNER=1``."""
    if env.get("OPENCLAW_SUPPRESS_HELP_BANNER") == "1":
        return ""
    return f"\nOpenClaw {_VERSION} ({_banner_commit(env)}) — {_TAGLINE}\n\n"


def render_help(request: HelpRequest, env: Mapping[str, str] | None = None) -> str:
    """The full help output for ``request`` without the trailing newline: the banner
    (``\\nOpenClaw 2026.9.6 (eb377ac) — All your chats, one OpenClaw.\\n\\n``) when the reference prints
    one — unless ``OPENCLAW_SUPPRESS_HELP_BANNER=1``; ``GIT_COMMIT``/``GIT_SHA`` override the commit —
    then the group or command help."""
    body = render_group_help() if request.command is None else render_command_help(request.command)
    return banner(env or {}) + body if request.banner else body
