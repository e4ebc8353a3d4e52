"""Shell completion for ``openclaw``: the ``openclaw completion`` command (``_command``), one command tree
(``_tree``), the four script generators (``_bash``, ``_zsh``, ``_fish``, ``_powershell``) and the rules of
``--install`` (``_profile``: profile paths, the profile block, the reload hint).

The tree is built from the ``openclaw mcp`` command table; every script is generated from the same flattened tree,
so the four shells complete the same words. Presentation of the CLI: nothing outside ``entrypoints.cli`` needs it.
"""

from __future__ import annotations

from openclaw_mcp.entrypoints.cli.completion._command import command_tree, completion_main, completion_script
from openclaw_mcp.entrypoints.cli.completion._profile import (
    PROFILE_HEADER,
    ProfileUpdate,
    cache_file_name,
    profile_hint,
    profile_path,
    reload_command,
    shell_from_env,
    source_line,
    update_profile,
)
from openclaw_mcp.entrypoints.cli.completion._scripts import generate
from openclaw_mcp.entrypoints.cli.completion._tree import (
    COMPLETION_SHELLS,
    LIST_SERVERS_FLAG,
    CompletionCommand,
    CompletionContext,
    CompletionOperand,
    CompletionOption,
    OperandKind,
    Shell,
    contexts,
)

__all__ = [
    "COMPLETION_SHELLS",
    "LIST_SERVERS_FLAG",
    "PROFILE_HEADER",
    "CompletionCommand",
    "CompletionContext",
    "CompletionOperand",
    "CompletionOption",
    "OperandKind",
    "ProfileUpdate",
    "Shell",
    "cache_file_name",
    "command_tree",
    "completion_main",
    "completion_script",
    "contexts",
    "generate",
    "profile_hint",
    "profile_path",
    "reload_command",
    "shell_from_env",
    "source_line",
    "update_profile",
]
