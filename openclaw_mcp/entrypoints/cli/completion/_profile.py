"""The rules of ``openclaw completion --install``: which shell, the cached script's file name, the startup
profile, its ``# OpenClaw Completion`` block (earlier blocks and ``source <(openclaw completion)`` lines replaced),
the reload hint. Pure: the command reads and writes the files."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass

from openclaw_mcp.domain.shell_quoting import posix_single_quote
from openclaw_mcp.entrypoints.cli.completion._fish import fish_quote
from openclaw_mcp.entrypoints.cli.completion._powershell import ps_quote
from openclaw_mcp.entrypoints.cli.completion._tree import COMPLETION_SHELLS, Shell

__all__ = [
    "PROFILE_HEADER",
    "ProfileUpdate",
    "cache_file_name",
    "profile_hint",
    "profile_path",
    "reload_command",
    "shell_from_env",
    "source_line",
    "update_profile",
]

PROFILE_HEADER = "# OpenClaw Completion"


def shell_from_env(env: Mapping[str, str]) -> Shell:
    """The shell of ``$SHELL`` (``pwsh`` is PowerShell), else ``zsh`` (the reference's default off Windows)."""
    shell_path = env.get("SHELL", "").strip()
    name = re.sub(r"\.(?:exe|cmd|bat)$", "", posixpath.basename(shell_path.replace("\\", "/")), flags=re.I).lower()
    for shell in COMPLETION_SHELLS:
        if name == shell:
            return shell
    return "powershell" if name == "pwsh" else "zsh"


def cache_file_name(shell: Shell, program: str = "openclaw") -> str:
    """``openclaw.bash`` … ``openclaw.ps1``: the script's file name in ``<state>/completions``."""
    base = re.sub(r"[^a-zA-Z0-9._-]", "-", program.strip()) or "openclaw"
    return f"{base}.{'ps1' if shell == 'powershell' else shell}"


def _append(directory: str, *segments: str) -> str:
    return directory + ("" if directory.endswith("/") else "/") + "/".join(segments)


def profile_path(shell: Shell, env: Mapping[str, str], home: str, exists: bool) -> str:
    """The startup profile holding the completion block. ``home``: ``$HOME`` (or the OS home); ``exists``:
    whether ``~/.bashrc`` exists (bash uses it, else ``~/.bash_profile``)."""
    if shell == "zsh":
        zdotdir = env.get("ZDOTDIR")
        return _append(home if zdotdir is None else zdotdir or "/", ".zshrc")
    if shell == "bash":
        return _append(home, ".bashrc" if exists else ".bash_profile")
    if shell == "fish":
        configured = env.get("XDG_CONFIG_HOME") or ""
        base = configured if configured.startswith("/") else _append(home, ".config")
        return _append(base, "fish", "config.fish")
    return _append(home, ".config", "powershell", "Microsoft.PowerShell_profile.ps1")


def _quote_path(shell: Shell, value: str) -> str:
    if shell == "powershell":
        return ps_quote(value)
    if shell == "fish":
        return fish_quote(value)
    return posix_single_quote(value)


def source_line(shell: Shell, cache_path: str) -> str:
    """The profile line that loads the cached script (guarded by its existence, except in PowerShell)."""
    quoted = _quote_path(shell, cache_path)
    if shell == "powershell":
        return f". {quoted}"
    if shell == "fish":
        return f"test -f {quoted}; and source {quoted}"
    return f"[ -f {quoted} ] && source {quoted}"


def profile_hint(shell: Shell, path: str, env_home: str | None) -> str:
    """The profile as the reload hint shows it: ``~/…`` under ``$HOME`` (PowerShell: as it is)."""
    if shell == "powershell":
        return path
    if not path.startswith("/"):
        return path if path.startswith(("./", "../")) else "./" + path
    if env_home and path.startswith(env_home + "/"):
        return "~/" + path[len(env_home) + 1 :]
    return path


def reload_command(shell: Shell, hint: str) -> str:
    """What to run to load the profile in the current shell."""
    if shell == "powershell":
        return f". {_quote_path(shell, hint)}"
    if re.fullmatch(r"[a-zA-Z0-9_./~+-]+", hint):
        return f"source {hint}"
    home_prefix = "~/" if hint.startswith("~/") else ""
    return f"source {home_prefix}{_quote_path(shell, hint[len(home_prefix) :])}"


@dataclass(frozen=True, slots=True)
class ProfileUpdate:
    content: str
    changed: bool
    had_existing: bool
    """An earlier completion block or line was found (the message then says ``Updating``)."""


def _owned_invocation(invocation: str, program: str) -> bool:
    parts = invocation.strip().split()
    if parts[:2] != [program, "completion"]:
        return False
    args = parts[2:]
    if len(args) == 2 and args[0] in ("--shell", "-s"):
        return args[1] in COMPLETION_SHELLS
    if not args:
        return True
    return len(args) == 1 and re.sub(r"^(?:--shell=|-s=?)", "", args[0]) in COMPLETION_SHELLS


def _dynamic_line(line: str, program: str) -> bool:
    """``source <(openclaw completion …)``, ``eval "$(openclaw completion …)"``, ``openclaw completion | source``."""
    trimmed = line.strip()
    marker = trimmed.find(f"<({program} completion")
    if marker >= 0:
        before = trimmed[:marker].rstrip()
        expression = trimmed[marker:]
        return (
            re.fullmatch(r"(?:(?:\[\s+-f\s+[^\]]+\]\s*&&\s*)?(?:source|\.))\s*", before) is not None
            and expression.endswith(")")
            and _owned_invocation(expression[2:-1], program)
        )
    start = trimmed.find(f"{program} completion")
    if start < 0:
        return False
    eval_prefix = re.fullmatch(r"eval\s+([\"']?)\$\(", trimmed[:start].rstrip())
    if eval_prefix:
        closing = ")" + eval_prefix.group(1)
        invocation = trimmed[start:]
        return invocation.endswith(closing) and _owned_invocation(invocation[: -len(closing)], program)
    if start != 0 or re.search(r"[;&]", trimmed):
        return False
    stages = [stage.strip() for stage in trimmed.split("|")]
    return (
        _owned_invocation(stages[0], program)
        and re.fullmatch(r"source|Invoke-Expression|iex", stages[-1], re.I) is not None
        and (len(stages) == 2 or (len(stages) == 3 and re.fullmatch(r"Out-String", stages[1], re.I) is not None))
    )


def _owned_line(line: str, program: str, cache_path: str) -> bool:
    if _dynamic_line(line, program):
        return True
    trimmed = line.strip()
    legacy = (
        f'source "{cache_path}"',
        f'[ -f "{cache_path}" ] && source "{cache_path}"',
        f'test -f "{cache_path}"; and source "{cache_path}"',
    )
    return trimmed in legacy or any(trimmed == source_line(shell, cache_path) for shell in COMPLETION_SHELLS)


def _previous_source_line(line: str, cache_path: str, shell: Shell) -> bool:
    """A source line of an earlier cache location (another state dir) of the same script."""
    trimmed = line.strip()
    guarded = re.fullmatch(r"(?:\[\s+-f|test\s+-f)\s+(.+?)\s*(?:\]\s*&&|;\s*and)\s+source\s+\1", trimmed)
    direct = re.fullmatch(r"(source|\.)\s+(.+)", trimmed)
    quoted = guarded.group(1) if guarded else direct.group(2) if direct else None
    if not quoted:
        return False
    quote_shell: Shell = "powershell" if direct is not None and direct.group(1) == "." else shell
    legacy_match = re.fullmatch(r'"(.+)"', quoted) if guarded else re.fullmatch(r'source\s+"([^"]+)"', trimmed)
    inner = quoted[1:-1]
    if legacy_match:
        source = legacy_match.group(1)
    elif quote_shell == "powershell":
        source = re.sub("(['\u2018-\u201b])\\1", r"\1", inner)
    elif quote_shell == "fish":
        source = re.sub(r"\\([\\'])", r"\1", inner)
    else:
        source = inner.replace("'\\''", "'")
    if not legacy_match and _quote_path(quote_shell, source) != quoted:
        legacy_ps = quote_shell == "powershell" and "'" + source.replace("'", "''") + "'" == quoted
        if not legacy_ps:
            return False
    return (
        source.startswith("/")
        and posixpath.basename(posixpath.dirname(source)) == "completions"
        and posixpath.basename(source) == posixpath.basename(cache_path)
    )


_UNSAFE = re.compile(r"[\s\"'`$\\|&;<>()*?\[\]{}]")


def _expand_home_operand(operand: str, home: str, shell: Shell) -> str | None:
    double = len(operand) >= 2 and operand.startswith('"') and operand.endswith('"')
    inner = operand[1:-1] if double else operand
    if ('"' in inner) if double else re.search("[\"'`]", inner):
        return None
    if not double and _UNSAFE.search(home):
        return None
    token = "$HOME" if shell == "fish" else "${HOME}" if inner.startswith("${HOME}") else "$HOME"
    if not inner.startswith(token):
        return None
    suffix = inner[len(token) :]
    if _UNSAFE.search(suffix):
        return None
    return home + suffix if suffix.startswith("/") else None


def _portable_hook(line: str, shell: Shell, cache_path: str, home: str) -> bool:
    """A user-managed ``[ -f "$HOME/…" ] && source "$HOME/…"`` line for the current cache: left alone."""
    if shell == "powershell":
        return False
    home_prefix = home if home.endswith("/") else home + "/"
    if not cache_path.startswith(home_prefix):
        return False
    suffix = cache_path[len(home_prefix) :]
    if not suffix or _UNSAFE.search(suffix):
        return False
    trimmed = line.strip(" \t")
    if shell == "fish":
        hook = re.fullmatch(r"test[ \t]+-f[ \t]+(.+?)[ \t]*;[ \t]*and[ \t]+source[ \t]+(.+)", trimmed)
    else:
        hook = re.fullmatch(r"\[[ \t]+-f[ \t]+(.+?)[ \t]+\][ \t]*&&[ \t]+source[ \t]+(.+)", trimmed) or re.fullmatch(
            r"\[\[[ \t]+-f[ \t]+(.+?)[ \t]+\]\][ \t]*&&[ \t]+source[ \t]+(.+)", trimmed
        )
    return (
        hook is not None
        and _expand_home_operand(hook.group(1), home, shell) == cache_path
        and _expand_home_operand(hook.group(2), home, shell) == cache_path
    )


def update_profile(content: str, shell: Shell, cache_path: str, home: str, program: str = "openclaw") -> ProfileUpdate:
    """The profile with its completion block replaced by ``# OpenClaw Completion`` + the source line at the end
    (earlier blocks, ``source <(openclaw completion)`` lines and older cache locations removed). A
    user-managed ``$HOME`` hook for the same cache is kept and then no block is added."""
    lines = content.split("\n")
    kept: list[str] = []
    had_existing = False
    portable_covers = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.strip() == PROFILE_HEADER:
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if _portable_hook(following, shell, cache_path, home):
                kept.append(line)
                index += 1
                continue
            had_existing = True
            if _owned_line(following, program, cache_path) or _previous_source_line(following, cache_path, shell):
                index += 1
            index += 1
            continue
        if _owned_line(line, program, cache_path):
            had_existing = True
        elif _portable_hook(line, shell, cache_path, home):
            had_existing = portable_covers = True
            kept.append(line)
        else:
            kept.append(line)
        index += 1
    if portable_covers:
        joined = "\n".join(kept)
        return ProfileUpdate(joined, joined != content, had_existing)
    trimmed = "\n".join(kept).rstrip()
    block = f"{PROFILE_HEADER}\n{source_line(shell, cache_path)}"
    updated = f"{trimmed}\n\n{block}\n" if trimmed else f"{block}\n"
    return ProfileUpdate(updated, updated != content, had_existing)
