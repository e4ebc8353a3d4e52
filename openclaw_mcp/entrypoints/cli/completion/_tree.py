"""The command tree every completion script is generated from: commands, their options and operands, flattened
into contexts (:func:`contexts`) so the four shells complete the same words.

MCP server names are dynamic: each script calls ``<program> [--profile P | --dev] completion --list-servers``
(``LIST_SERVERS_FLAG``), which prints the configured names one per line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "COMPLETION_SHELLS",
    "LIST_SERVERS_FLAG",
    "CompletionCommand",
    "CompletionContext",
    "CompletionOperand",
    "CompletionOption",
    "OperandKind",
    "Shell",
    "contexts",
    "function_name",
]

Shell = Literal["zsh", "bash", "powershell", "fish"]
COMPLETION_SHELLS: tuple[Shell, ...] = ("zsh", "bash", "powershell", "fish")
"""In the reference's order (its ``--shell`` choices and ``--write-state`` order)."""

LIST_SERVERS_FLAG = "--list-servers"

OperandKind = Literal["server", "file", "word", "text"]
"""``server``: a configured MCP server name; ``file``: a path; ``word``: one of ``words``; ``text``: free text."""


@dataclass(frozen=True, slots=True)
class CompletionOption:
    """``flags``: short first (``("-s", "--shell")``). ``value``: the placeholder of the option's value
    (``"shell"``), None for a boolean flag. ``files``: the value is a path."""

    flags: tuple[str, ...]
    description: str
    value: str | None = None
    choices: tuple[str, ...] = ()
    files: bool = False
    repeatable: bool = False


@dataclass(frozen=True, slots=True)
class CompletionOperand:
    name: str
    required: bool
    kind: OperandKind = "text"
    words: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CompletionCommand:
    """A command and its subcommands. ``hidden`` commands are not offered as words, but their options and
    operands complete once typed."""

    name: str
    description: str
    options: tuple[CompletionOption, ...] = ()
    operands: tuple[CompletionOperand, ...] = ()
    commands: tuple[CompletionCommand, ...] = ()
    hidden: bool = False

    @property
    def visible_commands(self) -> tuple[CompletionCommand, ...]:
        return tuple(command for command in self.commands if not command.hidden)


@dataclass(frozen=True, slots=True)
class CompletionContext:
    """One command of the tree with its path and what it inherits: the value-taking flags of its ancestors
    (skipped with their values, as the root options are accepted anywhere) and their choices."""

    path: tuple[str, ...]
    command: CompletionCommand
    value_flags: tuple[str, ...]
    values: Mapping[str, CompletionOption] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return " ".join(self.path)

    @property
    def flags(self) -> tuple[str, ...]:
        return tuple(flag for option in self.command.options for flag in option.flags)


def contexts(root: CompletionCommand) -> list[CompletionContext]:
    """Every command of the tree, depth first, the root (path ``()``) first."""
    found: list[CompletionContext] = []

    def visit(command: CompletionCommand, path: tuple[str, ...], inherited: Mapping[str, CompletionOption]) -> None:
        own_flags = {flag for option in command.options for flag in option.flags}
        values = {flag: option for flag, option in inherited.items() if flag not in own_flags}
        for option in command.options:
            if option.value is not None:
                values.update(dict.fromkeys(option.flags, option))
        found.append(CompletionContext(path, command, tuple(values), values))
        for child in command.commands:
            visit(child, (*path, child.name), values)

    visit(root, (), {})
    return found


def function_name(program: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", program)
