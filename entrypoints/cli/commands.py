"""The registry subcommands: compose the use cases for one CLI process and print their results
(spec cli-registry §3)."""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from adapters.collation import UcaCollator
from adapters.filesystem.config_store import FileConfigStore
from adapters.filesystem.host_files import OsHostFiles
from adapters.filesystem.includes import include_roots
from adapters.filesystem.paths import resolve_config_path, resolve_home, resolve_state_db_path
from adapters.sqlite import SqliteOAuthStatusReader
from adapters.sqlite.server_refs import SqliteServerRefs
from application.config_service import ConfigService
from application.doctor import Doctor
from application.errors import CommandError
from application.registry import (
    AddRequest,
    CandidateProbe,
    ConfigureRequest,
    Registry,
    TransportWarnings,
    not_found_message,
)
from domain.doctor import doctor_lines
from domain.probe import probe_issue, probe_lines
from domain.status import status_lines
from entrypoints.cli.argv import Parsed
from entrypoints.cli.console import Console

__all__ = ["build_registry", "dispatch", "home_dir"]

SCOPE_NOTE = (
    "Note: this command only shows OpenClaw-managed mcp.servers entries and does not include mcporter "
    "servers from config/mcporter.json."
)


class _WallClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


def home_dir(env: Mapping[str, str]) -> str:
    return resolve_home(env)


def build_registry(env: Mapping[str, str], console: Console) -> Registry:
    """The composition root of the registry commands (plain constructors; see module docstring)."""
    store = FileConfigStore(resolve_config_path(env), include_roots=include_roots(env))
    db_path = resolve_state_db_path(env)
    lifecycle = None
    if os.path.isfile(db_path):  # spec D5: the per-server lifecycle lease only when the state db exists
        from adapters.sqlite.leases import SqliteLeaseStore

        lifecycle = SqliteLeaseStore(db_path)
    config = ConfigService(store, env, _WallClock(), console.err, SqliteServerRefs(db_path), lifecycle)
    oauth = SqliteOAuthStatusReader(db_path)
    return Registry(config, oauth, UcaCollator(), TransportWarnings(console.err), env)


Handler = Callable[[Registry, Parsed, Console], Awaitable[int]]


def _opt(parsed: Parsed, key: str) -> Any:
    return parsed.options.get(key)


async def cmd_list(registry: Registry, parsed: Parsed, console: Console) -> int:
    analysis = await registry.load()
    if _opt(parsed, "json"):
        console.json(analysis.servers)
        return 0
    if not analysis.servers:
        console.out(
            f"No OpenClaw-managed MCP servers configured in {registry.path}. Add one with openclaw mcp set "
            f'<name> \'{{"command":"uvx","args":["context7-mcp"]}}\'.\n{SCOPE_NOTE}'
        )
        return 0
    lines = [f"OpenClaw-managed MCP servers ({registry.path}):"]
    for name, principals in await registry.list_principals(analysis):
        suffix = ""
        if principals is not None:
            suffix = f" ({principals} connected {'principal' if principals == 1 else 'principals'})"
        lines.append(f"- {name}{suffix}")
    lines += ["", SCOPE_NOTE]
    console.out("\n".join(lines))
    return 0


async def cmd_show(registry: Registry, parsed: Parsed, console: Console) -> int:
    analysis = await registry.load()
    name = parsed.args.get("name")
    if name is not None:
        if name not in analysis.servers:
            raise CommandError(not_found_message(name, registry.path))
        document: Any = analysis.servers[name]
        header = f'OpenClaw-managed MCP server "{name}" ({registry.path}):'
    else:
        document = analysis.servers
        header = f"OpenClaw-managed MCP servers ({registry.path}):"
    if not _opt(parsed, "json"):
        console.out(header)
    console.json(document)
    return 0


async def cmd_status(registry: Registry, parsed: Parsed, console: Console) -> int:
    analysis = await registry.load()
    entries = await registry.status(analysis)
    if _opt(parsed, "json"):
        console.json({"path": registry.path, "servers": entries})
        return 0
    if not entries:
        console.out(f"No MCP servers configured in {registry.path}.")
        return 0
    lines = [f"MCP server status ({registry.path}):"]
    verbose = bool(_opt(parsed, "verbose"))
    for entry in entries:
        lines += status_lines(entry, verbose=verbose)
    console.out("\n".join(lines))
    return 0


async def cmd_set(registry: Registry, parsed: Parsed, console: Console) -> int:
    name = parsed.args["name"] or ""
    await registry.set_server(name, parsed.args["value"] or "")
    console.out(f'Saved MCP server "{name}" to {registry.path}.')
    return 0


async def cmd_unset(registry: Registry, parsed: Parsed, console: Console) -> int:
    name = parsed.args["name"] or ""
    await registry.unset_server(name)
    console.out(f'Removed MCP server "{name}" from {registry.path}.')
    return 0


async def cmd_tools(registry: Registry, parsed: Parsed, console: Console) -> int:
    name = parsed.args["name"] or ""
    await registry.update_tools(name, _opt(parsed, "include"), _opt(parsed, "exclude"), bool(_opt(parsed, "clear")))
    console.out(f'Updated MCP tool selection for "{name}" in {registry.path}.')
    return 0


