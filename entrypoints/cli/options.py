"""The typed options of each ``openclaw mcp`` subcommand: one frozen dataclass per command, built by
``entrypoints.cli.argv`` from the parsed arguments and options (field names are the argument names and
the ``Option.key`` of ``entrypoints.cli.command_table``; repeatable options become tuples)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

__all__ = [
    "OPTION_TYPES",
    "AddOptions",
    "CommandOptions",
    "ConfigureOptions",
    "DoctorOptions",
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
    "UnsetOptions",
]


@dataclass(frozen=True, slots=True)
class AddOptions:
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


@dataclass(frozen=True, slots=True)
class ConfigureOptions:
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


@dataclass(frozen=True, slots=True)
class DoctorOptions:
    name: str | None
    probe: bool
    json: bool


@dataclass(frozen=True, slots=True)
class ListOptions:
    json: bool


@dataclass(frozen=True, slots=True)
class LoginOptions:
    name: str
    code: str | None


@dataclass(frozen=True, slots=True)
class LogoutOptions:
    name: str


@dataclass(frozen=True, slots=True)
class ProbeOptions:
    name: str | None
    json: bool


@dataclass(frozen=True, slots=True)
class ReloadOptions:
    pass


@dataclass(frozen=True, slots=True)
class ServeOptions:
    url: str | None
    token: str | None
    token_file: str | None
    password: str | None
    password_file: str | None
    claude_channel_mode: str
    verbose: bool


@dataclass(frozen=True, slots=True)
class SetOptions:
    name: str
    value: str


@dataclass(frozen=True, slots=True)
class ShowOptions:
    name: str | None
    json: bool


@dataclass(frozen=True, slots=True)
class StatusOptions:
    verbose: bool
    json: bool


@dataclass(frozen=True, slots=True)
class ToolsOptions:
    name: str
    include: str | None
    exclude: str | None
    clear: bool


@dataclass(frozen=True, slots=True)
class UnsetOptions:
    name: str


CommandOptions: TypeAlias = (
    AddOptions
    | ConfigureOptions
    | DoctorOptions
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
    | UnsetOptions
)

OPTION_TYPES: dict[str, type[CommandOptions]] = {
    "add": AddOptions,
    "configure": ConfigureOptions,
    "doctor": DoctorOptions,
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
    "unset": UnsetOptions,
}
"""The options class of each subcommand of ``entrypoints.cli.command_table.COMMANDS``."""
