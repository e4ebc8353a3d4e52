"""``openclaw completion``: the scripts generated from the command tree, the options and their errors with the
reference's texts, ``--write-state`` and ``--install`` into a temp HOME, and the hidden ``--list-servers``."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from openclaw_mcp.entrypoints.cli import completion as rules
from openclaw_mcp.entrypoints.cli.completion import command_tree, completion_main, completion_script
from openclaw_mcp.entrypoints.cli.console import Console

BANNER = "\nOpenClaw 2026.9.6 (eb377ac) — All your chats, one OpenClaw.\n\n"
HELP = """Usage: openclaw completion [options]

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
TRY = "Try: openclaw completion --help\n"


class Run:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def env_for(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), "SHELL": "/bin/bash", **extra}


def run(argv: list[str], env: dict[str, str]) -> Run:
    out, err = io.StringIO(), io.StringIO()
    code = completion_main(argv, env, Console(out, err))
    return Run(code, out.getvalue(), err.getvalue())


# -------------------------------------------------------------------------------------------- options


def test_help_is_the_references_with_its_banner(home: Path) -> None:
    result = run(["--help"], env_for(home))
    assert (result.code, result.out, result.err) == (0, BANNER + HELP, "")
    assert run(["-h"], env_for(home, OPENCLAW_SUPPRESS_HELP_BANNER="1")).out == HELP


def test_help_wins_over_an_unknown_option_but_not_over_a_bad_shell(home: Path) -> None:
    assert run(["--bogus", "--help"], env_for(home)).out == BANNER + HELP
    assert run(["--shell", "foo", "--help"], env_for(home)).code == 1


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (
            ["--shell", "foo"],
            "OpenClaw could not parse this command: option '-s, --shell <shell>' argument 'foo' is invalid. "
            "Allowed choices are zsh, bash, powershell, fish.",
        ),
        (
            ["-s", "BASH"],
            "OpenClaw could not parse this command: option '-s, --shell <shell>' argument 'BASH' is invalid. "
            "Allowed choices are zsh, bash, powershell, fish.",
        ),
        (["-s"], "OpenClaw could not parse this command: option '-s, --shell <shell>' argument missing"),
        (["--bogus"], 'OpenClaw does not recognize option "--bogus".'),
        (["bash"], "Too many arguments for this command."),
        (["help"], "Too many arguments for this command."),
    ],
)
def test_usage_errors_have_the_references_texts_and_exit_1(home: Path, argv: list[str], text: str) -> None:
    result = run(argv, env_for(home))
    assert (result.code, result.out, result.err) == (1, "", f"{text}\n{TRY}")


@pytest.mark.parametrize(
    ("shell_env", "expected"),
    [
        ("/bin/bash", "bash"),
        ("/usr/bin/fish", "fish"),
        ("/usr/bin/pwsh", "powershell"),
        ("/bin/sh", "zsh"),
        ("", "zsh"),
    ],
)
def test_the_default_shell_comes_from_SHELL_else_zsh(shell_env: str, expected: rules.Shell) -> None:
    assert rules.shell_from_env({"SHELL": shell_env}) == expected


@pytest.mark.parametrize(
    "argv", [["--shell", "fish"], ["-s", "fish"], ["-sfish"], ["--shell=fish"], ["-y", "-s", "fish"]]
)
def test_the_shell_option_spellings_print_the_script_and_a_newline(home: Path, argv: list[str]) -> None:
    result = run(argv, env_for(home))
    assert (result.code, result.err) == (0, "")
    assert result.out == completion_script("fish") + "\n"


def test_without_shell_the_script_of_SHELL_is_printed(home: Path) -> None:
    assert run([], env_for(home, SHELL="/bin/zsh")).out == completion_script("zsh") + "\n"


# ------------------------------------------------------------------------------------------- the tree


def test_every_script_comes_from_the_one_tree_and_offers_the_visible_mcp_commands() -> None:
    tree = command_tree()
    assert [command.name for command in tree.commands] == ["completion", "config", "doctor", "help", "mcp"]
    mcp = next(command for command in tree.commands if command.name == "mcp")
    visible = [command.name for command in mcp.visible_commands]
    assert {"set", "show", "status", "serve", "list", "probe"} <= set(visible)
    assert {"export", "import", "ui"}.isdisjoint(visible)
    for shell in rules.COMPLETION_SHELLS:
        script = completion_script(shell)
        assert script.endswith("\n")
        assert rules.LIST_SERVERS_FLAG in script
        for name in visible:
            assert name in script


