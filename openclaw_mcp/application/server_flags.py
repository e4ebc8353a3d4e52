"""The flags of ``openclaw mcp add`` and ``configure`` and the server objects they produce (spec cli-registry
§3.6, §3.8), and the per-key ``toolFilter`` merge of ``tools``/``configure``.

:class:`AddRequest` and :class:`ConfigureRequest` are the one list of those flags' values: the CLI's typed options
of ``add`` and ``configure`` extend them (``entrypoints.cli.options``; field names are the flags' keys in
``entrypoints.cli.command_table``), so a parsed command is passed to the use case as it is. They are ``Record`` s
(no dataclass code generation at start-up); the server-building functions run only for ``add``/``configure``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.domain.flag_values import (
    ValueProblem,
    parse_approval,
    parse_auth,
    parse_csv,
    parse_key_values,
    parse_seconds,
    parse_ssl_verify,
    trimmed_or_none,
)
from openclaw_mcp.domain.record import Record

__all__ = [
    "AddRequest",
    "ConfigureRequest",
    "apply_configure",
    "build_added_server",
    "merge_tool_filter",
    "value_or_command_error",
]


class ConfigureRequest(Record):
    """The flags of ``openclaw mcp configure`` (raw strings; validated by the use case)."""

    enable: bool = False
    disable: bool = False
    include: str | None = None
    exclude: str | None = None
    clear_tools: bool = False
    timeout: str | None = None
    connect_timeout: str | None = None
    clear_timeouts: bool = False
    parallel: bool | None = None
    """``--parallel`` True, ``--no-parallel`` False (the last one wins), neither None."""
    approval: str | None = None
    auth: str | None = None
    clear_auth: bool = False
    oauth_scope: str | None = None
    oauth_redirect_url: str | None = None
    oauth_client_metadata_url: str | None = None
    ssl_verify: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    clear_tls: bool = False


class AddRequest(Record):
    """The flags of ``openclaw mcp add`` (raw strings; validated by the use case)."""

    command: str | None = None
    arg: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    cwd: str | None = None
    url: str | None = None
    transport: str | None = None
    header: tuple[str, ...] = ()
    auth: str | None = None
    oauth_scope: str | None = None
    oauth_redirect_url: str | None = None
    oauth_client_metadata_url: str | None = None
    include: str | None = None
    exclude: str | None = None
    timeout: str | None = None
    connect_timeout: str | None = None
    parallel: bool = False
    approval: str | None = None
    disabled: bool = False
    ssl_verify: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    probe: bool = True


def build_added_server(request: AddRequest) -> dict[str, Any]:
    """The server object ``add`` saves, from its flags (spec cli-registry §3.6 steps 1–4)."""
    command, url = trimmed_or_none(request.command), trimmed_or_none(request.url)
    if command is not None and url is not None:
        raise CommandError("Specify either --command for stdio or --url for HTTP, not both.")
    if command is None and url is None:
        raise CommandError("Specify --command for stdio or --url for HTTP.")
    server: dict[str, Any] = {}
    if command is not None:
        server["command"] = command
        if request.arg:
            server["args"] = list(request.arg)
        env = value_or_command_error(lambda: parse_key_values(request.env, "--env"))
        if env is not None:
            server["env"] = env
        cwd = trimmed_or_none(request.cwd)
        if cwd is not None:
            server["cwd"] = cwd
    else:
        server["url"] = url
        transport = trimmed_or_none(request.transport)
        if transport is not None:
            server["transport"] = transport
        headers = value_or_command_error(lambda: parse_key_values(request.header, "--header"))
        if headers is not None:
            server["headers"] = headers
        auth = value_or_command_error(lambda: parse_auth(request.auth))
        if auth is not None:
            server["auth"] = auth
        oauth = _oauth_flags(request.oauth_scope, request.oauth_redirect_url, request.oauth_client_metadata_url)
        if oauth:
            server["oauth"] = oauth
        ssl_verify = value_or_command_error(lambda: parse_ssl_verify(request.ssl_verify))
        if ssl_verify is not None:
            server["sslVerify"] = ssl_verify
        for key, value in (("clientCert", request.client_cert), ("clientKey", request.client_key)):
            text = trimmed_or_none(value)
            if text is not None:
                server[key] = text
    if request.disabled:
        server["enabled"] = False
    if request.parallel:
        server["supportsParallelToolCalls"] = True
    approval = value_or_command_error(lambda: parse_approval(request.approval))
    if approval is not None:
        server["codex"] = {"defaultToolsApprovalMode": approval}
    timeout = value_or_command_error(lambda: parse_seconds(request.timeout, "--timeout"))
    if timeout is not None:
        server["requestTimeoutMs"] = timeout
    connect = value_or_command_error(lambda: parse_seconds(request.connect_timeout, "--connect-timeout"))
    if connect is not None:
        server["connectionTimeoutMs"] = connect
    includes, excludes = parse_csv(request.include), parse_csv(request.exclude)
    if includes is not None or excludes is not None:
        server["toolFilter"] = {
            **({"include": includes} if includes is not None else {}),
            **({"exclude": excludes} if excludes is not None else {}),
        }
    return server


def _oauth_flags(scope: str | None, redirect: str | None, metadata: str | None) -> dict[str, str]:
    result: dict[str, str] = {}
    for key, value in (("scope", scope), ("redirectUrl", redirect), ("clientMetadataUrl", metadata)):
        text = trimmed_or_none(value)
        if text is not None:
            result[key] = text
    return result


def value_or_command_error(fn: Callable[[], Any]) -> Any:
    """``fn()``, with a flag value problem raised as the command's error line."""
    try:
        return fn()
    except ValueProblem as exc:
        raise CommandError(str(exc)) from exc


