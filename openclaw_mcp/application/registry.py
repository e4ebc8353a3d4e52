"""The registry use cases that do not connect to a server: list, show, status, set, unset, configure,
tools, reload (spec cli-registry §3.1–§3.3, §3.7–§3.9, §3.12–§3.13)."""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.config_service import Committed, ConfigService, OnCommitted, Warn
from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.domain.canonical import canonicalize_server
from openclaw_mcp.domain.config_load import ConfigAnalysis
from openclaw_mcp.domain.flag_values import (
    ValueProblem,
    parse_config_value,
    parse_csv,
)
from openclaw_mcp.jscompat.jsjson import js_string

if TYPE_CHECKING:  # annotations only: the registry commands start without the ports' and flags' classes
    from openclaw_mcp.application.ports.collation import Collator
    from openclaw_mcp.application.ports.oauth import OAuthCredentialStore, OAuthStatusReader
    from openclaw_mcp.application.server_flags import AddRequest, ConfigureRequest
    from openclaw_mcp.domain.status import ServerAuthView
    from openclaw_mcp.domain.transport import Resolution

# ``domain.transport`` (with the redaction tables), ``domain.status`` and ``domain.names`` are imported by the
# use cases that resolve transports: ``list --json``, ``show`` and the config writes start without them.

__all__ = [
    "CandidateProbe",
    "Registry",
    "TransportWarnings",
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
        from openclaw_mcp.domain.transport import resolve_transport

        resolution = resolve_transport(name, server)
        self.emit(resolution)
        return resolution

    def emit(self, resolution: Resolution) -> None:
        """Print ``resolution``'s warnings as a new resolution of the same server would (the resolver is a
        pure function: a use case that resolves a server twice resolves it once and prints twice)."""
        for warning in resolution.warnings:
            if warning.once is not None:
                if warning.once in self._seen:
                    self._seen.move_to_end(warning.once)
                    continue
                self._seen[warning.once] = None
                if len(self._seen) > self._capacity:
                    self._seen.popitem(last=False)
            self._warn(f"[bundle-mcp] {warning.text}")


CandidateProbe = Callable[[str, dict[str, Any]], Awaitable[None]]
"""Probes one candidate server before it is saved; raises ``CommandError`` when it fails."""


class Registry:
    """Use cases over ``mcp.servers``; every method first passes the config guard."""

    def __init__(
        self,
        config: ConfigService,
        oauth: OAuthStatusReader,
        collator: Collator,
        warnings: TransportWarnings,
        env: Mapping[str, str] | None = None,
        credentials: Callable[[], OAuthCredentialStore] | None = None,
    ) -> None:
        """``credentials`` builds the OAuth credential store the config writes clear replaced servers' credentials
        in (tool-policy-and-lifecycle §4); it is called only when a write replaces an OAuth server."""
        self._config = config
        self._credentials = credentials
        self._oauth = oauth
        self._collator = collator
        self._warnings = warnings
        self.env: Mapping[str, str] = env if env is not None else {}

    @property
    def config(self) -> ConfigService:
        return self._config

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
        from openclaw_mcp.domain.names import operator_store_key

        assert view.url is not None
        return await self._oauth.count_principals(operator_store_key(name, view.url) + "-r-")

    async def list_principals(self, analysis: ConfigAnalysis) -> list[tuple[str, int | None]]:
        """Sorted names with the connected-principal count of per-requester OAuth servers."""
        from openclaw_mcp.domain.status import auth_view

        rows: list[tuple[str, int | None]] = []
        for name in self.sorted_names(analysis.servers):
            server = analysis.servers[name]
            view = auth_view(server, self._warnings.resolve(name, server))
            count = await self._principals(name, view) if view.kind == "per-requester" else None
            rows.append((name, count))
        return rows

    async def status(self, analysis: ConfigAnalysis) -> list[dict[str, Any]]:
        from openclaw_mcp.domain.status import auth_status, auth_view, status_entry

        entries = []
        for name in self.sorted_names(analysis.servers):
            server = analysis.servers[name]
            resolution = self._warnings.resolve(name, server)
            view = auth_view(server, resolution)
            auth = principals = None
            if view.kind == "operator":
                from openclaw_mcp.domain.names import operator_store_key  # hashlib: only OAuth servers need it

                assert view.url is not None
                auth = auth_status(await self._oauth.read_store(operator_store_key(name, view.url)))
            else:
                # the reference resolves a second time to count principals: its warnings are printed again
                self._warnings.emit(resolution)
                if view.kind == "per-requester":
                    principals = await self._principals(name, view)
            entries.append(status_entry(name, server, resolution, auth, principals))
        return entries

    # -- writes ------------------------------------------------------------------------------------

    def clearing(self, name: str) -> OnCommitted | None:
        """After a committed write to server ``name``: clear the OAuth credentials it replaced (§4.2–§4.3)."""
        factory = self._credentials
        if factory is None:
            return None

        async def clear(committed: Committed) -> None:
            from openclaw_mcp.domain.oauth_clearing import replaced_oauth_clearing

            plan = replaced_oauth_clearing(
                name, committed.server(name, after=False), committed.server(name, after=True)
            )
            if plan is None:
                return
            store = factory()
            if plan.operator:
                await store.clear(plan.operator_key)
            for key in await store.keys_with_prefix(plan.requester_prefix):
                await store.clear(key)
            await store.delete_pending_prefix(plan.requester_prefix)

        return clear

    async def set_server(self, name: str, raw_value: str) -> None:
        await self._config.load()
        try:
            value = parse_config_value(raw_value)
        except ValueProblem as exc:
            raise CommandError(str(exc)) from exc
        key = name.strip()
        if not key:
            raise CommandError("MCP server name is required.")
        if not isinstance(value, dict):
            raise CommandError("MCP server config must be a JSON object.")

        def change(servers: dict[str, Any]) -> None:
            if key == "__proto__":  # 2026.9.6 drops it silently (spec D11)
                return
            servers[key] = canonicalize_server(value)

        await self._config.commit("set", key, change, self.clearing(key))

    async def unset_server(self, name: str) -> None:
        await self._config.load()
        key = name.strip()
        if not key:
            raise CommandError("MCP server name is required.")

        def change(servers: dict[str, Any]) -> None:
            if not isinstance(servers.get(key), dict):
                raise CommandError(not_found_message(name, self.path))
            del servers[key]

        await self._config.commit("unset", key, change, self.clearing(key))

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
                from openclaw_mcp.application.server_flags import merge_tool_filter

                merge_tool_filter(server, includes, excludes)

        await self._config.commit("tool selection update", key, change, self.clearing(key))

    async def add_server(self, name: str, request: AddRequest, probe: CandidateProbe | None) -> dict[str, Any]:
        """Create one server from flags, probing it first unless told not to; returns what was saved."""
        analysis = await self._config.load()
        from openclaw_mcp.application.server_flags import build_added_server

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

        await self._config.commit("set", key, change, self.clearing(key))
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
        from openclaw_mcp.domain.names import operator_store_key
        from openclaw_mcp.domain.transport import HttpConfig

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
        from openclaw_mcp.application.server_flags import apply_configure

        removed = False
        if probe is not None:
            preview = apply_configure(copy.deepcopy(analysis.servers[name]), request)
            if preview.get("enabled") is not False and preview.get("auth") != "oauth":
                await probe(name, preview)

        def change(servers: dict[str, Any]) -> None:
            nonlocal removed
            stored = servers.get(name)
            if not isinstance(stored, dict):
                raise CommandError(not_found_message(name, self.path))
            updated = apply_configure(copy.deepcopy(stored), request)
            if request.enable and not updated:
                del servers[name]
                removed = True
                return
            servers[name] = canonicalize_server(updated)

        await self._config.commit("configure", name, change, self.clearing(name))
        return removed
