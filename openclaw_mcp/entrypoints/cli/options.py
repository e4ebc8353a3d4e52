"""The typed options of each ``openclaw mcp`` subcommand: one frozen dataclass per command (a ``Record``,
see ``entrypoints.cli.record``), built by ``entrypoints.cli.argv`` from the parsed arguments and options
(field names are the argument names and the ``Option.key`` of ``entrypoints.cli.command_table``; repeatable
options become tuples)."""

from __future__ import annotations

from typing import TypeAlias

from openclaw_mcp.entrypoints.cli.record import Record

__all__ = [
    "OPTION_TYPES",
    "AddOptions",
    "CommandOptions",
    "ConfigureOptions",
    "DoctorOptions",
    "ExportOptions",
    "ImportOptions",
    "ListOptions",
    "LoginOptions",
    "LogoutOptions",
    "ProbeOptions",
    "ReloadOptions",
    "ServeOptions",
    "SetOptions",
    "ShowOptions",
    "StatusOptions",
    "ToolsOptions",
    "UiOptions",
    "UnsetOptions",
]


class AddOptions(Record):
    name: str
    command: str | None
    arg: tuple[str, ...]
    env: tuple[str, ...]
    cwd: str | None
    url: str | None
    transport: str | None
    header: tuple[str, ...]
    auth: str | None
    oauth_scope: str | None
    oauth_redirect_url: str | None
    oauth_client_metadata_url: str | None
    include: str | None
    exclude: str | None
    timeout: str | None
    connect_timeout: str | None
    parallel: bool
    approval: str | None
    disabled: bool
    ssl_verify: str | None
    client_cert: str | None
    client_key: str | None
    probe: bool


class ConfigureOptions(Record):
    name: str
    enable: bool
    disable: bool
    include: str | None
    exclude: str | None
    clear_tools: bool
    timeout: str | None
    connect_timeout: str | None
    clear_timeouts: bool
    parallel: bool | None
    """``--parallel`` True, ``--no-parallel`` False (the last one wins), neither None."""
    approval: str | None
    auth: str | None
    clear_auth: bool
    oauth_scope: str | None
    oauth_redirect_url: str | None
    oauth_client_metadata_url: str | None
    ssl_verify: str | None
    client_cert: str | None
    client_key: str | None
    clear_tls: bool
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


class ProbeOptions(Record):
    name: str | None
    json: bool
    timings: bool
    """``--timings`` (beyond the reference): connect time, counts and error class per server."""


class ReloadOptions(Record):
    pass


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
    | ConfigureOptions
    | DoctorOptions
    | ExportOptions
    | ImportOptions
    | ListOptions
    | LoginOptions
    | LogoutOptions
    | ProbeOptions
    | ReloadOptions
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
    "configure": ConfigureOptions,
    "doctor": DoctorOptions,
    "export": ExportOptions,
    "import": ImportOptions,
    "list": ListOptions,
    "login": LoginOptions,
    "logout": LogoutOptions,
    "probe": ProbeOptions,
    "reload": ReloadOptions,
    "serve": ServeOptions,
    "set": SetOptions,
    "show": ShowOptions,
    "status": StatusOptions,
    "tools": ToolsOptions,
    "ui": UiOptions,
    "unset": UnsetOptions,
}
"""The options class of each subcommand of ``entrypoints.cli.command_table.COMMANDS``."""