_CONFIGURE_FIELDS = (
    "enable",
    "disable",
    "include",
    "exclude",
    "clear_tools",
    "timeout",
    "connect_timeout",
    "clear_timeouts",
    "parallel",
    "approval",
    "auth",
    "clear_auth",
    "oauth_scope",
    "oauth_redirect_url",
    "oauth_client_metadata_url",
    "ssl_verify",
    "client_cert",
    "client_key",
    "clear_tls",
)


async def cmd_configure(registry: Registry, parsed: Parsed, console: Console) -> int:
    name = parsed.args["name"] or ""
    values = {key: parsed.options[key] for key in _CONFIGURE_FIELDS if parsed.options.get(key) is not None}
    for flag in ("enable", "disable", "clear_tools", "clear_timeouts", "clear_auth", "clear_tls"):
        values[flag] = bool(values.get(flag))
    probe = candidate_probe(registry, console) if _opt(parsed, "probe") else None
    removed = await registry.configure(name, ConfigureRequest(**values), probe)
    if removed:
        console.out(f'Removed disabled MCP override for "{name}" in {registry.path}.')
    else:
        console.out(f'Updated MCP server "{name}" in {registry.path}.')
    return 0


async def cmd_doctor(registry: Registry, parsed: Parsed, console: Console) -> int:
    analysis = await registry.load()
    name = parsed.args.get("name")
    if name is not None and name not in analysis.servers:
        raise CommandError(not_found_message(name, registry.path))
    names = [name] if name is not None else registry.sorted_names(analysis.servers)
    probe = None
    if _opt(parsed, "probe"):
        from entrypoints.cli.probing import doctor_probe

        probe = doctor_probe(console, registry.env)
    doctor = Doctor(OsHostFiles(), registry.oauth, registry.warnings, registry.env, probe)
    reports = await doctor.check_all(names, analysis.servers)
    ok = all(report["ok"] for report in reports)
    if _opt(parsed, "json"):
        console.json({"path": registry.path, "ok": ok, "servers": reports})
    elif not reports:
        console.out(
            f"No MCP servers configured in {registry.path}. Add one with openclaw mcp add <name> --command <command>."
        )
    else:
        console.out("\n".join(doctor_lines(registry.path, reports)))
    if not ok:
        console.err("MCP doctor found errors.")
        return 1
    return 0


async def cmd_add(registry: Registry, parsed: Parsed, console: Console) -> int:
    name = parsed.args["name"] or ""
    o = parsed.options
    request = AddRequest(
        command=o["command"],
        args=tuple(o["arg"]),
        env=tuple(o["env"]),
        cwd=o["cwd"],
        url=o["url"],
        transport=o["transport"],
        headers=tuple(o["header"]),
        auth=o["auth"],
        oauth_scope=o["oauth_scope"],
        oauth_redirect_url=o["oauth_redirect_url"],
        oauth_client_metadata_url=o["oauth_client_metadata_url"],
        include=o["include"],
        exclude=o["exclude"],
        timeout=o["timeout"],
        connect_timeout=o["connect_timeout"],
        parallel=bool(o["parallel"]),
        approval=o["approval"],
        disabled=bool(o["disabled"]),
        ssl_verify=o["ssl_verify"],
        client_cert=o["client_cert"],
        client_key=o["client_key"],
        probe=bool(o["probe"]),
    )
    saved = await registry.add_server(name, request, candidate_probe(registry, console))
    console.out(f'Saved MCP server "{name}" to {registry.path}.')
    if saved.get("auth") == "oauth":
        console.out(f"Run openclaw mcp login {name} to authorize this MCP server.")
    return 0


def candidate_probe(registry: Registry, console: Console) -> CandidateProbe:
    from entrypoints.cli.probing import add_probe  # deferred: the client runtime is not needed otherwise

    return add_probe(registry.path, console, registry.env)


async def cmd_probe(registry: Registry, parsed: Parsed, console: Console) -> int:
    analysis = await registry.load()
    name = parsed.args.get("name")
    as_json = bool(_opt(parsed, "json"))
    if name is not None:
        if name not in analysis.servers:
            raise CommandError(not_found_message(name, registry.path))
        if analysis.servers[name].get("enabled") is False:
            raise CommandError(
                f'MCP server "{name}" is disabled in {registry.path}. Run openclaw mcp configure {name} --enable '
                "before probing it."
            )
        selected = {name: analysis.servers[name]}
    else:
        selected = analysis.servers
    if not as_json and all(server.get("enabled") is False for server in selected.values()):
        console.out(
            f"No enabled MCP servers in {registry.path}. Add one with openclaw mcp add <name> --command <command> "
            "or enable one with openclaw mcp configure <name> --enable."
        )
        return 0
    from entrypoints.cli.probing import run_probe

    result = await run_probe(selected, "openclaw-cli-mcp-probe", console, registry.env)
    if as_json:
        console.json(result)
    else:
        console.out("\n".join(probe_lines(registry.path, result)))
    issue = probe_issue(registry.path, result, selected)
    if issue is not None:
        console.err(issue)
        return 1
    return 0