def test_server_operands_complete_names_except_for_add() -> None:
    mcp = next(command for command in command_tree().commands if command.name == "mcp")
    kinds = {command.name: [operand.kind for operand in command.operands] for command in mcp.commands}
    for name in ("show", "unset", "probe", "login", "logout", "configure", "tools", "doctor"):
        assert kinds[name] == ["server"]
    assert kinds["set"] == ["server", "text"]
    assert kinds["add"] == ["text"]
    assert kinds["import"] == ["file"]


def test_root_options_are_skipped_with_their_values_at_every_depth() -> None:
    nodes = {node.key: node for node in rules.contexts(command_tree())}
    assert {"--profile", "--log-level", "--container"} <= set(nodes["mcp show"].value_flags)
    assert nodes["mcp show"].values["--log-level"].choices == (
        "silent",
        "fatal",
        "error",
        "warn",
        "info",
        "debug",
        "trace",
    )
    assert nodes["completion"].values["-s"].choices == ("zsh", "bash", "powershell", "fish")
    assert nodes["mcp add"].values["--transport"].choices == ("streamable-http", "sse")


# ---------------------------------------------------------------------------------------- --write-state


def test_write_state_writes_the_four_scripts_under_the_state_dir_and_prints_nothing(home: Path) -> None:
    result = run(["--write-state"], env_for(home))
    assert (result.code, result.out, result.err) == (0, "", "")
    directory = home / ".openclaw" / "completions"
    assert sorted(os.listdir(directory)) == ["openclaw.bash", "openclaw.fish", "openclaw.ps1", "openclaw.zsh"]
    assert (directory / "openclaw.ps1").read_text() == completion_script("powershell")
    assert (directory / "openclaw.bash").stat().st_mode & 0o777 == 0o666 & ~_umask()


