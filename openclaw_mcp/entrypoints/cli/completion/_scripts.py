"""The completion script of each shell."""

from __future__ import annotations

from openclaw_mcp.entrypoints.cli.completion._bash import bash_script
from openclaw_mcp.entrypoints.cli.completion._fish import fish_script
from openclaw_mcp.entrypoints.cli.completion._powershell import powershell_script
from openclaw_mcp.entrypoints.cli.completion._tree import CompletionCommand, Shell, contexts
from openclaw_mcp.entrypoints.cli.completion._zsh import zsh_script

__all__ = ["generate"]


def generate(shell: Shell, root: CompletionCommand) -> str:
    """The completion script of ``shell`` for the tree ``root`` (its name is the program's), ending in a newline."""
    generators = {"bash": bash_script, "zsh": zsh_script, "fish": fish_script, "powershell": powershell_script}
    return generators[shell](root, contexts(root))
