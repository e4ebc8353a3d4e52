"""The registry subcommands: run the use cases composed by ``entrypoints.composition`` and print their
results (spec cli-registry §3).

Commands that do not connect run inline (no event loop, see ``entrypoints.cli.inline``) unless a config
write must hold the lifecycle lease (the state database exists); the others run under ``anyio.run``.
"""

from __future__ import annotations

from typing import Any

from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.application.registry import CandidateProbe, Registry, not_found_message
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.cli.argv import Parsed
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.options import (
    AddOptions,
    AuditOptions,
    CommandOptions,
    ConfigureOptions,
    DoctorOptions,
    ExportOptions,
    ImportOptions,
    ListOptions,
    LoginOptions,
    LogoutOptions,
    PinOptions,
    ProbeOptions,
    ReloadOptions,
    ReviewOptions,
    SetOptions,
    ShowOptions,
    StatusOptions,
    ToolsOptions,
    UnsetOptions,
)
from openclaw_mcp.entrypoints.cli.printable import printable
from openclaw_mcp.entrypoints.settings import Settings

__all__ = ["build_registry", "dispatch", "runs_inline"]

SCOPE_NOTE = (
    "Note: this command only shows OpenClaw-managed mcp.servers entries and does not include mcporter "
    "servers from config/mcporter.json."
)


def _reads_only(options: CommandOptions) -> bool:
    return isinstance(options, ListOptions | ShowOptions | StatusOptions | ReloadOptions | ExportOptions | AuditOptions)


def runs_inline(options: CommandOptions, settings: Settings) -> bool:
    """Whether the command runs without an event loop: it does not connect, and it either never writes
    the config or writes it without the lifecycle lease (no state database)."""
    if _reads_only(options):
        return True
    if isinstance(options, SetOptions | UnsetOptions | ToolsOptions | ImportOptions):
        return not settings.state_db_exists()
    if isinstance(options, ConfigureOptions | AddOptions):
        return not options.probe and not settings.state_db_exists()
    return False


def build_registry(settings: Settings, console: Console, options: CommandOptions, *, inline: bool) -> Registry:
    """The registry for one command (adapters from ``entrypoints.composition``)."""
    return composition.registry(settings, console.err, inline=inline, lifecycle=not _reads_only(options))


async def cmd_list(registry: Registry, options: ListOptions, console: Console) -> int:
    analysis = await registry.load()
    if options.json:
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
        lines.append(f"- {printable(name)}{suffix}")
    lines += ["", SCOPE_NOTE]
    console.out("\n".join(lines))
    return 0


async def cmd_show(registry: Registry, options: ShowOptions, console: Console) -> int:
    analysis = await registry.load()
    name = options.name
    if name is not None:
        if name not in analysis.servers:
            raise CommandError(not_found_message(name, registry.path))
        document: Any = analysis.servers[name]
        header = f'OpenClaw-managed MCP server "{printable(name)}" ({registry.path}):'
    else:
        document = analysis.servers
        header = f"OpenClaw-managed MCP servers ({registry.path}):"
    if not options.json:
        console.out(header)
    console.json(document)
    return 0


async def cmd_status(
    registry: Registry, options: StatusOptions, console: Console, settings: Settings | None = None
) -> int:
    from openclaw_mcp.entrypoints.cli.render import status_lines

    analysis = await registry.load()
    entries = await registry.status(analysis)
    if settings is not None and entries and settings.state_db_exists():  # pinned servers only (issue 35)
        from openclaw_mcp.entrypoints.cli.pins_cli import annotate_status

        await annotate_status(entries, settings, console)
    if options.json:
        console.json({"path": registry.path, "servers": entries})
        return 0
    if not entries:
        console.out(f"No MCP servers configured in {registry.path}.")
        return 0
    lines = [f"MCP server status ({registry.path}):"]
    for entry in entries:
        lines += status_lines(entry, verbose=options.verbose)
    console.out("\n".join(lines))
    return 0


async def cmd_set(registry: Registry, options: SetOptions, console: Console) -> int:
    name = options.name
    await registry.set_server(name, options.value)
    console.out(f'Saved MCP server "{printable(name)}" to {registry.path}.')
    return 0