async def cmd_logout(registry: Registry, parsed: Parsed, console: Console) -> int:
    from adapters.sqlite.leases import SqliteLeaseStore
    from adapters.sqlite.oauth_store import SqliteOAuthCredentialStore

    name = parsed.args["name"] or ""
    db_path = resolve_state_db_path(registry.env)
    await registry.logout(name, SqliteOAuthCredentialStore(db_path, SqliteLeaseStore(db_path)))
    console.out(f'MCP OAuth credentials cleared for "{name}".')
    return 0


async def cmd_login(registry: Registry, parsed: Parsed, console: Console) -> int:
    """``openclaw mcp login <name> [--code <code>]`` (spec cli-registry §3.10, §7.8)."""
    from contextlib import AsyncExitStack

    from adapters.http.oauth_callback import OAuthCallbackError, oauth_callback_listener
    from application.oauth import LoginAuthorized
    from domain.transport import HttpConfig
    from entrypoints.oauth import http_oauth_protocol, server_of, sqlite_mcp_oauth

    name = parsed.args["name"] or ""
    analysis = await registry.load()
    server = analysis.servers.get(name)
    if server is None:
        raise CommandError(not_found_message(name, registry.path))
    oauth_block = server.get("oauth")
    if isinstance(oauth_block, dict) and oauth_block.get("identity") == "per-requester":
        raise CommandError(
            f'MCP server "{name}" uses per-requester OAuth. Senders connect from the channel via the MCP connect flow.'
        )
    if server.get("auth") != "oauth":
        raise CommandError(f'MCP server "{name}" is not configured with auth: "oauth".')
    url = server.get("url")
    if not isinstance(url, str) or not url.strip():
        raise CommandError(f'MCP server "{name}" needs a URL for OAuth login.')
    config = registry.warnings.resolve(name, server).config
    if not isinstance(config, HttpConfig):
        raise CommandError(f'MCP server "{name}" needs a valid HTTP transport for OAuth login.')
    oauth = sqlite_mcp_oauth(resolve_state_db_path(registry.env))
    target = server_of(name, config)
    saved = f'MCP OAuth credentials saved for "{name}".'
    manual = f"openclaw mcp login {name} --code <code>"
    code = _opt(parsed, "code")
    async with http_oauth_protocol(config) as protocol:
        if isinstance(code, str) and code:
            await oauth.login_complete(target, protocol, code)
            console.out(saved)
            return 0
        session = await oauth.login_start(target, protocol)
        if isinstance(session, LoginAuthorized):
            console.out(saved)
            return 0
        async with AsyncExitStack() as stack:
            listener = None
            if len(session.state) >= 16:
                try:
                    listener = await stack.enter_async_context(
                        oauth_callback_listener(session.redirect_url, session.state)
                    )
                except OAuthCallbackError as exc:
                    console.out(f"Could not start the local OAuth callback ({exc}).")
            console.out(f'Open this URL to authorize "{name}":')
            console.out(session.authorization_url)
            if listener is None:
                console.out(f"After approval, run {manual}.")
                return 0
            console.out("Waiting for the browser to return to OpenClaw...")
            console.out(f"If the callback cannot reach this terminal, run {manual}.")
            console.flush()
            try:
                result = await listener.wait()
            except OAuthCallbackError as exc:
                console.err(f"{exc}. Complete login manually with {manual}.")
                return 1
            if result.type == "oauth_error" or result.code is None:
                console.err(f"OAuth authorization did not complete. Retry login or use {manual}.")
                return 1
            await oauth.login_complete(target, protocol, result.code)
        console.out(saved)
    return 0


async def cmd_serve(registry: Registry, parsed: Parsed, console: Console) -> int:
    from entrypoints.serve.cli import cmd_serve as run_serve_command  # deferred: serve's own composition

    return await run_serve_command(registry, parsed, console)


async def cmd_reload(registry: Registry, parsed: Parsed, console: Console) -> int:
    await registry.load()
    console.out("Disposed cached MCP runtimes. Active agents use new MCP config on their next runtime build.")
    return 0


async def cmd_not_yet(registry: Registry, parsed: Parsed, console: Console) -> int:
    await registry.load()
    raise NotImplementedError(f"openclaw mcp {parsed.command} is not implemented in this build yet.")


_HANDLERS: dict[str, Handler] = {
    "list": cmd_list,
    "show": cmd_show,
    "status": cmd_status,
    "set": cmd_set,
    "unset": cmd_unset,
    "tools": cmd_tools,
    "configure": cmd_configure,
    "reload": cmd_reload,
    "doctor": cmd_doctor,
    "add": cmd_add,
    "probe": cmd_probe,
    "login": cmd_login,
    "logout": cmd_logout,
    "serve": cmd_serve,
}


async def dispatch(parsed: Parsed, env: Mapping[str, str], console: Console) -> int:
    registry = build_registry(env, console)
    handler = _HANDLERS.get(parsed.command, cmd_not_yet)
    return await handler(registry, parsed, console)
