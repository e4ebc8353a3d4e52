"""The declarative table of ``openclaw mcp`` subcommands: names, arguments, options, help texts.

Descriptions and flag spellings are the 2026.9.6 ones (spec cli-registry §3.1–§3.13, serve-bridge §3.1).
``entrypoints.cli.argv`` parses and renders help from this table; nothing here executes anything.
"""

from __future__ import annotations

from typing import Literal

from openclaw_mcp.domain.record import Record

__all__ = [
    "COMMANDS",
    "GROUP_DESCRIPTION",
    "Argument",
    "Command",
    "Option",
    "OptionKind",
    "find_command",
]

GROUP_DESCRIPTION = "Manage OpenClaw mcp.servers config and channel bridge"

OptionKind = Literal["flag", "negate", "value", "repeat"]
"""``flag``: boolean ``--x`` (sets True); ``negate``: boolean ``--no-x`` (sets False on key ``x``);
``value``: ``--x <v>`` (last occurrence wins); ``repeat``: ``--x <v>`` collected in order."""


class Option(Record):
    """One commander option. ``flags`` is written as commander shows it (``-v, --verbose``,
    ``--command <command>``, ``--no-probe``). ``help_default`` is the text commander appends as
    ``(default: …)`` in help (``false``, ``[]``, ``"auto"``), or None. ``default`` is the parsed value
    when the option is absent (None: derived from ``kind``, see ``argv``)."""

    flags: str
    description: str
    kind: OptionKind = "flag"
    help_default: str | None = None
    default: str | None = None

    @property
    def long(self) -> str:
        """``--connect-timeout`` for ``--connect-timeout <seconds>``."""
        for part in self.flags.replace(",", " ").split():
            if part.startswith("--"):
                return part
        raise ValueError(f"option without a long flag: {self.flags}")

    @property
    def short(self) -> str | None:
        """``-v`` for ``-v, --verbose``; None when there is no short flag."""
        first = self.flags.replace(",", " ").split()[0]
        return first if first.startswith("-") and not first.startswith("--") else None

    @property
    def takes_value(self) -> bool:
        return self.kind in ("value", "repeat")

    @property
    def key(self) -> str:
        """The ``Parsed.options`` key: snake_case of the long name, ``no-`` dropped for negations
        (``--connect-timeout`` → ``connect_timeout``, ``--no-probe`` → ``probe``)."""
        name = self.long[2:]
        if self.kind == "negate" and name.startswith("no-"):
            name = name[3:]
        return name.replace("-", "_")

    @property
    def sort_key(self) -> str:
        """Commander's ``sortOptions`` key: the short flag without ``-`` if any, else the long name."""
        short = self.short
        return short[1:] if short is not None else self.long[2:]


class Argument(Record):
    name: str
    required: bool
    description: str
    variadic: bool = False
    """Takes every remaining operand (the last argument only; parsed as a list)."""

    @property
    def usage(self) -> str:
        name = f"{self.name}..." if self.variadic else self.name
        return f"<{name}>" if self.required else f"[{name}]"


class Command(Record):
    name: str
    summary: str
    arguments: tuple[Argument, ...] = ()
    options: tuple[Option, ...] = ()
    hidden: bool = False
    """Not listed in the group help or the unknown-command suggestions (commands 2026.9.6 does not have)."""

    def option_for_flag(self, flag: str) -> Option | None:
        """The option whose short or long flag is exactly ``flag`` (commander ``_findOption``)."""
        for option in self.options:
            if flag == option.long or flag == option.short:
                return option
        return None


_NAME = Argument("name", True, "MCP server name")
_OPTIONAL_NAME = Argument("name", False, "MCP server name")
_JSON = Option("--json", "Print JSON")
_INCLUDE = Option("--include <csv>", "Comma-separated MCP tool names or '*' globs to expose", "value")
_EXCLUDE = Option("--exclude <csv>", "Comma-separated MCP tool names or '*' globs to hide", "value")
_TIMEOUT = Option("--timeout <seconds>", "Per-request timeout in seconds", "value")
_CONNECT_TIMEOUT = Option("--connect-timeout <seconds>", "Connection timeout in seconds", "value")
_PARALLEL = Option("--parallel", "Mark this server safe for concurrent tool calls")
_APPROVAL = Option("--approval <mode>", "Codex MCP tool approval mode: auto, prompt, or approve", "value")
_AUTH = Option("--auth <mode>", "HTTP auth mode: oauth", "value")
_OAUTH_SCOPE = Option("--oauth-scope <scope>", "OAuth scope", "value")
_OAUTH_REDIRECT_URL = Option("--oauth-redirect-url <url>", "OAuth redirect URL", "value")
_OAUTH_CLIENT_METADATA_URL = Option("--oauth-client-metadata-url <url>", "OAuth client metadata URL", "value")
_SSL_VERIFY = Option("--ssl-verify <boolean>", "Verify HTTPS certificates: true or false", "value")
_CLIENT_CERT = Option("--client-cert <path>", "HTTP mutual TLS client certificate path", "value")
_CLIENT_KEY = Option("--client-key <path>", "HTTP mutual TLS client key path", "value")
_FALSE = "false"

