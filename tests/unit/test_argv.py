"""The ``openclaw mcp`` argument parser and help (spec cli-registry §3.0.1–§3.0.4, D3).

Every expected text below was observed on OpenClaw 2026.9.6 (``node openclaw.mjs mcp …``, non-TTY).
"""

from __future__ import annotations

import json

import pytest

from openclaw_mcp.entrypoints.cli.argv import HelpRequest, Parsed, UsageError, json_mode, parse
from openclaw_mcp.entrypoints.cli.command_table import COMMANDS, GROUP_DESCRIPTION, find_command
from openclaw_mcp.entrypoints.cli.help_text import render_command_help, render_group_help, render_help

DOCS = "Docs: https://docs.openclaw.ai/cli"
GROUP_TRY = "Try: openclaw mcp --help"


def _usage(argv: list[str]) -> UsageError:
    with pytest.raises(UsageError) as caught:
        parse(argv)
    return caught.value


def _parsed(argv: list[str]) -> Parsed:
    result = parse(argv)
    assert isinstance(result, Parsed)
    return result


# ------------------------------------------------------------------------------------------ usage errors

USAGE_CASES: list[tuple[list[str], str, bool]] = [
    # (argv after `mcp`, stderr text without the final newline, JSON envelope on stdout)
    (["set"], 'Missing required argument "name".\nTry: openclaw mcp set --help', False),
    (["set", "onlyname"], 'Missing required argument "value".\nTry: openclaw mcp set --help', False),
    (["add"], 'Missing required argument "name".\nTry: openclaw mcp add --help', False),
    (["unset"], 'Missing required argument "name".\nTry: openclaw mcp unset --help', False),
    (["--", "set", "a"], 'Missing required argument "value".\nTry: openclaw mcp set --help', False),
    (
        ["list", "--bogus"],
        'OpenClaw does not recognize option "--bogus".\nTry: openclaw mcp list --help',
        False,
    ),
    (
        ["list", "--json", "--bogus"],
        'OpenClaw does not recognize option "--bogus".\nTry: openclaw mcp list --help',
        True,
    ),
    (
        ["list", "--json=1"],
        'OpenClaw does not recognize option "--json=1".\nTry: openclaw mcp list --help',
        True,
    ),
    (
        ["list", "--json="],
        'OpenClaw does not recognize option "--json=".\nTry: openclaw mcp list --help',
        True,
    ),
    (["list", "-vh"], 'OpenClaw does not recognize option "-vh".\nTry: openclaw mcp list --help', False),
    (["list", "-xy"], 'OpenClaw does not recognize option "-xy".\nTry: openclaw mcp list --help', False),
    (["list", "--he"], 'OpenClaw does not recognize option "--he".\nTry: openclaw mcp list --help', False),
    (
        ["list", "--help=1"],
        'OpenClaw does not recognize option "--help=1".\nTry: openclaw mcp list --help',
        False,
    ),
    (
        ["list", "--JSON"],
        'OpenClaw does not recognize option "--JSON".\nTry: openclaw mcp list --help',
        False,
    ),
    (
        ["list", "--verbose"],
        'OpenClaw does not recognize option "--verbose".\nTry: openclaw mcp list --help',
        False,
    ),
    (["list", "--a'b"], 'OpenClaw does not recognize option "--a".\nTry: openclaw mcp list --help', False),
    (
        ["list", "--js\non"],
        "OpenClaw could not parse this command: unknown option '--js\non'\n(Did you mean --json?)\n"
        "Try: openclaw mcp list --help",
        False,
    ),
    (["status", "-hv"], 'OpenClaw does not recognize option "-hv".\nTry: openclaw mcp status --help', False),
    (["status", "-vx"], 'OpenClaw does not recognize option "-x".\nTry: openclaw mcp status --help', False),
    (["status", "-xv"], 'OpenClaw does not recognize option "-xv".\nTry: openclaw mcp status --help', False),
    (["status", "-v=1"], 'OpenClaw does not recognize option "-=1".\nTry: openclaw mcp status --help', False),
    (
        ["status", "--verbose=1"],
        'OpenClaw does not recognize option "--verbose=1".\nTry: openclaw mcp status --help',
        False,
    ),
    (["set", "--json"], 'OpenClaw does not recognize option "--json".\nTry: openclaw mcp set --help', True),
    (
        ["set", "a", "--bogus"],
        'OpenClaw does not recognize option "--bogus".\nTry: openclaw mcp set --help',
        False,
    ),
    (
        ["set", "--x", "--json"],
        'OpenClaw does not recognize option "--x".\nTry: openclaw mcp set --help',
        True,
    ),
    (
        ["reload", "--json"],
        'OpenClaw does not recognize option "--json".\nTry: openclaw mcp reload --help',
        True,
    ),
    (
        ["add", "x", "--probe"],
        'OpenClaw does not recognize option "--probe".\nTry: openclaw mcp add --help',
        False,
    ),
    (
        ["add", "x", "--parallel=1"],
        'OpenClaw does not recognize option "--parallel=1".\nTry: openclaw mcp add --help',
        False,
    ),
    (
        ["add", "x", "--command", "c", "--json"],
        'OpenClaw does not recognize option "--json".\nTry: openclaw mcp add --help',
        True,
    ),
    (
        ["add", "x", "--arg", "--json", "--bogus"],
        'OpenClaw does not recognize option "--bogus".\nTry: openclaw mcp add --help',
        False,
    ),
    (
        ["add", "x", "--cwd", "--json", "--oops"],
        'OpenClaw does not recognize option "--oops".\nTry: openclaw mcp add --help',
        False,
    ),
    (
        ["add", "x", "--arg=--json", "--bogus"],
        'OpenClaw does not recognize option "--bogus".\nTry: openclaw mcp add --help',
        False,
    ),
    (
        ["add", "x", "--command", "--", "--dev"],
        'OpenClaw does not recognize option "--dev".\nTry: openclaw mcp add --help',
        False,
    ),
    (
        ["configure", "x", "--no-parallel=1"],
        'OpenClaw does not recognize option "--no-parallel=1".\nTry: openclaw mcp configure --help',
        False,
    ),
    (
        ["configure", "x", "--parallel", "--no-parallel", "--json"],
        'OpenClaw does not recognize option "--json".\nTry: openclaw mcp configure --help',
        True,
    ),
    (
        ["tools", "x", "--clear-tools"],
        'OpenClaw does not recognize option "--clear-tools".\nTry: openclaw mcp tools --help',
        False,
    ),
    (["serve", "-vx"], 'OpenClaw does not recognize option "-x".\nTry: openclaw mcp serve --help', False),
    (
        ["serve", "--bogus", "--json"],
        'OpenClaw does not recognize option "--bogus".\nTry: openclaw mcp serve --help',
        True,
    ),
    (["show", "-1E5"], 'OpenClaw does not recognize option "-1E5".\nTry: openclaw mcp show --help', False),
    (
        ["show", "-1.", "--json"],
        'OpenClaw does not recognize option "-1.".\nTry: openclaw mcp show --help',
        True,
    ),
    (["list", "extra"], "Too many arguments for this command.\nTry: openclaw mcp list --help", False),
    (
        ["list", "extra", "--json"],
        "Too many arguments for this command.\nTry: openclaw mcp list --help",
        True,
    ),
    (["list", "--", "--bogus"], "Too many arguments for this command.\nTry: openclaw mcp list --help", False),
    (["list", "--", "-h"], "Too many arguments for this command.\nTry: openclaw mcp list --help", False),
    (["list", "-5"], "Too many arguments for this command.\nTry: openclaw mcp list --help", False),
    (["list", "--json", "-"], "Too many arguments for this command.\nTry: openclaw mcp list --help", True),
    (["show", "a", "b"], "Too many arguments for this command.\nTry: openclaw mcp show --help", False),
    (
        ["set", "a", "b", "--", "c"],
        "Too many arguments for this command.\nTry: openclaw mcp set --help",
        False,
    ),
    (
        ["status", "-v", "x", "--json"],
        "Too many arguments for this command.\nTry: openclaw mcp status --help",
        True,
    ),
    (
        ["add", "x", "--no-probe", "--command", "c", "--", "--url"],
        "Too many arguments for this command.\nTry: openclaw mcp add --help",
        False,
    ),
    (["--", "list", "extra"], "Too many arguments for this command.\nTry: openclaw mcp list --help", False),
    (["-"], f"Too many arguments for this command.\n{GROUP_TRY}", False),
    (["--", "-h"], f"Too many arguments for this command.\n{GROUP_TRY}", False),
    (
        ["add", "x", "--command"],
        "OpenClaw could not parse this command: option '--command <command>' argument missing\n"
        "Try: openclaw mcp add --help",
        False,
    ),
    (
        ["add", "x", "--help", "--command"],
        "OpenClaw could not parse this command: option '--command <command>' argument missing\n"
        "Try: openclaw mcp add --help",
        False,
    ),
    (
        ["add", "x", "--env"],
        "OpenClaw could not parse this command: option '--env <key=value>' argument missing\n"
        "Try: openclaw mcp add --help",
        False,
    ),
    (
        ["login", "x", "--code"],
        "OpenClaw could not parse this command: option '--code <code>' argument missing\n"
        "Try: openclaw mcp login --help",
        False,
    ),
    (
        ["serve", "--claude-channel-mode"],
        "OpenClaw could not parse this command: option '--claude-channel-mode <mode>' argument missing\n"
        "Try: openclaw mcp serve --help",
        False,
    ),
    (["--bogus"], f'OpenClaw does not recognize option "--bogus".\n{GROUP_TRY}', False),
    (["--json"], f'OpenClaw does not recognize option "--json".\n{GROUP_TRY}', True),
    (["-5"], f'OpenClaw does not recognize option "-5".\n{GROUP_TRY}', False),
    (["frobnicate"], f'OpenClaw mcp has no command "frobnicate".\n{GROUP_TRY}\n{DOCS}', False),
    (["frobnicate", "--help"], f'OpenClaw mcp has no command "frobnicate".\n{GROUP_TRY}\n{DOCS}', False),
    (["frobnicate", "--json"], f'OpenClaw mcp has no command "frobnicate".\n{GROUP_TRY}\n{DOCS}', True),
    (
        ["frobnicate", "--", "--json"],
        f'OpenClaw mcp has no command "frobnicate".\n{GROUP_TRY}\n{DOCS}',
        False,
    ),
    (
        ["lst"],
        f'OpenClaw mcp has no command "lst".\nDid you mean this?\n  openclaw mcp list\n{GROUP_TRY}\n{DOCS}',
        False,
    ),
    (
        ["Lst"],
        f'OpenClaw mcp has no command "Lst".\nDid you mean this?\n  openclaw mcp list\n{GROUP_TRY}\n{DOCS}',
        False,
    ),
    (["LIST"], f'OpenClaw mcp has no command "LIST".\n{GROUP_TRY}\n{DOCS}', False),
    (
        ["st"],
        f'OpenClaw mcp has no command "st".\nDid you mean this?\n  openclaw mcp set\n{GROUP_TRY}\n{DOCS}',
        False,
    ),
    (["s"], f'OpenClaw mcp has no command "s".\n{GROUP_TRY}\n{DOCS}', False),
    (["log"], f'OpenClaw mcp has no command "log".\n{GROUP_TRY}\n{DOCS}', False),
    (
        ["logou"],
        f'OpenClaw mcp has no command "logou".\nDid you mean this?\n'
        "  openclaw mcp logout\n  openclaw mcp login\n"
        f"{GROUP_TRY}\n{DOCS}",
        False,
    ),
    (
        ["  lst  "],
        f'OpenClaw mcp has no command "  lst  ".\nDid you mean this?\n  openclaw mcp list\n{GROUP_TRY}\n{DOCS}',
        False,
    ),
    (
        ["confgure"],
        f'OpenClaw mcp has no command "confgure".\nDid you mean this?\n  openclaw mcp configure\n{GROUP_TRY}\n{DOCS}',
        False,
    ),
    (["a'b"], f'OpenClaw mcp has no command "a".\n{GROUP_TRY}\n{DOCS}', False),
    (["li\nst"], f"OpenClaw could not parse this command: unknown command 'li\nst'\n{GROUP_TRY}", False),
    ([""], f"OpenClaw could not parse this command: unknown command ''\n{GROUP_TRY}", False),
    (["", "list"], f"OpenClaw could not parse this command: unknown command ''\n{GROUP_TRY}", False),
    (["help"], f'OpenClaw mcp has no command "help".\n{GROUP_TRY}\n{DOCS}', False),
    (["help", "--help"], f'OpenClaw mcp has no command "help".\n{GROUP_TRY}\n{DOCS}', False),
    (["help", "set", "extra"], f'OpenClaw mcp has no command "help".\n{GROUP_TRY}\n{DOCS}', False),
    (["help", "set", "--json"], f'OpenClaw mcp has no command "help".\n{GROUP_TRY}\n{DOCS}', True),
    (["help", "bogus"], f'OpenClaw mcp has no command "bogus".\n{GROUP_TRY}\n{DOCS}', False),
]


