"""``openclaw --help``, ``openclaw mcp --help`` and ``openclaw mcp <sub> --help`` in commander's layout (spec
cli-registry §3.0.4), rendered from the command table, with the reference's one-line banner."""

from __future__ import annotations

import re
from collections.abc import Mapping

from openclaw_mcp.domain.record import Record
from openclaw_mcp.entrypoints.cli.command_table import COMMANDS, GROUP_DESCRIPTION, Command, Option, find_command
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "ROOT_COMMANDS",
    "ROOT_OPTIONS",
    "HelpRequest",
    "banner",
    "own_commands_line",
    "render_command_help",
    "render_group_help",
    "render_help",
    "render_root_help",
]

_VERSION = "2026.9.6"
_BUILD_COMMIT = "eb377ac"
_TAGLINE = "All your chats, one OpenClaw."
_HELP_DESCRIPTION = "Display help for command"
_HELP_WIDTH = 80  # commander's width when stdout is not a terminal (the port never asks the terminal)
_MIN_WIDTH_TO_WRAP = 40
_COMMIT_RE = r"[0-9a-fA-F]{7,40}"


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


def own_commands_line() -> str:
    """The line ``openclaw mcp --help`` adds on a terminal only (issue 36): the commands this port offers beyond
    the reference. The group help itself stays the reference's, byte for byte, for whatever reads it."""
    names = ", ".join(sorted(command.name for command in COMMANDS if command.hidden))
    return f"Also (openclaw-mcp, not in OpenClaw {_VERSION}): {names}. Run openclaw mcp <command> --help."


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