def merge_tool_filter(server: dict[str, Any], includes: list[str] | None, excludes: list[str] | None) -> None:
    """Per-key merge into the existing ``toolFilter`` (a non-object one is replaced)."""
    current = server.get("toolFilter")
    merged = dict(current) if isinstance(current, dict) else {}
    if includes is not None:
        merged["include"] = includes
    if excludes is not None:
        merged["exclude"] = excludes
    server["toolFilter"] = merged


def apply_configure(server: dict[str, Any], request: ConfigureRequest) -> dict[str, Any]:
    if request.enable:
        server.pop("enabled", None)
    if request.disable:
        server["enabled"] = False
    if request.clear_tools:
        server.pop("toolFilter", None)
    else:
        includes, excludes = parse_csv(request.include), parse_csv(request.exclude)
        if includes is not None or excludes is not None:
            merge_tool_filter(server, includes, excludes)
    if request.clear_timeouts:
        server.pop("requestTimeoutMs", None)
        server.pop("connectionTimeoutMs", None)
    timeout = value_or_command_error(lambda: parse_seconds(request.timeout, "--timeout"))
    if timeout is not None:
        server["requestTimeoutMs"] = timeout
    connect = value_or_command_error(lambda: parse_seconds(request.connect_timeout, "--connect-timeout"))
    if connect is not None:
        server["connectionTimeoutMs"] = connect
    if request.parallel is True:
        server["supportsParallelToolCalls"] = True
    elif request.parallel is False:
        server.pop("supportsParallelToolCalls", None)
        server.pop("supports_parallel_tool_calls", None)
    approval = value_or_command_error(lambda: parse_approval(request.approval))
    if approval is not None:
        codex = server.get("codex")
        server["codex"] = {**(codex if isinstance(codex, dict) else {}), "defaultToolsApprovalMode": approval}
    if request.clear_auth:
        server.pop("auth", None)
        server.pop("oauth", None)
    auth = value_or_command_error(lambda: parse_auth(request.auth))
    if auth is not None:
        server["auth"] = auth
    oauth = _oauth_flags(request.oauth_scope, request.oauth_redirect_url, request.oauth_client_metadata_url)
    if oauth:
        existing = server.get("oauth")
        server["oauth"] = {**(existing if isinstance(existing, dict) else {}), **oauth}
    if request.clear_tls:
        for key in ("sslVerify", "ssl_verify", "clientCert", "client_cert", "clientKey", "client_key"):
            server.pop(key, None)
    ssl_verify = value_or_command_error(lambda: parse_ssl_verify(request.ssl_verify))
    if ssl_verify is not None:
        server["sslVerify"] = ssl_verify
    cert, client_key = trimmed_or_none(request.client_cert), trimmed_or_none(request.client_key)
    if cert is not None:
        server["clientCert"] = cert
    if client_key is not None:
        server["clientKey"] = client_key
    return server
