"""Shell completion for ``openclaw``: one command tree, four script generators (bash, zsh, fish, PowerShell),
and the rules of ``openclaw completion --install`` (profile paths, the profile block, the reload hint).

Pure: the caller builds the :class:`CompletionCommand` tree (``entrypoints.cli.completion`` derives it from the
``openclaw mcp`` command table), reads and writes files, and passes the environment in. Every script is
generated from the same flattened tree (:func:`contexts`), so the four shells complete the same words.

MCP server names are dynamic: each script calls ``<program> [--profile P | --dev] completion --list-servers``
(``LIST_SERVERS_FLAG``), which prints the configured names one per line.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "COMPLETION_SHELLS",
    "LIST_SERVERS_FLAG",
    "PROFILE_HEADER",
    "CompletionCommand",
    "CompletionContext",
    "CompletionOperand",
    "CompletionOption",
    "ProfileUpdate",
    "Shell",
    "cache_file_name",
    "contexts",
    "generate",
    "profile_hint",
    "profile_path",
    "reload_command",
    "shell_from_env",
    "source_line",
    "update_profile",
]

Shell = Literal["zsh", "bash", "powershell", "fish"]
COMPLETION_SHELLS: tuple[Shell, ...] = ("zsh", "bash", "powershell", "fish")
"""In the reference's order (its ``--shell`` choices and ``--write-state`` order)."""

LIST_SERVERS_FLAG = "--list-servers"
PROFILE_HEADER = "# OpenClaw Completion"

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


def generate(shell: Shell, root: CompletionCommand) -> str:
    """The completion script of ``shell`` for the tree ``root`` (its name is the program's), ending in a newline."""
    generators = {"bash": _bash, "zsh": _zsh, "fish": _fish, "powershell": _powershell}
    return generators[shell](root, contexts(root))


# ----------------------------------------------------------------------------------------------- bash


