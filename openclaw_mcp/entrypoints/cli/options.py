"""The typed options of each ``openclaw mcp`` subcommand: one frozen dataclass per command (a ``Record``,
see ``domain.record``), built by ``entrypoints.cli.argv`` from the parsed arguments and options (field names
are the argument names and the ``Option.key`` of ``entrypoints.cli.command_table``; repeatable options become
tuples). ``add`` and ``configure`` extend the use case's request (``application.server_flags``), which lists
their flags once."""

from __future__ import annotations

from typing import TypeAlias

from openclaw_mcp.application.server_flags import AddRequest, ConfigureRequest
from openclaw_mcp.domain.record import Record

__all__ = [
    "OPTION_TYPES",
    "AddOptions",
    "AuditOptions",
    "CommandOptions",
    "ConfigureOptions",
    "DoctorOptions",
    "ExportOptions",
    "ImportOptions",
    "ListOptions",
    "LoginOptions",
    "LogoutOptions",
    "PinOptions",
    "ProbeOptions",
    "ReloadOptions",
    "ReviewOptions",
    "ServeOptions",
    "SetOptions",
    "ShowOptions",
    "StatusOptions",
    "ToolsOptions",
    "UiOptions",
    "UnsetOptions",
]


class AddOptions(AddRequest, kw_only=True):
    """``add``: the server name, then every flag (``AddRequest``, the use case's input)."""

    name: str


class AuditOptions(Record):
    since: str | None
    server: str | None
    tool: str | None
    limit: str
    verify: bool
    json: bool


class ConfigureOptions(ConfigureRequest, kw_only=True):
    """``configure``: the server name, every operator-control flag (``ConfigureRequest``), and ``--probe``."""

    name: str
    probe: bool


class DoctorOptions(Record):
    name: str | None
    probe: bool
    json: bool


class ExportOptions(Record):
    format: str | None
    agent: str | None
    output: str | None
    include_secrets: bool
    json: bool


class ImportOptions(Record):
    file: str | None
    from_: str | None
    dry_run: bool
    overwrite: bool
    json: bool


class ListOptions(Record):
    json: bool


class LoginOptions(Record):
    name: str
    code: str | None


class LogoutOptions(Record):
    name: str


class PinOptions(Record):
    """``pin <name>|--all [--json]`` (issue 35, ours only)."""

    name: str | None
    all: bool
    json: bool


class ProbeOptions(Record):
    name: str | None
    json: bool
    timings: bool
    """``--timings`` (beyond the reference): connect time, counts and error class per server."""


class ReloadOptions(Record):
    pass


class ReviewOptions(Record):
    """``review <name> [tools...] [--accept] [--json]`` (issue 35, ours only)."""

    name: str
    tools: tuple[str, ...]
    accept: bool
    json: bool


class ServeOptions(Record):
    url: str | None
    token: str | None
    token_file: str | None
    password: str | None
    password_file: str | None
    claude_channel_mode: str
    verbose: bool


class SetOptions(Record):
    name: str
    value: str


class ShowOptions(Record):
    name: str | None
    json: bool


class StatusOptions(Record):
    verbose: bool
    json: bool


class ToolsOptions(Record):
    name: str
    include: str | None
    exclude: str | None
    clear: bool


class UnsetOptions(Record):
    name: str


class UiOptions(Record):
    port: str
    open: bool
    print_url: bool
    apps_port: str | None


CommandOptions: TypeAlias = (
    AddOptions
    | AuditOptions
    | ConfigureOptions
    | DoctorOptions
    | ExportOptions
    | ImportOptions
    | ListOptions
    | LoginOptions
    | LogoutOptions
    | PinOptions
    | ProbeOptions
    | ReloadOptions
    | ReviewOptions
    | ServeOptions
    | SetOptions
    | ShowOptions
    | StatusOptions
    | ToolsOptions
    | UiOptions
    | UnsetOptions
)

OPTION_TYPES: dict[str, type[CommandOptions]] = {
    "add": AddOptions,
    "audit": AuditOptions,
    "configure": ConfigureOptions,
    "doctor": DoctorOptions,
    "export": ExportOptions,
    "import": ImportOptions,
    "list": ListOptions,
    "login": LoginOptions,
    "logout": LogoutOptions,
    "pin": PinOptions,
    "probe": ProbeOptions,
    "reload": ReloadOptions,
    "review": ReviewOptions,
    "serve": ServeOptions,
    "set": SetOptions,
    "show": ShowOptions,
    "status": StatusOptions,
    "tools": ToolsOptions,
    "ui": UiOptions,
    "unset": UnsetOptions,
}
"""The options class of each subcommand of ``entrypoints.cli.command_table.COMMANDS``."""