async def cmd_unset(registry: Registry, options: UnsetOptions, console: Console) -> int:
    name = options.name
    await registry.unset_server(name)
    console.out(f'Removed MCP server "{printable(name)}" from {registry.path}.')
    return 0


async def cmd_tools(registry: Registry, options: ToolsOptions, console: Console) -> int:
    name = options.name
    await registry.update_tools(name, options.include, options.exclude, options.clear)
    console.out(f'Updated MCP tool selection for "{printable(name)}" in {registry.path}.')
    return 0


async def cmd_configure(registry: Registry, options: ConfigureOptions, console: Console, settings: Settings) -> int:
    name = options.name
    probe = candidate_probe(registry, console, settings) if options.probe else None
    removed = await registry.configure(name, options, probe)  # the options are the use case's request
    if removed:
        console.out(f'Removed disabled MCP override for "{printable(name)}" in {registry.path}.')
    else:
        console.out(f'Updated MCP server "{printable(name)}" in {registry.path}.')
    return 0


async def cmd_doctor(registry: Registry, options: DoctorOptions, console: Console, settings: Settings) -> int:
    from openclaw_mcp.application.doctor import Doctor
    from openclaw_mcp.domain.doctor import apps_issue, apps_issue_lines, doctor_lines

    analysis = await registry.load()
    name = options.name
    if name is not None and name not in analysis.servers:
        raise CommandError(not_found_message(name, registry.path))
    names = [name] if name is not None else registry.sorted_names(analysis.servers)
    probe = None
    if options.probe:
        from openclaw_mcp.entrypoints.cli.probing import doctor_probe

        probe = doctor_probe(console, settings)
    doctor = Doctor(composition.host_files(), registry.oauth, registry.warnings, registry.env, probe)
    reports = await doctor.check_all(names, analysis.servers)
    ok = all(report["ok"] for report in reports)
    apps = apps_issue(analysis.document)
    if options.json:
        document: dict[str, Any] = {"path": registry.path, "ok": ok, "servers": reports}
        if apps is not None:
            document["issues"] = [apps]
        console.json(document)
    elif not reports:
        console.out(
            f"No MCP servers configured in {registry.path}. Add one with openclaw mcp add <name> --command <command>."
        )
    else:
        console.out("\n".join(doctor_lines(registry.path, reports)))
    if apps is not None and not options.json:
        console.out("\n".join(apps_issue_lines(apps)))
    if not ok:
        console.err("MCP doctor found errors.")
        return 1
    return 0


async def cmd_add(registry: Registry, options: AddOptions, console: Console, settings: Settings) -> int:
    name = options.name
    probe = candidate_probe(registry, console, settings) if options.probe else None
    saved = await registry.add_server(name, options, probe)  # the options are the use case's request
    console.out(f'Saved MCP server "{printable(name)}" to {registry.path}.')
    if saved.get("auth") == "oauth":
        console.out(f"Run openclaw mcp login {printable(name)} to authorize this MCP server.")
    return 0


def candidate_probe(registry: Registry, console: Console, settings: Settings) -> CandidateProbe:
    from openclaw_mcp.entrypoints.cli.probing import add_probe  # deferred: the client runtime is not needed otherwise

    return add_probe(registry.path, console, settings)


async def cmd_probe(registry: Registry, options: ProbeOptions, console: Console, settings: Settings) -> int:
    from openclaw_mcp.domain.probe import probe_issue, probe_lines

    analysis = await registry.load()
    name = options.name
    as_json = options.json
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
    from openclaw_mcp.entrypoints.cli.probing import run_probe
    from openclaw_mcp.entrypoints.runtime_api import apps_enabled

    apps = apps_enabled(analysis.document)
    result = await run_probe(selected, "openclaw-cli-mcp-probe", console, settings, apps=apps, timings=options.timings)
    if as_json:
        console.json(result)
    elif options.timings:
        from openclaw_mcp.entrypoints.cli.render import probe_timing_lines

        console.out("\n".join(probe_timing_lines(registry.path, result)))
    else:
        console.out("\n".join(probe_lines(registry.path, result)))
    issue = probe_issue(registry.path, result, selected)
    if issue is not None:
        console.err(issue)
        return 1
    return 0