def _sh_quote(value: str) -> str:
    """A POSIX shell word: unquoted when it is plain, else single-quoted."""
    if value and re.fullmatch(r"[A-Za-z0-9_/:=.,@%+-]+", value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def _sh_word(value: str) -> str:
    """A shell word for ``value``, ``""`` when it is empty."""
    return _sh_quote(value) if value else '""'


def _function_name(program: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", program)


def _bash(root: CompletionCommand, nodes: list[CompletionContext]) -> str:
    program = root.name
    fn = f"_{_function_name(program)}_completion"
    spec_cases: list[str] = []
    value_cases: list[str] = []
    for node in nodes:
        command = node.command
        operands = " ".join(operand.kind for operand in command.operands)
        words = " ".join(word for operand in command.operands for word in operand.words)
        spec_cases.append(
            f"        {_sh_word(node.key)})\n"
            f"            subcommands={_sh_word(' '.join(c.name for c in command.visible_commands))}\n"
            f"            names={_sh_word(' '.join(c.name for c in command.commands))}\n"
            f"            flags={_sh_word(' '.join(node.flags))}\n"
            f"            value_flags={_sh_word(' '.join(node.value_flags))}\n"
            f"            operands={_sh_word(operands)}\n"
            f"            operand_words={_sh_word(words)}\n"
            "            ;;"
        )
        for flag, option in node.values.items():
            if option.choices or option.files:
                body = "files=1" if option.files else f"candidates={_sh_word(' '.join(option.choices))}"
                value_cases.append(f"        {_sh_quote(node.key + '|' + flag)}) {body} ;;")
    return f"""# {program} shell completion for bash (generated by `{program} completion --shell bash`).

{fn}_servers() {{
    command {program} "${{root_args[@]}}" completion {LIST_SERVERS_FLAG} 2>/dev/null
}}

{fn}_spec() {{
    case "$1" in
{chr(10).join(spec_cases)}
        *)
            subcommands="" names="" flags="" value_flags="" operands="" operand_words=""
            ;;
    esac
}}

{fn}_values() {{
    case "$1|$2" in
{chr(10).join(value_cases)}
    esac
}}

{fn}() {{
    local word flag cur prefix path="" pending="" candidates="" kind i cword ended=0 operand=0 files=0
    local subcommands names flags value_flags operands operand_words
    local -a words=() root_args=() kinds=()
    COMPREPLY=()
    # Rejoin the words that COMP_WORDBREAKS split at '=' (--shell=bash arrives as --shell, =, bash).
    for ((i = 0; i <= COMP_CWORD; i++)); do
        word="${{COMP_WORDS[i]}}"
        if ((i > 1)) && [[ $word == "=" || ${{COMP_WORDS[i-1]}} == "=" ]] &&
            [[ ${{words[${{#words[@]}}-1]}} == -* ]]; then
            words[${{#words[@]}}-1]+="$word"
        else
            words+=("$word")
        fi
    done
    cword=$((${{#words[@]}} - 1))
    cur="${{words[cword]}}"
    prefix="${{cur%"$2"}}"
    for ((i = 1; i < cword; i++)); do
        word="${{words[i]}}"
        if [[ -n $pending ]]; then
            [[ $pending == --profile ]] && root_args+=(--profile "$word")
            pending=""
            continue
        fi
        if ((!ended)) && [[ $word == -- ]]; then
            ended=1
            continue
        fi
        {fn}_spec "$path"
        if ((!ended)) && [[ $word == -?* ]]; then
            flag="${{word%%=*}}"
            [[ $word != *=* && " $value_flags " == *" $flag "* ]] && pending="$flag"
            [[ $word == --dev || $word == --profile=* ]] && root_args+=("$word")
            continue
        fi
        if ((!ended)) && [[ " $names " == *" $word "* ]]; then
            path="${{path:+$path }}$word"
            operand=0
            continue
        fi
        operand=$((operand + 1))
    done
    {fn}_spec "$path"
    if [[ -n $pending ]]; then
        {fn}_values "$path" "$pending"
    elif ((!ended)) && [[ $cur == --*=* ]]; then
        flag="${{cur%%=*}}"
        if [[ " $value_flags " == *" $flag "* ]]; then
            {fn}_values "$path" "$flag"
            if ((files)); then
                prefix="$flag="
                cur="${{cur#*=}}"
            else
                for word in $candidates; do
                    word="$flag=$word"
                    [[ $word == "$cur"* ]] && COMPREPLY+=("${{word#"$prefix"}}")
                done
                candidates=""
            fi
        fi
    elif ((!ended)) && [[ $cur == -* ]]; then
        candidates="$flags"
    else
        ((ended)) || candidates="$subcommands"
        read -r -a kinds <<< "$operands"
        kind="${{kinds[operand]-}}"
        case "$kind" in
            server)
                while IFS= read -r word; do
                    [[ -n $word && $word == "$cur"* ]] && COMPREPLY+=("${{word#"$prefix"}}")
                done < <({fn}_servers)
                ;;
            file) files=1 ;;
            word) candidates+=" $operand_words" ;;
        esac
    fi
    if [[ -n $candidates ]]; then
        while IFS= read -r word; do
            [[ -n $word ]] && COMPREPLY+=("${{word#"$prefix"}}")
        done < <(compgen -W "$candidates" -- "$cur")
    fi
    if ((files)); then
        compopt -o filenames 2>/dev/null
        while IFS= read -r word; do
            COMPREPLY+=("$word")
        done < <(compgen -f -- "$cur")
    fi
    return 0
}}

complete -F {fn} {program}
"""


# ------------------------------------------------------------------------------------------------ zsh


def _zsh_single(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _zsh_bracketed(description: str) -> str:
    """A description inside ``[…]`` of an ``_arguments`` spec."""
    return re.sub(r"([\\\[\]])", r"\\\1", description.replace("\n", " "))


def _zsh_choice(choice: str) -> str:
    return re.sub(r"([\\\s:()\[\]{}*?!|&;<>\"'$`])", r"\\\1", choice)


def _zsh_message(text: str) -> str:
    return text.replace("\\", "\\\\").replace(":", "\\:")


def _zsh_action(kind: OperandKind | None, choices: Sequence[str], servers: str) -> str:
    if kind == "server":
        return servers
    if kind == "file":
        return "_files"
    if choices:
        return "(" + " ".join(_zsh_choice(choice) for choice in choices) + ")"
    return " "


def _zsh_option_specs(command: CompletionCommand, servers: str) -> list[str]:
    specs: list[str] = []
    for option in command.options:
        description = f"[{_zsh_bracketed(option.description)}]"
        argument = ""
        if option.value is not None:
            action = _zsh_action("file" if option.files else None, option.choices, servers)
            argument = f":{_zsh_message(option.value)}:{action}"
        star = "*" if option.repeatable else ""
        if len(option.flags) > 1:
            exclusion = "" if option.repeatable else "(" + " ".join(option.flags) + ")"
            braces = "{" + ",".join(option.flags) + "}"
            specs.append(f"{_zsh_single(exclusion + star)}{braces}{_zsh_single(description + argument)}")
        else:
            specs.append(_zsh_single(f"{star}{option.flags[0]}{description}{argument}"))
    return specs


def _zsh_operand_specs(command: CompletionCommand, servers: str) -> list[str]:
    specs = []
    for position, operand in enumerate(command.operands, start=1):
        colon = ":" if operand.required else "::"
        action = _zsh_action(operand.kind, operand.words, servers)
        specs.append(_zsh_single(f"{position}{colon}{_zsh_message(operand.name)}:{action}"))
    return specs


def _zsh(root: CompletionCommand, nodes: list[CompletionContext]) -> str:
    program = root.name
    base = f"_{_function_name(program)}"
    servers = f"{base}_servers"
    functions: list[str] = []
    for node in nodes:
        command = node.command
        name = base + "".join("_" + _function_name(part) for part in node.path)
        specs = _zsh_option_specs(command, servers)
        prologue = ""
        if not node.path:
            prologue = f"  {base}_root_args=()\n  {base}_scan_root_args\n"
        if command.commands:
            items = " ".join(
                _zsh_single(f"{_zsh_message(child.name)}:{child.description}") for child in command.visible_commands
            )
            cases = "\n".join(
                f"        ({child.name}) {name}_{_function_name(child.name)} ;;" for child in command.commands
            )
            label = " ".join((program, *node.path, "command"))
            functions.append(
                f"{name}_commands() {{\n"
                f"  local -a commands=({items})\n"
                f"  _describe -t commands {_zsh_single(label)} commands\n"
                "}\n\n"
                f"{name}() {{\n"
                '  local curcontext="$curcontext" state line\n'
                "  typeset -A opt_args\n"
                f"{prologue}"
                "  _arguments -C -s -S \\\n"
                + "".join(f"    {spec} \\\n" for spec in specs)
                + f"    {_zsh_single(f'1: :{name}_commands')} \\\n"
                "    '*::arg:->args'\n"
                "  case $state in\n"
                "    (args)\n"
                "      case $line[1] in\n"
                f"{cases}\n"
                "      esac\n"
                "      ;;\n"
                "  esac\n"
                "}\n"
            )
        else:
            specs += _zsh_operand_specs(command, servers)
            functions.append(
                f"{name}() {{\n{prologue}  _arguments -s -S" + "".join(f" \\\n    {spec}" for spec in specs) + "\n}\n"
            )
    body = "\n".join(functions)
    return f"""#compdef {program}
# {program} shell completion for zsh (generated by `{program} completion --shell zsh`).

typeset -ga {base}_root_args

{base}_scan_root_args() {{
  local i
  for ((i = 2; i < CURRENT; i++)); do
    case $words[i] in
      (--) break ;;
      (--dev|--profile=*) {base}_root_args+=($words[i]) ;;
      (--profile) {base}_root_args+=(--profile $words[i+1]); ((i++)) ;;
    esac
  done
}}

{servers}() {{
  local -a names
  names=(${{(f)"$(command {program} ${base}_root_args completion {LIST_SERVERS_FLAG} 2>/dev/null)"}})
  _wanted servers expl 'MCP server' compadd -a names
}}

{body}
{base}_register() {{
  (( $+functions[compdef] )) || return 0
  compdef {base} {program}
  precmd_functions=(${{precmd_functions:#{base}_register}})
  unfunction {base}_register 2>/dev/null
}}

if [[ $funcstack[1] == {base} ]]; then
  {base} "$@"
else
  {base}_register
  if (( ! $+functions[compdef] )); then
    typeset -ga precmd_functions
    precmd_functions+=({base}_register)
  fi
fi
"""


# ----------------------------------------------------------------------------------------------- fish


def _fish_quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish(root: CompletionCommand, nodes: list[CompletionContext]) -> str:
    program = root.name
    base = f"__{_function_name(program)}"
    sub_cases: list[str] = []
    value_cases: list[str] = []
    lines: list[str] = [f"complete -c {program} -f"]
    for node in nodes:
        command = node.command
        key = _fish_quote(node.key)
        sub_cases.append(f"        case {key}\n            printf '%s\\n' {' '.join(c.name for c in command.commands)}")
        if node.value_flags:
            value_cases.append(f"        case {key}\n            printf '%s\\n' -- {' '.join(node.value_flags)}")
        at = _fish_quote(f"{base}_at {key}")
        within = _fish_quote(f"{base}_within {key}")
        for child in command.visible_commands:
            lines.append(
                f"complete -c {program} -n {at} -a {_fish_quote(child.name)} -d {_fish_quote(child.description)}"
            )
        for option in command.options:
            line = f"complete -c {program} -n {within}"
            for flag in option.flags:
                line += f" -l {flag[2:]}" if flag.startswith("--") else f" -s {flag[1:]}"
            if option.value is not None:
                line += " -r -F" if option.files else " -x"
                if option.choices:
                    line += " -a " + _fish_quote(" ".join(option.choices))
            lines.append(f"{line} -d {_fish_quote(option.description)}")
        for position, operand in enumerate(command.operands):
            condition = _fish_quote(f"{base}_operand {key} {position}")
            if operand.kind == "server":
                arguments = f"-a {_fish_quote(f'({base}_servers)')}"
            elif operand.kind == "file":
                arguments = "-F"
            elif operand.kind == "word":
                arguments = f"-a {_fish_quote(' '.join(operand.words))}"
            else:
                continue
            label = "MCP server" if operand.kind == "server" else operand.name
            lines.append(f"complete -c {program} -n {condition} {arguments} -d {_fish_quote(label)}")
    return f"""# {program} shell completion for fish (generated by `{program} completion --shell fish`).

function {base}_subcommands
    switch $argv[1]
{chr(10).join(sub_cases)}
    end
end

function {base}_value_flags
    switch $argv[1]
{chr(10).join(value_cases)}
    end
end

# Prints the command path typed so far, then how many operands follow it (option values skipped).
function {base}_state
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path
    set -l operands 0
    set -l skip 0
    set -l ended 0
    for token in $tokens
        if test $skip -eq 1
            set skip 0
            continue
        end
        if test $ended -eq 0; and test "$token" = --
            set ended 1
            continue
        end
        if test $ended -eq 0; and string match -q -- '-?*' $token
            set -l flag (string split -m1 = -- $token)[1]
            if not string match -q -- '*=*' $token; and contains -- $flag ({base}_value_flags "$path")
                set skip 1
            end
            continue
        end
        if test $ended -eq 0; and contains -- $token ({base}_subcommands "$path")
            set path (string join ' ' -- $path $token)
            set operands 0
        else
            set operands (math $operands + 1)
        end
    end
    printf '%s\\n' "$path" $operands $skip
end

# The command line is at the command path $argv[1] (an option's value may be pending).
function {base}_within
    set -l state ({base}_state)
    test "$state[1]" = "$argv[1]"
end

# The command line is at the command path $argv[1], no option value pending.
function {base}_at
    set -l state ({base}_state)
    test "$state[1]" = "$argv[1]"; and test "$state[3]" = 0
end

function {base}_operand
    set -l state ({base}_state)
    test "$state[1]" = "$argv[1]"; and test "$state[2]" = "$argv[2]"; and test "$state[3]" = 0
end

function {base}_servers
    set -l tokens (commandline -opc)
    set -l root_args
    for i in (seq 2 (count $tokens))
        switch $tokens[$i]
            case --
                break
            case --dev '--profile=*'
                set -a root_args $tokens[$i]
            case --profile
                set -l next (math $i + 1)
                set -a root_args --profile $tokens[$next]
        end
    end
    command {program} $root_args completion {LIST_SERVERS_FLAG} 2>/dev/null
end

{chr(10).join(lines)}
"""


# ----------------------------------------------------------------------------------------- PowerShell


def _ps_quote(value: str) -> str:
    return "'" + re.sub("(['\u2018-\u201b])", r"\1\1", value) + "'"


def _ps_array(values: Sequence[str]) -> str:
    return "@(" + ", ".join(_ps_quote(value) for value in values) + ")"


def _powershell(root: CompletionCommand, nodes: list[CompletionContext]) -> str:
    program = root.name
    specs: list[str] = []
    values: list[str] = []
    for node in nodes:
        command = node.command
        commands = ", ".join(
            f"@({_ps_quote(child.name)}, {_ps_quote(child.description)})" for child in command.visible_commands
        )
        option_rows = ", ".join(
            f"@({_ps_quote(flag)}, {_ps_quote(option.description)})"
            for option in command.options
            for flag in option.flags
        )
        operands = _ps_array([operand.kind for operand in command.operands])
        words = _ps_array([word for operand in command.operands for word in operand.words])
        specs.append(
            f"        {_ps_quote(node.key)} = @{{ Commands = @({commands});"
            f" Names = {_ps_array([c.name for c in command.commands])};"
            f" Options = @({option_rows}); ValueFlags = {_ps_array(node.value_flags)};"
            f" Operands = {operands}; Words = {words} }}"
        )
        for flag, option in node.values.items():
            if option.choices:
                values.append(f"        {_ps_quote(node.key + '|' + flag)} = {_ps_array(option.choices)}")
    return f"""# {program} shell completion for PowerShell (generated by `{program} completion --shell powershell`).

Register-ArgumentCompleter -Native -CommandName {_ps_quote(program)} -ScriptBlock {{
    param($wordToComplete, $commandAst, $cursorPosition)
    $specs = @{{
{chr(10).join(specs)}
    }}
    $choices = @{{
{chr(10).join(values)}
    }}
    $elements = @($commandAst.CommandElements | Where-Object {{ $_.Extent.StartOffset -lt $cursorPosition }} |
        ForEach-Object {{ $_.Extent.Text }})
    if ($wordToComplete -ne '' -and $elements.Count -gt 0) {{
        $elements = @($elements | Select-Object -First ($elements.Count - 1))
    }}
    $path = ''
    $pending = ''
    $ended = $false
    $operand = 0
    $rootArgs = @()
    for ($i = 1; $i -lt $elements.Count; $i++) {{
        $element = $elements[$i]
        $spec = $specs[$path]
        if ($pending -ne '') {{
            if ($pending -eq '--profile') {{ $rootArgs += @('--profile', $element) }}
            $pending = ''
            continue
        }}
        if (-not $ended -and $element -eq '--') {{ $ended = $true; continue }}
        if (-not $ended -and $element -like '-?*') {{
            $flag = ($element -split '=', 2)[0]
            if ($element -notlike '*=*' -and $spec.ValueFlags -contains $flag) {{ $pending = $flag }}
            if ($element -eq '--dev' -or $element -like '--profile=*') {{ $rootArgs += $element }}
            continue
        }}
        if (-not $ended -and $spec.Names -contains $element) {{
            $path = if ($path -eq '') {{ $element }} else {{ "$path $element" }}
            $operand = 0
            continue
        }}
        $operand++
    }}
    $spec = $specs[$path]
    $results = [System.Collections.Generic.List[object]]::new()
    $add = {{
        param($text, $kind, $tip)
        if ($tip -eq '' -or $null -eq $tip) {{ $tip = $text }}
        $results.Add([System.Management.Automation.CompletionResult]::new($text, $text, $kind, $tip))
    }}
    if ($pending -ne '') {{
        foreach ($choice in @($choices["$path|$pending"])) {{
            if ($null -ne $choice -and $choice -like "$wordToComplete*") {{ & $add $choice 'ParameterValue' $choice }}
        }}
    }} elseif (-not $ended -and $wordToComplete -match '^(--[^=]+)=(.*)$') {{
        $flag = $Matches[1]
        $typed = $Matches[2]
        foreach ($choice in @($choices["$path|$flag"])) {{
            if ($null -ne $choice -and $choice -like "$typed*") {{ & $add "$flag=$choice" 'ParameterValue' $choice }}
        }}
    }} elseif (-not $ended -and $wordToComplete -like '-*') {{
        foreach ($row in $spec.Options) {{
            if ($row[0] -like "$wordToComplete*") {{ & $add $row[0] 'ParameterName' $row[1] }}
        }}
    }} else {{
        if (-not $ended) {{
            foreach ($row in $spec.Commands) {{
                if ($row[0] -like "$wordToComplete*") {{ & $add $row[0] 'Command' $row[1] }}
            }}
        }}
        $kind = if ($operand -lt $spec.Operands.Count) {{ $spec.Operands[$operand] }} else {{ '' }}
        if ($kind -eq 'server') {{
            foreach ($name in @(& {_ps_quote(program)} @rootArgs completion {LIST_SERVERS_FLAG} 2>$null)) {{
                if ($name -ne '' -and $name -like "$wordToComplete*") {{ & $add $name 'ParameterValue' $name }}
            }}
        }} elseif ($kind -eq 'word') {{
            foreach ($word in $spec.Words) {{
                if ($word -like "$wordToComplete*") {{ & $add $word 'ParameterValue' $word }}
            }}
        }}
    }}
    $results
}}
"""


# ---------------------------------------------------------------------------------------- --install rules


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
        return _ps_quote(value)
    if shell == "fish":
        return "'" + re.sub(r"([\\'])", r"\\\1", value) + "'"
    return "'" + value.replace("'", "'\\''") + "'"


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