@pytest.mark.parametrize(("argv", "text", "envelope"), USAGE_CASES, ids=[repr(case[0]) for case in USAGE_CASES])
def test_usage_errors_reproduce_the_reference_text_and_json_routing(argv: list[str], text: str, envelope: bool) -> None:
    error = _usage(argv)
    assert error.text == text
    assert str(error) == text
    assert error.json is envelope
    assert json_mode(argv) is envelope


def test_usage_error_names_the_rejecting_subcommand_or_the_group() -> None:
    assert _usage(["set"]).command == "set"
    assert _usage(["lst"]).command is None
    assert _usage(["--bogus"]).command is None


def test_command_hints_in_usage_errors_pass_through_the_formatter() -> None:
    def with_profile(command: str) -> str:
        return command.replace("openclaw ", "openclaw --profile p ", 1)

    with pytest.raises(UsageError) as caught:
        parse(["lst"], format_command=with_profile)
    assert caught.value.text == (
        'OpenClaw mcp has no command "lst".\nDid you mean this?\n  openclaw --profile p mcp list\n'
        f"Try: openclaw --profile p mcp --help\n{DOCS}"
    )
    with pytest.raises(UsageError) as caught:
        parse(["list", "x"], format_command=with_profile)
    assert caught.value.text == "Too many arguments for this command.\nTry: openclaw --profile p mcp list --help"


