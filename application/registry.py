"""The registry use cases that do not connect to a server: list, show, status, set, unset, configure,
tools, reload (spec cli-registry §3.1–§3.3, §3.7–§3.9, §3.12–§3.13)."""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from application.config_service import ConfigService, Warn
from application.errors import CommandError
from domain.canonical import canonicalize_server
from domain.config_load import ConfigAnalysis
from domain.flag_values import (
    ValueProblem,
    parse_approval,
    parse_auth,
    parse_config_value,
    parse_csv,
    parse_key_values,
    parse_seconds,
    parse_ssl_verify,
    trimmed_or_none,
)
from jscompat.jsjson import js_string

if TYPE_CHECKING:  # the OAuth port imports the lease port, which imports anyio
    from application.ports.collation import Collator
    from application.ports.oauth import OAuthCredentialStore, OAuthStatusReader
    from domain.status import ServerAuthView
    from domain.transport import Resolution

# ``domain.transport`` (with the redaction tables), ``domain.status`` and ``domain.names`` are imported by the
# use cases that resolve transports: ``list --json``, ``show`` and the config writes start without them.

__all__ = [
    "AddRequest",
    "CandidateProbe",
    "ConfigureRequest",
    "Registry",
    "TransportWarnings",
    "build_added_server",
    "not_found_message",
]


def not_found_message(name: str, path: str) -> str:
    return f'No MCP server named "{name}" in {path}. Run openclaw mcp list to see configured servers.'


class TransportWarnings:
    """Prints resolution warnings as ``[bundle-mcp] …``; blocked-env warnings at most once per process
    and (server, key) pair (an LRU of 4 096 pairs)."""

    def __init__(self, warn: Warn, capacity: int = 4096) -> None:
        self._warn = warn
        self._seen: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._capacity = capacity

    def resolve(self, name: str, server: object) -> Resolution:
        from domain.transport import resolve_transport

        resolution = resolve_transport(name, server)
        for warning in resolution.warnings:
            if warning.once is not None:
                if warning.once in self._seen:
                    self._seen.move_to_end(warning.once)
                    continue
                self._seen[warning.once] = None
                if len(self._seen) > self._capacity:
                    self._seen.popitem(last=False)
            self._warn(f"[bundle-mcp] {warning.text}")
        return resolution


@dataclass(frozen=True, slots=True)
class ConfigureRequest:
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


@dataclass(frozen=True, slots=True)
class AddRequest:
    """The flags of ``openclaw mcp add`` (raw strings; validated by the use case)."""

    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    cwd: str | None = None
    url: str | None = None
    transport: str | None = None
    headers: tuple[str, ...] = ()
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


CandidateProbe = Callable[[str, dict[str, Any]], Awaitable[None]]
"""Probes one candidate server before it is saved; raises ``CommandError`` when it fails."""


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
        if request.args:
            server["args"] = list(request.args)
        env = _problem(lambda: parse_key_values(request.env, "--env"))
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
        headers = _problem(lambda: parse_key_values(request.headers, "--header"))
        if headers is not None:
            server["headers"] = headers
        auth = _problem(lambda: parse_auth(request.auth))
        if auth is not None:
            server["auth"] = auth
        oauth = _oauth_flags(request.oauth_scope, request.oauth_redirect_url, request.oauth_client_metadata_url)
        if oauth:
            server["oauth"] = oauth
        ssl_verify = _problem(lambda: parse_ssl_verify(request.ssl_verify))
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
    approval = _problem(lambda: parse_approval(request.approval))
    if approval is not None:
        server["codex"] = {"defaultToolsApprovalMode": approval}
    timeout = _problem(lambda: parse_seconds(request.timeout, "--timeout"))
    if timeout is not None:
        server["requestTimeoutMs"] = timeout
    connect = _problem(lambda: parse_seconds(request.connect_timeout, "--connect-timeout"))
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