async def cmd_logout(registry: Registry, options: LogoutOptions, console: Console, settings: Settings) -> int:
    name = options.name
    await registry.logout(name, composition.credential_store(settings))
    console.out(f'MCP OAuth credentials cleared for "{printable(name)}".')
    return 0


async def cmd_login(registry: Registry, options: LoginOptions, console: Console, settings: Settings) -> int:
    """``openclaw mcp login <name> [--code <code>]`` (spec cli-registry §3.10, §7.8)."""
    from contextlib import AsyncExitStack

    from openclaw_mcp.application.oauth import LoginAuthorized
    from openclaw_mcp.application.ports.oauth import OAuthCallbackError
    from openclaw_mcp.domain.transport import HttpConfig
    from openclaw_mcp.entrypoints.oauth import http_oauth_protocol, server_of, sqlite_mcp_oauth

    name = options.name
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
    oauth = sqlite_mcp_oauth(settings.state_db_path)
    target = server_of(name, config)
    saved = f'MCP OAuth credentials saved for "{printable(name)}".'
    manual = f"openclaw mcp login {printable(name)} --code <code>"
    code = options.code
    async with http_oauth_protocol(config) as protocol:
        if code:
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
                        composition.oauth_callback(session.redirect_url, session.state)
                    )
                except OAuthCallbackError as exc:
                    console.out(f"Could not start the local OAuth callback ({exc}).")
            console.out(f'Open this URL to authorize "{printable(name)}":')
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


async def cmd_reload(registry: Registry, options: ReloadOptions, console: Console) -> int:
    await registry.load()
    console.out("Disposed cached MCP runtimes. Active agents use new MCP config on their next runtime build.")
    return 0


async def dispatch(parsed: Parsed, settings: Settings, console: Console, inline: bool = False) -> int:
    """Compose the registry (``inline``: adapters that never suspend) and run the command's handler."""
    options = parsed.typed
    registry = build_registry(settings, console, options, inline=inline)
    match options:
        case ListOptions():
            return await cmd_list(registry, options, console)
        case ShowOptions():
            return await cmd_show(registry, options, console)
        case StatusOptions():
            return await cmd_status(registry, options, console, settings)
        case SetOptions():
            return await cmd_set(registry, options, console)
        case UnsetOptions():
            return await cmd_unset(registry, options, console)
        case ToolsOptions():
            return await cmd_tools(registry, options, console)
        case ConfigureOptions():
            return await cmd_configure(registry, options, console, settings)
        case ReloadOptions():
            return await cmd_reload(registry, options, console)
        case DoctorOptions():
            return await cmd_doctor(registry, options, console, settings)
        case AddOptions():
            return await cmd_add(registry, options, console, settings)
        case ProbeOptions():
            return await cmd_probe(registry, options, console, settings)
        case LoginOptions():
            return await cmd_login(registry, options, console, settings)
        case LogoutOptions():
            return await cmd_logout(registry, options, console, settings)
        case ExportOptions():
            from openclaw_mcp.entrypoints.cli.interchange import cmd_export  # deferred: export/import only

            return await cmd_export(registry, options, console)
        case ImportOptions():
            from openclaw_mcp.entrypoints.cli.interchange import cmd_import

            return await cmd_import(registry, options, console)
        case AuditOptions():
            from openclaw_mcp.entrypoints.cli.audit_cli import cmd_audit  # deferred: audit only

            return await cmd_audit(options, console, settings, inline=inline)
        case PinOptions():
            from openclaw_mcp.entrypoints.cli.pins_cli import cmd_pin  # deferred: pin/review only

            return await cmd_pin(registry, options, console, settings)
        case ReviewOptions():
            from openclaw_mcp.entrypoints.cli.pins_cli import cmd_review

            return await cmd_review(registry, options, console, settings)
        case _:  # serve is routed by entrypoints.cli.main before the registry is composed
            raise CommandError(f"internal error: no registry handler for {type(options).__name__}")