def test_usage_error_text_is_the_json_envelope_message() -> None:
    error = _usage(["lst", "--json"])
    envelope = {"ok": False, "error": {"type": "cli_error", "message": error.text}}
    assert json.dumps(envelope) == (
        '{"ok": false, "error": {"type": "cli_error", "message": "OpenClaw mcp has no command \\"lst\\".'
        '\\nDid you mean this?\\n  openclaw mcp list\\nTry: openclaw mcp --help\\nDocs: https://docs.openclaw.ai/cli"}}'
    )


# ------------------------------------------------------------------------------------------------- help

HELP_CASES: list[tuple[list[str], str | None, bool]] = [
    ([], None, False),
    (["--"], None, False),
    (["-h"], None, True),
    (["--help"], None, True),
    (["-h", "list"], None, True),
    (["--help", "set"], None, True),
    (["--bogus", "--help"], None, True),
    (["list", "--help"], "list", True),
    (["list", "--json", "-h"], "list", True),
    (["list", "extra", "--json", "-h"], "list", True),
    (["list", "--bogus", "--help"], "list", True),
    (["list", "--help", "--bogus"], "list", True),
    (["list", "--bogus", "--", "-h"], "list", True),
    (["status", "-vh"], "status", True),
    (["set", "-h"], "set", True),
    (["set", "a", "b", "--help"], "set", True),
    (["unset", "--help", "extra"], "unset", True),
    (["help", "set"], "set", True),
    (["help", "set", "--help"], "set", True),
    (["help", "list", "-h"], "list", True),
    (["help", "set", "--", "x"], "set", True),
]