def _problem(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except ValueProblem as exc:
        raise CommandError(str(exc)) from exc


class Registry:
    """Use cases over ``mcp.servers``; every method first passes the config guard."""

    def __init__(
        self,
        config: ConfigService,
        oauth: OAuthStatusReader,
        collator: Collator,
        warnings: TransportWarnings,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self._config = config
        self._oauth = oauth
        self._collator = collator
        self._warnings = warnings
        self.env: Mapping[str, str] = env if env is not None else {}

    @property
    def oauth(self) -> OAuthStatusReader:
        return self._oauth

    @property
    def warnings(self) -> TransportWarnings:
        return self._warnings

    @property
    def path(self) -> str:
        return self._config.path

    async def load(self) -> ConfigAnalysis:
        return await self._config.load()

    def sorted_names(self, servers: dict[str, Any]) -> list[str]:
        return self._collator.sort(list(servers))

    # -- reads -------------------------------------------------------------------------------------

    async def _principals(self, name: str, view: ServerAuthView) -> int:
        from domain.names import operator_store_key

        assert view.url is not None
        return await self._oauth.count_principals(operator_store_key(name, view.url) + "-r-")

    async def list_principals(self, analysis: ConfigAnalysis) -> list[tuple[str, int | None]]:
        """Sorted names with the connected-principal count of per-requester OAuth servers."""
        from domain.status import auth_view

        rows: list[tuple[str, int | None]] = []
        for name in self.sorted_names(analysis.servers):
            server = analysis.servers[name]
            view = auth_view(server, self._warnings.resolve(name, server))
            count = await self._principals(name, view) if view.kind == "per-requester" else None
            rows.append((name, count))
        return rows

    async def status(self, analysis: ConfigAnalysis) -> list[dict[str, Any]]:
        from domain.status import auth_status, auth_view, status_entry

        entries = []
        for name in self.sorted_names(analysis.servers):
            server = analysis.servers[name]
            resolution = self._warnings.resolve(name, server)
            view = auth_view(server, resolution)
            auth = principals = None
            if view.kind == "operator":
                from domain.names import operator_store_key  # hashlib: only OAuth servers need it

                assert view.url is not None
                auth = auth_status(await self._oauth.read_store(operator_store_key(name, view.url)))
            else:
                # the reference resolves a second time to count principals
                view = auth_view(server, self._warnings.resolve(name, server))
                if view.kind == "per-requester":
                    principals = await self._principals(name, view)
            entries.append(status_entry(name, server, resolution, auth, principals))
        return entries

    # -- writes ------------------------------------------------------------------------------------

    async def set_server(self, name: str, raw_value: str) -> None:
        await self._config.load()
        value = _problem(lambda: parse_config_value(raw_value))
        key = name.strip()
        if not key:
            raise CommandError("MCP server name is required.")
        if not isinstance(value, dict):
            raise CommandError("MCP server config must be a JSON object.")

        def change(servers: dict[str, Any]) -> None:
            if key == "__proto__":  # 2026.9.6 drops it silently (spec D11)
                return
            servers[key] = canonicalize_server(value)

        await self._config.commit("set", key, change)

    async def unset_server(self, name: str) -> None:
        await self._config.load()
        key = name.strip()
        if not key:
            raise CommandError("MCP server name is required.")

        def change(servers: dict[str, Any]) -> None:
            if not isinstance(servers.get(key), dict):
                raise CommandError(not_found_message(name, self.path))
            del servers[key]

        await self._config.commit("unset", key, change)

    async def update_tools(self, name: str, include: str | None, exclude: str | None, clear: bool) -> None:
        await self._config.load()
        if include is None and exclude is None and not clear:
            raise CommandError("Specify --include, --exclude, or --clear.")
        key = name.strip()

        def normalise(value: str | None) -> list[str] | None:
            items = parse_csv(value)
            if items is None:
                return None
            return self._collator.sort(list(dict.fromkeys(items)))

        includes, excludes = normalise(include), normalise(exclude)

        def change(servers: dict[str, Any]) -> None:
            server = servers.get(key)
            if not isinstance(server, dict):
                raise CommandError(not_found_message(name, self.path))
            if clear or (includes is None and excludes is None):
                server.pop("toolFilter", None)
            else:
                _merge_tool_filter(server, includes, excludes)

        await self._config.commit("tool selection update", key, change)

    async def add_server(self, name: str, request: AddRequest, probe: CandidateProbe | None) -> dict[str, Any]:
        """Create one server from flags, probing it first unless told not to; returns what was saved."""
        analysis = await self._config.load()
        server = build_added_server(request)
        key = name.strip()

        def exists_message() -> str:
            return f"MCP server {js_string(key)} already exists."

        if key in analysis.servers:
            raise CommandError(exists_message())
        if request.probe and not request.disabled and server.get("auth") != "oauth" and probe is not None:
            await probe(key, server)

        def change(servers: dict[str, Any]) -> None:
            if isinstance(servers.get(key), dict):
                raise CommandError(exists_message())
            if key == "__proto__":  # 2026.9.6 drops it silently (spec D11)
                return
            servers[key] = canonicalize_server(server)

        await self._config.commit("set", key, change)
        return server

    async def logout(self, name: str, credentials: OAuthCredentialStore) -> None:
        """Clear the operator OAuth credentials of an HTTP server (spec cli-registry §3.11); the config is
        not touched. Any HTTP server qualifies, also one whose ``auth`` was removed meanwhile."""
        analysis = await self._config.load()
        server = analysis.servers.get(name)
        if server is None:
            raise CommandError(not_found_message(name, self.path))
        oauth = server.get("oauth")
        if isinstance(oauth, dict) and oauth.get("identity") == "per-requester":
            raise CommandError(
                f'MCP server "{name}" uses per-requester OAuth. Remove or replace the server to clear requester '
                "credentials."
            )
        from domain.names import operator_store_key
        from domain.transport import HttpConfig

        config = self._warnings.resolve(name, server).config
        if not isinstance(config, HttpConfig):
            raise CommandError(f'MCP server "{name}" needs a valid HTTP transport for OAuth logout.')
        await credentials.clear(operator_store_key(name, config.url))

    async def configure(self, name: str, request: ConfigureRequest, probe: CandidateProbe | None = None) -> bool:
        """Apply operator controls; returns True when a bare disabled override was removed instead.

        With ``probe``, the updated server is probed before saving unless it is disabled or uses OAuth.
        """
        if request.enable and request.disable:
            raise CommandError("Specify only one of --enable or --disable.")
        analysis = await self._config.load()
        if name not in analysis.servers:
            raise CommandError(not_found_message(name, self.path))
        removed = False
        if probe is not None:
            preview = _apply_configure(copy.deepcopy(analysis.servers[name]), request)
            if preview.get("enabled") is not False and preview.get("auth") != "oauth":
                await probe(name, preview)

        def change(servers: dict[str, Any]) -> None:
            nonlocal removed
            stored = servers.get(name)
            if not isinstance(stored, dict):
                raise CommandError(not_found_message(name, self.path))
            updated = _apply_configure(copy.deepcopy(stored), request)
            if request.enable and not updated:
                del servers[name]
                removed = True
                return
            servers[name] = canonicalize_server(updated)

        await self._config.commit("configure", name, change)
        return removed


def _merge_tool_filter(server: dict[str, Any], includes: list[str] | None, excludes: list[str] | None) -> None:
    """Per-key merge into the existing ``toolFilter`` (a non-object one is replaced)."""
    current = server.get("toolFilter")
    merged = dict(current) if isinstance(current, dict) else {}
    if includes is not None:
        merged["include"] = includes
    if excludes is not None:
        merged["exclude"] = excludes
    server["toolFilter"] = merged


def _apply_configure(server: dict[str, Any], request: ConfigureRequest) -> dict[str, Any]:
    if request.enable:
        server.pop("enabled", None)
    if request.disable:
        server["enabled"] = False
    if request.clear_tools:
        server.pop("toolFilter", None)
    else:
        includes, excludes = parse_csv(request.include), parse_csv(request.exclude)
        if includes is not None or excludes is not None:
            _merge_tool_filter(server, includes, excludes)
    if request.clear_timeouts:
        server.pop("requestTimeoutMs", None)
        server.pop("connectionTimeoutMs", None)
    timeout = _problem(lambda: parse_seconds(request.timeout, "--timeout"))
    if timeout is not None:
        server["requestTimeoutMs"] = timeout
    connect = _problem(lambda: parse_seconds(request.connect_timeout, "--connect-timeout"))
    if connect is not None:
        server["connectionTimeoutMs"] = connect
    if request.parallel is True:
        server["supportsParallelToolCalls"] = True
    elif request.parallel is False:
        server.pop("supportsParallelToolCalls", None)
        server.pop("supports_parallel_tool_calls", None)
    approval = _problem(lambda: parse_approval(request.approval))
    if approval is not None:
        codex = server.get("codex")
        server["codex"] = {**(codex if isinstance(codex, dict) else {}), "defaultToolsApprovalMode": approval}
    if request.clear_auth:
        server.pop("auth", None)
        server.pop("oauth", None)
    auth = _problem(lambda: parse_auth(request.auth))
    if auth is not None:
        server["auth"] = auth
    oauth = _oauth_flags(request.oauth_scope, request.oauth_redirect_url, request.oauth_client_metadata_url)
    if oauth:
        existing = server.get("oauth")
        server["oauth"] = {**(existing if isinstance(existing, dict) else {}), **oauth}
    if request.clear_tls:
        for key in ("sslVerify", "ssl_verify", "clientCert", "client_cert", "clientKey", "client_key"):
            server.pop(key, None)
    ssl_verify = _problem(lambda: parse_ssl_verify(request.ssl_verify))
    if ssl_verify is not None:
        server["sslVerify"] = ssl_verify
    cert, client_key = trimmed_or_none(request.client_cert), trimmed_or_none(request.client_key)
    if cert is not None:
        server["clientCert"] = cert
    if client_key is not None:
        server["clientKey"] = client_key
    return server