# Sorted by name, as commander's sortSubcommands lists them in the group help. Options keep the
# registration order of 2026.9.6 (help sorts them, §3.0.4).
COMMANDS: tuple[Command, ...] = (
    Command(
        "add",
        "Add one MCP server from flags and probe it before saving",
        (_NAME,),
        (
            Option("--command <command>", "Stdio command to spawn", "value"),
            Option("--arg <value>", "Repeatable stdio argument", "repeat", "[]"),
            Option("--env <key=value>", "Repeatable stdio environment entry", "repeat", "[]"),
            Option("--cwd <path>", "Working directory for stdio server", "value"),
            Option("--url <url>", "HTTP MCP server URL", "value"),
            Option("--transport <type>", "HTTP transport: streamable-http or sse", "value"),
            Option("--header <key=value>", "Repeatable HTTP header", "repeat", "[]"),
            _AUTH,
            _OAUTH_SCOPE,
            _OAUTH_REDIRECT_URL,
            _OAUTH_CLIENT_METADATA_URL,
            _INCLUDE,
            _EXCLUDE,
            _TIMEOUT,
            _CONNECT_TIMEOUT,
            _PARALLEL,
            _APPROVAL,
            Option("--disabled", "Save the server disabled", "flag", _FALSE),
            _SSL_VERIFY,
            _CLIENT_CERT,
            _CLIENT_KEY,
            Option("--no-probe", "Save without connecting first", "negate"),
        ),
    ),
    Command(
        "audit",
        "List the audit trail of tool calls, or verify its hash chain",
        (),
        (
            Option("--since <time>", "Only records at or after this time (ISO 8601, or an age: 30m, 12h, 7d)", "value"),
            Option("--server <name>", "Only records of this MCP server", "value"),
            Option("--tool <name>", "Only records of this tool", "value"),
            Option("--limit <n>", "Show at most this many (the newest) records", "value", '"50"', "50"),
            Option("--verify", "Check the hash chain and name the first broken record", "flag", _FALSE),
            _JSON,
        ),
        hidden=True,
    ),
    Command(
        "configure",
        "Update MCP server operator controls without replacing the server",
        (_NAME,),
        (
            Option("--enable", "Enable this saved server", "flag", _FALSE),
            Option("--disable", "Disable this saved server", "flag", _FALSE),
            _INCLUDE,
            _EXCLUDE,
            Option("--clear-tools", "Clear this server's MCP tool filter", "flag", _FALSE),
            _TIMEOUT,
            _CONNECT_TIMEOUT,
            Option("--clear-timeouts", "Clear request and connection timeout overrides", "flag", _FALSE),
            _PARALLEL,
            Option("--no-parallel", "Clear the concurrent tool-call marker", "negate"),
            _APPROVAL,
            _AUTH,
            Option("--clear-auth", "Clear auth and OAuth metadata", "flag", _FALSE),
            _OAUTH_SCOPE,
            _OAUTH_REDIRECT_URL,
            _OAUTH_CLIENT_METADATA_URL,
            _SSL_VERIFY,
            _CLIENT_CERT,
            _CLIENT_KEY,
            Option("--clear-tls", "Clear TLS verification and mTLS overrides", "flag", _FALSE),
            Option("--probe", "Probe the updated server before saving", "flag", _FALSE),
        ),
    ),
    Command(
        "doctor",
        "Check configured MCP servers for static setup problems",
        (_OPTIONAL_NAME,),
        (Option("--probe", "Also connect to each checked server", "flag", _FALSE), _JSON),
    ),
    Command(
        "export",
        "Write mcp.servers into another MCP client's config file",
        (),
        (
            Option("--format <format>", "Target client: claude, codex, gemini, cursor, or vscode", "value"),
            Option("--agent <id>", "Only servers allowed for this agent by codex.agents", "value"),
            Option("--output <file>", "File to merge into (default: the client's own; - prints it)", "value"),
            Option(
                "--include-secrets",
                "Write env, header, URL and OAuth secrets literally (file mode 0600)",
                "flag",
                _FALSE,
            ),
            _JSON,
        ),
        hidden=True,
    ),
    Command(
        "import",
        "Import MCP servers from another client's config into mcp.servers",
        (Argument("file", False, "Config file to read (default: the client's own files)"),),
        (
            Option(
                "--from <client>",
                "Source client: claude, claude-desktop, codex, cursor, vscode, gemini, or hermes",
                "value",
            ),
            Option("--dry-run", "Print what would be imported without writing", "flag", _FALSE),
            Option("--overwrite", "Replace servers that already exist", "flag", _FALSE),
            _JSON,
        ),
        hidden=True,
    ),
    Command("list", "List OpenClaw-managed MCP servers from mcp.servers", (), (_JSON,)),
    Command(
        "login",
        "Authorize an OAuth MCP server",
        (_NAME,),
        (Option("--code <code>", "Authorization code from the OAuth redirect", "value"),),
    ),
    Command("logout", "Clear stored OAuth credentials for an MCP server", (_NAME,)),
    Command(
        "pin",
        "Record the tools of MCP servers so changed or new tools are held until reviewed",
        (_OPTIONAL_NAME,),
        (Option("--all", "Pin every enabled server", "flag", _FALSE), _JSON),
        hidden=True,
    ),
    Command(
        "probe",
        "Connect to configured MCP servers and list available capabilities",
        (_OPTIONAL_NAME,),
        (_JSON, Option("--timings", "Also show connect time, counts and error class per server")),
    ),
    Command("reload", "Dispose cached MCP runtimes so new config is used on the next turn"),
    Command(
        "review",
        "Show what changed in a pinned MCP server's tools and accept it",
        (_NAME, Argument("tools", False, "Only these tools (with --accept: accept only these)", variadic=True)),
        (Option("--accept", "Accept the changes: update the pins", "flag", _FALSE), _JSON),
        hidden=True,
    ),
    Command(
        "serve",
        "Expose OpenClaw channels over MCP stdio",
        (),
        (
            Option(
                "--url <url>",
                "Gateway WebSocket URL (defaults to gateway.remote.url when configured)",
                "value",
            ),
            Option("--token <token>", "Gateway token (if required)", "value"),
            Option("--token-file <path>", "Read gateway token from file", "value"),
            Option("--password <password>", "Gateway password (if required)", "value"),
            Option("--password-file <path>", "Read gateway password from file", "value"),
            Option(
                "--claude-channel-mode <mode>",
                "Claude channel notification mode: auto, on, or off",
                "value",
                '"auto"',
                "auto",
            ),
            Option("-v, --verbose", "Verbose logging to stderr", "flag", _FALSE),
        ),
    ),
    Command(
        "set",
        "Set one OpenClaw-managed MCP server from a JSON object",
        (
            _NAME,
            Argument("value", True, 'JSON object, for example {"command":"uvx","args":["context7-mcp"]}'),
        ),
    ),
    Command(
        "show",
        "Show one OpenClaw-managed MCP server or the full mcp.servers config",
        (_OPTIONAL_NAME,),
        (_JSON,),
    ),
    Command(
        "status",
        "Show configured MCP server transport status without connecting",
        (),
        (Option("-v, --verbose", "Show transport, auth, timeout, and filter details", "flag", _FALSE), _JSON),
    ),
    Command(
        "tools",
        "Update per-server MCP tool include/exclude filters",
        (_NAME,),
        (_INCLUDE, _EXCLUDE, Option("--clear", "Clear this server's MCP tool filter", "flag", _FALSE)),
    ),
    Command(
        "ui",
        "Open the MCP settings page in a browser (local, loopback only)",
        (),
        (
            Option("--port <port>", "Port to listen on (0: a free port)", "value", '"0"', "0"),
            Option("--no-open", "Do not open the page in the default browser", "negate"),
            Option("--print-url", "Print only the page URL on stdout", "flag", _FALSE),
            Option("--apps-port <port>", "Port of the MCP Apps sandbox origin allowed in frames", "value"),
        ),
        hidden=True,
    ),
    Command("unset", "Remove one OpenClaw-managed MCP server", (_NAME,)),
)

_BY_NAME = {command.name: command for command in COMMANDS}


def find_command(name: str) -> Command | None:
    """The subcommand called exactly ``name`` (no aliases exist)."""
    return _BY_NAME.get(name)