@pytest.mark.parametrize(("argv", "command", "banner"), HELP_CASES, ids=[repr(case[0]) for case in HELP_CASES])
def test_help_is_requested_like_the_reference(argv: list[str], command: str | None, banner: bool) -> None:
    assert parse(argv) == HelpRequest(command, banner)
    assert json_mode(argv) is False


GROUP_HELP = """Usage: openclaw mcp [options] [command]

Manage OpenClaw mcp.servers config and channel bridge

Options:
  -h, --help  Display help for command

Commands:
  add         Add one MCP server from flags and probe it before saving
  configure   Update MCP server operator controls without replacing the server
  doctor      Check configured MCP servers for static setup problems
  list        List OpenClaw-managed MCP servers from mcp.servers
  login       Authorize an OAuth MCP server
  logout      Clear stored OAuth credentials for an MCP server
  probe       Connect to configured MCP servers and list available capabilities
  reload      Dispose cached MCP runtimes so new config is used on the next turn
  serve       Expose OpenClaw channels over MCP stdio
  set         Set one OpenClaw-managed MCP server from a JSON object
  show        Show one OpenClaw-managed MCP server or the full mcp.servers
              config
  status      Show configured MCP server transport status without connecting
  tools       Update per-server MCP tool include/exclude filters
  unset       Remove one OpenClaw-managed MCP server"""