def test_write_state_with_a_shell_writes_only_that_one_into_OPENCLAW_STATE_DIR(home: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    assert run(["--write-state", "-s", "fish"], env_for(home, OPENCLAW_STATE_DIR=str(state))).code == 0
    assert os.listdir(state / "completions") == ["openclaw.fish"]
    assert not (home / ".openclaw").exists()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# -------------------------------------------------------------------------------------------- --install


def test_install_without_the_cache_fails_in_the_frame(home: Path) -> None:
    result = run(["--install"], env_for(home))
    cache = home / ".openclaw" / "completions" / "openclaw.bash"
    assert (result.code, result.out) == (1, "")
    assert result.err == (
        "[openclaw] The CLI command failed.\n"
        f"[openclaw] Reason: Completion cache not found at {cache}. Run `openclaw completion --write-state` first.\n"
        "[openclaw] Debug: set OPENCLAW_DEBUG=1 to include the stack trace.\n"
        "[openclaw] Try: openclaw doctor\n"
        "[openclaw] Help: openclaw --help\n"
    )


def test_install_creates_bash_profile_then_reports_it_installed(home: Path) -> None:
    result = run(["--install", "--write-state", "--yes"], env_for(home))
    profile = home / ".bash_profile"
    cache = home / ".openclaw" / "completions" / "openclaw.bash"
    assert (result.code, result.out) == (0, "")
    assert result.err == (
        f"Profile not found at {profile}. Creating a new one.\n"
        f"Installing completion in {profile}...\n"
        "Completion installed. Restart your shell or run: source ~/.bash_profile\n"
    )
    assert profile.read_text() == f"# OpenClaw Completion\n[ -f '{cache}' ] && source '{cache}'\n"
    again = run(["--install"], env_for(home))
    assert (again.code, again.err) == (0, f"Completion already installed in {profile}\n")


def test_install_appends_to_an_existing_bashrc_and_replaces_a_dynamic_line(home: Path) -> None:
    bashrc = home / ".bashrc"
    bashrc.write_text("export FOO=1\n\n\n")
    assert run(["--install", "--write-state"], env_for(home)).code == 0
    cache = home / ".openclaw" / "completions" / "openclaw.bash"
    block = f"# OpenClaw Completion\n[ -f '{cache}' ] && source '{cache}'\n"
    assert bashrc.read_text() == f"export FOO=1\n\n{block}"
    bashrc.write_text("x\nsource <(openclaw completion --shell bash)\ny\n")
    result = run(["--install"], env_for(home))
    assert result.err == (
        f"Updating completion in {bashrc}...\nCompletion installed. Restart your shell or run: source ~/.bashrc\n"
    )
    assert bashrc.read_text() == f"x\ny\n\n{block}"


def test_install_writes_through_a_symlinked_profile(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "bashrc"
    target.parent.mkdir()
    target.write_text("# mine\n")
    os.symlink(target, home / ".bashrc")
    assert run(["--install", "--write-state", "-s", "bash"], env_for(home)).code == 0
    assert (home / ".bashrc").is_symlink()
    assert target.read_text().startswith("# mine\n\n# OpenClaw Completion\n")


@pytest.mark.parametrize(
    ("shell", "extra", "profile", "line", "reload"),
    [
        ("zsh", {}, ".zshrc", "[ -f '{c}' ] && source '{c}'", "source ~/.zshrc"),
        ("zsh", {"ZDOTDIR": "{h}/zd"}, "zd/.zshrc", "[ -f '{c}' ] && source '{c}'", "source ~/zd/.zshrc"),
        (
            "fish",
            {},
            ".config/fish/config.fish",
            "test -f '{c}'; and source '{c}'",
            "source ~/.config/fish/config.fish",
        ),
        ("fish", {"XDG_CONFIG_HOME": "{h}/xdg"}, "xdg/fish/config.fish", "test -f '{c}'; and source '{c}'", None),
        (
            "powershell",
            {},
            ".config/powershell/Microsoft.PowerShell_profile.ps1",
            ". '{c}'",
            ". '{h}/.config/powershell/Microsoft.PowerShell_profile.ps1'",
        ),
    ],
)
def test_install_uses_each_shells_profile(
    home: Path, shell: str, extra: dict[str, str], profile: str, line: str, reload: str | None
) -> None:
    h = str(home)
    env = env_for(home, **{key: value.format(h=h) for key, value in extra.items()})
    result = run(["--install", "--write-state", "--shell", shell], env)
    cache = rules.cache_file_name(shell)  # type: ignore[arg-type]
    c = f"{h}/.openclaw/completions/{cache}"
    assert result.code == 0, result.err
    assert (home / profile).read_text() == f"# OpenClaw Completion\n{line.format(c=c)}\n"
    if reload is not None:
        assert result.err.endswith(f"Completion installed. Restart your shell or run: {reload.format(h=h)}\n")


def test_a_user_managed_home_hook_is_kept_and_no_block_is_added() -> None:
    hook = (
        '[[ -f "${HOME}/.openclaw/completions/openclaw.bash" ]] && source "${HOME}/.openclaw/completions/openclaw.bash"'
    )
    content = f"a\n{hook}\n"
    update = rules.update_profile(content, "bash", "/h/.openclaw/completions/openclaw.bash", "/h")
    assert (update.content, update.changed, update.had_existing) == (content, False, True)


def test_an_older_cache_location_is_replaced() -> None:
    old_cache = "/old/state/completions/openclaw.zsh"
    old = f"# OpenClaw Completion\n[ -f '{old_cache}' ] && source '{old_cache}'\n"
    update = rules.update_profile(f"a\n{old}", "zsh", "/h/.openclaw/completions/openclaw.zsh", "/h")
    assert update.content == (
        "a\n\n# OpenClaw Completion\n"
        "[ -f '/h/.openclaw/completions/openclaw.zsh' ] && source '/h/.openclaw/completions/openclaw.zsh'\n"
    )
    assert update.had_existing


def test_reload_hints_quote_unusual_paths() -> None:
    assert rules.reload_command("bash", "~/my dir/.bashrc") == "source ~/'my dir/.bashrc'"
    assert rules.reload_command("fish", "/it's/config.fish") == "source '/it\\'s/config.fish'"
    assert rules.reload_command("powershell", "/a'b") == ". '/a''b'"


# ------------------------------------------------------------------------------------------ server names


def test_list_servers_prints_the_configured_names_in_order(home: Path, tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json"
    config.write_text(
        json.dumps({"mcp": {"servers": {"zeta": {"command": "z"}, "alpha": {"url": "https://a.example/mcp"}}}})
    )
    env = env_for(home, OPENCLAW_CONFIG_PATH=str(config), OPENCLAW_STATE_DIR=str(tmp_path / "state"))
    result = run(["--list-servers"], env)
    assert (result.code, result.out, result.err) == (0, "alpha\nzeta\n", "")


@pytest.mark.parametrize("text", [None, "{not json", '{"mcp": {"servers": {"x": 5}}}', "[]"])
def test_list_servers_prints_nothing_for_a_missing_or_broken_config(
    home: Path, tmp_path: Path, text: str | None
) -> None:
    config = tmp_path / "openclaw.json"
    if text is not None:
        config.write_text(text)
    env = env_for(home, OPENCLAW_CONFIG_PATH=str(config), OPENCLAW_STATE_DIR=str(tmp_path / "state"))
    result = run(["--list-servers"], env)
    assert (result.code, result.err) == (0, "")
    assert result.out in ("", "x\n")
