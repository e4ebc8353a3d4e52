"""Commander's usage errors as OpenClaw 2026.9.6 prints them (spec cli-registry §3.0.1–§3.0.3): the raw
commander message, OpenClaw's rewording of it (including its regular expressions' quirks), the command
suggestions of an unknown command or option, and whether the failure is reported as a JSON envelope (§0.5)."""

from __future__ import annotations

import re
from collections.abc import Callable

from openclaw_mcp.entrypoints.cli.command_table import COMMANDS, Command, Option
from openclaw_mcp.jscompat.text import JS_LINE_TERMINATORS, js_trim, utf16_units

__all__ = ["CommanderError", "too_many", "unknown_option", "usage_json", "usage_text"]

_DOCS_URL = "https://docs.openclaw.ai/cli"
_MAX_SUGGESTIONS = 3

# `.` in a non-unicode JS regular expression.
_JS_DOT = f"[^{JS_LINE_TERMINATORS}]"
_QUOTE = "['\"`]"
# Patterns are compiled on first use (re's cache): usage errors and banners are the rare paths.
_UNKNOWN_COMMAND_RE = f"^unknown command {_QUOTE}({_JS_DOT}+?){_QUOTE}"
_UNKNOWN_OPTION_RE = f"^unknown option {_QUOTE}({_JS_DOT}+?){_QUOTE}"
_MISSING_ARGUMENT_RE = f"^missing required argument {_QUOTE}({_JS_DOT}+?){_QUOTE}"
_TOO_MANY_RE = r"^too many arguments\b"


class CommanderError(Exception):
    """Commander's raw message (without ``error: ``) and the command that raised it."""

    def __init__(self, message: str, command: Command | None) -> None:
        super().__init__(message)
        self.message = message
        self.command = command


def unknown_option(command: Command | None, flag: str) -> CommanderError:
    candidates = [] if command is None else [option.long for option in command.options]
    suggestion = _suggest_similar(flag, [*candidates, "--help"]) if flag.startswith("--") else ""
    return CommanderError(f"unknown option '{flag}'{suggestion}", command)


def too_many(command: Command | None, operands: list[str]) -> CommanderError:
    expected = 0 if command is None else len(command.arguments)
    name = "mcp" if command is None else command.name
    plural = "" if expected == 1 else "s"
    return CommanderError(
        f"too many arguments for '{name}'. Expected {expected} argument{plural} but got "
        f"{len(operands)}: {', '.join(operands)}.",
        command,
    )


def usage_text(exc: CommanderError, fmt: Callable[[str], str]) -> str:
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


def usage_json(argv: list[str], command: Command | None) -> bool:
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