BANNER = "\nOpenClaw 2026.9.6 (eb377ac) — All your chats, one OpenClaw.\n\n"


def test_group_help_matches_the_reference_byte_for_byte() -> None:
    assert render_group_help() == GROUP_HELP
    assert parse([]).text == GROUP_HELP  # type: ignore[union-attr]


def test_explicit_group_help_is_preceded_by_the_banner() -> None:
    assert render_help(HelpRequest(None, True)) == BANNER + GROUP_HELP


def test_banner_can_be_suppressed_and_its_commit_overridden_from_the_environment() -> None:
    request = HelpRequest("reload", True)
    assert render_help(request, {"OPENCLAW_SUPPRESS_HELP_BANNER": "1"}) == render_command_help("reload")
    assert render_help(request, {"GIT_COMMIT": " ABCDEF1234 "}).startswith("\nOpenClaw 2026.9.6 (abcdef1) — ")
    assert render_help(request, {"GIT_COMMIT": "nohex", "GIT_SHA": "1234567"}).startswith(BANNER)
    assert render_help(request, {"GIT_COMMIT": " ", "GIT_SHA": "1234567"}).startswith("\nOpenClaw 2026.9.6 (1234567)")


def test_command_help_sorts_options_and_shows_commander_defaults() -> None:
    assert render_command_help("status") == (
        "Usage: openclaw mcp status [options]\n\n"
        "Show configured MCP server transport status without connecting\n\n"
        "Options:\n"
        "  -h, --help     Display help for command\n"
        "  --json         Print JSON\n"
        "  -v, --verbose  Show transport, auth, timeout, and filter details (default:\n"
        "                 false)"
    )
    assert render_command_help("set") == (
        "Usage: openclaw mcp set [options] <name> <value>\n\n"
        "Set one OpenClaw-managed MCP server from a JSON object\n\n"
        "Arguments:\n"
        "  name        MCP server name\n"
        '  value       JSON object, for example {"command":"uvx","args":["context7-mcp"]}\n\n'
        "Options:\n"
        "  -h, --help  Display help for command"
    )
    assert render_command_help(find_command("doctor") or "doctor") == (
        "Usage: openclaw mcp doctor [options] [name]\n\n"
        "Check configured MCP servers for static setup problems\n\n"
        "Arguments:\n"
        "  name        MCP server name\n\n"
        "Options:\n"
        "  -h, --help  Display help for command\n"
        "  --json      Print JSON\n"
        "  --probe     Also connect to each checked server (default: false)"
    )


def test_add_help_wraps_descriptions_at_80_columns() -> None:
    expected = """Usage: openclaw mcp add [options] <name>

Add one MCP server from flags and probe it before saving

Arguments:
  name                               MCP server name

Options:
  --approval <mode>                  Codex MCP tool approval mode: auto, prompt,
                                     or approve
  --arg <value>                      Repeatable stdio argument (default: [])
  --auth <mode>                      HTTP auth mode: oauth
  --client-cert <path>               HTTP mutual TLS client certificate path
  --client-key <path>                HTTP mutual TLS client key path
  --command <command>                Stdio command to spawn
  --connect-timeout <seconds>        Connection timeout in seconds
  --cwd <path>                       Working directory for stdio server
  --disabled                         Save the server disabled (default: false)
  --env <key=value>                  Repeatable stdio environment entry
                                     (default: [])
  --exclude <csv>                    Comma-separated MCP tool names or '*' globs
                                     to hide
  -h, --help                         Display help for command
  --header <key=value>               Repeatable HTTP header (default: [])
  --include <csv>                    Comma-separated MCP tool names or '*' globs
                                     to expose
  --no-probe                         Save without connecting first
  --oauth-client-metadata-url <url>  OAuth client metadata URL
  --oauth-redirect-url <url>         OAuth redirect URL
  --oauth-scope <scope>              OAuth scope
  --parallel                         Mark this server safe for concurrent tool
                                     calls
  --ssl-verify <boolean>             Verify HTTPS certificates: true or false
  --timeout <seconds>                Per-request timeout in seconds
  --transport <type>                 HTTP transport: streamable-http or sse
  --url <url>                        HTTP MCP server URL"""
    assert render_command_help("add") == expected


def test_serve_help_shows_the_channel_mode_default() -> None:
    assert render_help(HelpRequest("serve", True)) == BANNER + (
        "Usage: openclaw mcp serve [options]\n\n"
        "Expose OpenClaw channels over MCP stdio\n\n"
        "Options:\n"
        "  --claude-channel-mode <mode>  Claude channel notification mode: auto, on, or\n"
        '                                off (default: "auto")\n'
        "  -h, --help                    Display help for command\n"
        "  --password <password>         Gateway password (if required)\n"
        "  --password-file <path>        Read gateway password from file\n"
        "  --token <token>               Gateway token (if required)\n"
        "  --token-file <path>           Read gateway token from file\n"
        "  --url <url>                   Gateway WebSocket URL (defaults to\n"
        "                                gateway.remote.url when configured)\n"
        "  -v, --verbose                 Verbose logging to stderr (default: false)"
    )


def test_command_table_lists_the_fourteen_subcommands_in_help_order() -> None:
    assert [command.name for command in COMMANDS if not command.hidden] == [
        "add", "configure", "doctor", "list", "login", "logout", "probe",
        "reload", "serve", "set", "show", "status", "tools", "unset",
    ]  # fmt: skip
    # ours only (export/import, the settings page, tool pins): parsed, but not in the group help nor the suggestions
    assert {"export", "import", "ui", "pin", "review"} <= {command.name for command in COMMANDS if command.hidden}
    assert GROUP_DESCRIPTION == "Manage OpenClaw mcp.servers config and channel bridge"


# ------------------------------------------------------------------------------------------ parsed values


def test_value_options_take_the_next_token_even_when_it_looks_like_an_option() -> None:
    parsed = _parsed(["add", "x", "--command", "-h", "--arg", "-y", "--arg", "--help", "--cwd", "--json"])
    assert parsed.args == {"name": "x"}
    assert parsed.options["command"] == "-h"
    assert parsed.options["arg"] == ["-y", "--help"]
    assert parsed.options["cwd"] == "--json"
    assert parsed.json_output is False
    assert json_mode(["add", "x", "--command", "--json"]) is False


def test_a_value_option_may_consume_the_double_dash() -> None:
    parsed = _parsed(["add", "x", "--command", "--", "--no-probe"])
    assert parsed.options["command"] == "--"
    assert parsed.options["probe"] is False


def test_equals_form_and_last_value_wins_and_repeatables_collect_in_order() -> None:
    parsed = _parsed(
        [
            "add",
            "x",
            "--command=c",
            "--arg=-y",
            "--env",
            "A=1",
            "--env=B=x=y",
            "--timeout",
            "1",
            "--timeout=2",
        ]
    )
    assert parsed.options["command"] == "c"
    assert parsed.options["arg"] == ["-y"]
    assert parsed.options["env"] == ["A=1", "B=x=y"]
    assert parsed.options["timeout"] == "2"
    assert _parsed(["add", "x", "--command="]).options["command"] == ""


def test_options_may_precede_positionals() -> None:
    parsed = _parsed(["set", "--", "-x", "{}"])
    assert parsed.args == {"name": "-x", "value": "{}"}
    assert _parsed(["show", "--json", "a"]).args == {"name": "a"}
    assert _parsed(["--", "show", "-5"]).args == {"name": "-5"}


def test_negative_numbers_and_a_lone_dash_are_positionals() -> None:
    assert _parsed(["set", "-1.5", "{}"]).args == {"name": "-1.5", "value": "{}"}
    assert _parsed(["set", "-.5e3", "-"]).args == {"name": "-.5e3", "value": "-"}
    assert _parsed(["show", "-5", "--json"]).args == {"name": "-5"}


def test_double_dash_ends_options() -> None:
    parsed = _parsed(["show", "--", "--json"])
    assert parsed.args == {"name": "--json"}
    assert parsed.json_output is False
    assert json_mode(["show", "--", "--json"]) is False
    assert _parsed(["show", "--json", "--", "--json"]).json_output is True


def test_absent_options_get_commander_defaults() -> None:
    assert _parsed(["add", "x"]).options == {
        "command": None, "arg": [], "env": [], "cwd": None, "url": None, "transport": None, "header": [],
        "auth": None, "oauth_scope": None, "oauth_redirect_url": None, "oauth_client_metadata_url": None,
        "include": None, "exclude": None, "timeout": None, "connect_timeout": None, "parallel": False,
        "approval": None, "disabled": False, "ssl_verify": None, "client_cert": None, "client_key": None,
        "probe": True,
    }  # fmt: skip
    assert _parsed(["serve"]).options == {
        "url": None, "token": None, "token_file": None, "password": None, "password_file": None,
        "claude_channel_mode": "auto", "verbose": False,
    }  # fmt: skip
    assert _parsed(["show"]).args == {"name": None}
    assert _parsed(["list"]).options == {"json": False}


def test_parallel_pair_is_unset_true_or_false_with_the_last_one_winning() -> None:
    assert _parsed(["configure", "x"]).options["parallel"] is None
    assert _parsed(["configure", "x", "--parallel"]).options["parallel"] is True
    assert _parsed(["configure", "x", "--no-parallel"]).options["parallel"] is False
    assert _parsed(["configure", "x", "--no-parallel", "--parallel"]).options["parallel"] is True
    assert _parsed(["configure", "x", "--parallel", "--no-parallel"]).options["parallel"] is False


def test_snake_case_keys_for_configure_flags() -> None:
    parsed = _parsed(
        ["configure", "x", "--enable", "--clear-tools", "--connect-timeout", "2.5", "--ssl-verify", "false",
         "--clear-tls", "--oauth-client-metadata-url", "https://m/x", "--probe"]
    )  # fmt: skip
    options = parsed.options
    assert options["enable"] is True and options["disable"] is False
    assert options["clear_tools"] is True and options["clear_tls"] is True and options["clear_auth"] is False
    assert options["connect_timeout"] == "2.5"
    assert options["ssl_verify"] == "false"
    assert options["oauth_client_metadata_url"] == "https://m/x"
    assert options["probe"] is True


def test_short_verbose_flags_combine_and_repeat() -> None:
    assert _parsed(["status", "-v"]).options == {"verbose": True, "json": False}
    parsed = _parsed(["status", "--json", "-vv"])
    assert parsed.options == {"verbose": True, "json": True}
    assert parsed.json_output is True
    assert json_mode(["status", "--json", "-vv"]) is True


def test_tools_include_may_be_empty_and_login_code_takes_any_token() -> None:
    assert _parsed(["tools", "x", "--include", ""]).options == {
        "include": "",
        "exclude": None,
        "clear": False,
    }
    assert _parsed(["login", "x", "--code", "--json"]).options == {"code": "--json"}


def test_parsed_commands_without_json_are_never_json_mode() -> None:
    assert json_mode(["list"]) is False
    assert json_mode(["list", "--json"]) is True
    assert json_mode(["probe", "--json", "zzz"]) is True


def test_every_command_has_an_options_dataclass_with_its_arguments_and_options() -> None:
    from openclaw_mcp.entrypoints.cli.argv import option_field
    from openclaw_mcp.entrypoints.cli.options import OPTION_TYPES

    assert set(OPTION_TYPES) == {command.name for command in COMMANDS}
    for command in COMMANDS:
        fields = list(OPTION_TYPES[command.name]._fields)
        options = [option_field(option.key) for option in command.options]
        expected = [argument.name for argument in command.arguments] + options
        assert sorted(fields) == sorted(dict.fromkeys(expected)), command.name


def test_typed_options_hold_the_parsed_values() -> None:
    from openclaw_mcp.entrypoints.cli.options import AddOptions, ConfigureOptions, ListOptions, SetOptions, ShowOptions

    added = _parsed(["add", "x", "--command", "c", "--arg", "-y", "--arg", "z", "--no-probe", "--parallel"]).typed
    assert isinstance(added, AddOptions)
    assert (added.name, added.command, added.arg, added.env, added.probe, added.parallel) == (
        "x",
        "c",
        ("-y", "z"),
        (),
        False,
        True,
    )
    assert _parsed(["list"]).typed == ListOptions(json=False)
    assert _parsed(["show", "--json"]).typed == ShowOptions(name=None, json=True)
    assert _parsed(["set", "a", "{}"]).typed == SetOptions(name="a", value="{}")
    configured = _parsed(["configure", "x", "--no-parallel", "--probe"]).typed
    assert isinstance(configured, ConfigureOptions)
    assert (configured.parallel, configured.probe, configured.enable) == (False, True, False)
    for argv in (["list", "--json"], ["status", "--json"], ["probe", "--json"], ["doctor", "--json"]):
        assert _parsed(argv).json_output
    assert not _parsed(["set", "a", "{}"]).json_output
