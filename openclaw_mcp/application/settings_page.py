"""The MCP settings page's use cases (spec mcp-settings-page §5–§7, §11.3): a redacted snapshot, and the row
actions and the editor save, each one commit through the registry's config service — the same write path,
lock, validation, OAuth clearing and messages as ``openclaw mcp set`` — guarded by the snapshot's hash."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.errors import ApplicationError, ConfigConflictError, ServerNotFoundError
from openclaw_mcp.application.registry import Registry, not_found_message
from openclaw_mcp.domain.settings_page import (
    AddProblem,
    Row,
    SentinelMisplaced,
    added_server,
    changed_paths,
    config_hash,
    oauth_label,
    redact_mcp,
    restore_redacted,
    server_row,
    summary,
)
from openclaw_mcp.domain.tool_pins import tool_fingerprint

if TYPE_CHECKING:
    from openclaw_mcp.application.config_service import Committed, OnCommitted
    from openclaw_mcp.application.ports.clock import Clock
    from openclaw_mcp.application.tool_pins import PinReview
    from openclaw_mcp.domain.config_load import ConfigAnalysis

__all__ = [
    "ChangeRefused",
    "McpSettings",
    "Outcome",
    "ReviewOutdated",
    "Snapshot",
    "accepted_as_shown",
    "listed_fingerprint",
]


class ChangeRefused(ApplicationError):
    """The page's input is refused before anything is read under the lock (add-form rules, a misplaced
    sentinel, a non-object ``mcp``); the message is the page's text."""


class ReviewOutdated(ApplicationError):
    """The page's Accept names a tool the server lists differently from what the page showed (it changed
    again since the review): nothing is accepted."""


def listed_fingerprint(review: PinReview, tool: str) -> str | None:
    """The fingerprint of ``tool`` as ``review``'s listing holds it; ``None`` when it is not listed (removed)."""
    listed = review.listed.get(tool)
    return None if listed is None else tool_fingerprint(listed)


def accepted_as_shown(review: PinReview, shown: Mapping[str, str | None]) -> tuple[str, ...]:
    """The tools the page's Accept may pass to ``ToolPins.accept`` (issue 35). ``shown``: each tool to accept
    and the fingerprint of the listed definition the page showed with its diff (``None``: a removed tool).
    ``review`` is a fresh listing: a pending tool whose fingerprint is not the one shown raises
    :class:`ReviewOutdated` (a server that changes a tool between the review and the click never gets the
    unseen definition pinned); a tool with nothing to review is left to ``accept`` to refuse."""
    if not shown:
        raise ChangeRefused("tools: name at least one tool to accept")
    server = review.pins.server.server
    for item in review.tools:
        if item.tool in shown and listed_fingerprint(review, item.tool) != shown[item.tool]:
            raise ReviewOutdated(
                f'Tool "{item.tool}" of MCP server "{server}" changed since it was reviewed; review it again.'
            )
    return tuple(shown)


@dataclass(frozen=True, slots=True)
class Snapshot:
    path: str
    exists: bool
    hash: str
    valid: bool
    issues: list[dict[str, str]]
    mcp: object
    rows: list[Row]
    summary: dict[str, int]
    oauth: dict[str, dict[str, str]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        rows = [
            {
                "name": row.name,
                "target": row.target,
                "meta": row.meta,
                "enabled": row.enabled,
                "hint": {"kind": row.hint.kind, "text": row.hint.text},
                "oauth": self.oauth.get(row.name),
            }
            for row in self.rows
        ]
        return {
            "ok": True,
            "path": self.path,
            "exists": self.exists,
            "hash": self.hash,
            "valid": self.valid,
            "issues": self.issues,
            "mcp": self.mcp,
            "rows": rows,
            "summary": self.summary,
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    hash: str
    changed_paths: list[str]
    message: str

    def as_json(self) -> dict[str, Any]:
        return {"ok": True, "hash": self.hash, "changedPaths": self.changed_paths, "message": self.message}


def _servers(document: object) -> dict[str, Any]:
    mcp = document.get("mcp") if isinstance(document, dict) else None
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    return servers if isinstance(servers, dict) else {}


def _with_server(document: dict[str, Any], name: str, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(document)
    mcp = doc.get("mcp")
    if not isinstance(mcp, dict):
        mcp = doc["mcp"] = {}
    servers = mcp.get("servers")
    if not isinstance(servers, dict):
        servers = mcp["servers"] = {}
    change(servers)
    return doc


class McpSettings:
    """The settings page over one config file."""

    def __init__(self, registry: Registry, clock: Clock) -> None:
        self._registry = registry
        self._config = registry.config
        self._clock = clock

    @property
    def path(self) -> str:
        return self._config.path

    async def current_hash(self) -> str:
        text, _ = await self._config.inspect()
        return config_hash(text)

    async def snapshot(self, *, with_oauth: bool = True) -> Snapshot:
        text, analysis = await self._config.inspect()
        mcp = analysis.authored.get("mcp", {}) if analysis.exists else {}
        shown, _ = redact_mcp(mcp)
        servers = _servers(analysis.authored)
        names = self._registry.sorted_names(servers)
        oauth = await self._oauth(analysis) if with_oauth and analysis.valid and analysis.exists else {}
        return Snapshot(
            path=self.path,
            exists=analysis.exists,
            hash=config_hash(text),
            valid=analysis.valid,
            issues=[{"path": issue.path, "message": issue.message} for issue in analysis.issues],
            mcp=shown,
            rows=[server_row(name, servers[name]) for name in names],
            summary=summary(servers),
            oauth=oauth,
        )

    async def _oauth(self, analysis: ConfigAnalysis) -> dict[str, dict[str, str]]:
        """The OAuth state of each OAuth server, read from the store (never connects)."""
        if not any(server.get("auth") == "oauth" for server in analysis.servers.values()):
            return {}
        now = self._clock.now_ms()
        states: dict[str, dict[str, str]] = {}
        for entry in await self._registry.status(analysis):
            server = analysis.servers.get(entry["name"], {})
            oauth = server.get("oauth")
            if entry.get("auth") != "oauth" or (isinstance(oauth, dict) and oauth.get("authProfileId")):
                continue  # a linked Models account signs in elsewhere
            label = oauth_label(entry.get("authStatus"), entry.get("connectedPrincipals"), now)
            if label is not None:
                states[entry["name"]] = {"state": label[0], "label": label[1]}
        return states

    # -- mutations ---------------------------------------------------------------------------------

    @staticmethod
    def _expect(base_hash: str) -> Callable[[str | None], None]:
        def check(text: str | None) -> None:
            if config_hash(text) != base_hash:
                raise ConfigConflictError()

        return check

    async def _commit(
        self,
        label: str,
        server: str,
        base_hash: str,
        change: Callable[[dict[str, Any]], dict[str, Any]],
        on_committed: OnCommitted | None,
    ) -> tuple[Committed, str]:
        committed = await self._config.commit_document(
            label, server, change, on_committed, precondition=self._expect(base_hash)
        )
        return committed, await self.current_hash()

    async def add(self, base_hash: str, name: str, transport: str, target: str) -> Outcome:
        _, analysis = await self._config.inspect()
        try:
            key, entry = added_server(name, transport, target, _servers(analysis.authored))
        except AddProblem as exc:
            raise ChangeRefused(str(exc)) from exc

        def change(document: dict[str, Any]) -> dict[str, Any]:
            if key in _servers(document):
                raise ChangeRefused(f"An MCP server named \u201c{key}\u201d already exists.")
            return _with_server(document, key, lambda servers: servers.__setitem__(key, entry))

        _, digest = await self._commit("set", key, base_hash, change, self._registry.clearing(key))
        return Outcome(digest, [f"mcp.servers.{key}"], f"Added MCP server {key}.")

    def _require(self, document: dict[str, Any], name: str) -> dict[str, Any]:
        server = _servers(document).get(name)
        if not isinstance(server, dict):
            raise ServerNotFoundError(not_found_message(name, self.path))
        return server

    async def set_enabled(self, base_hash: str, name: str, enabled: bool) -> Outcome:
        def change(document: dict[str, Any]) -> dict[str, Any]:
            self._require(document, name)

            def toggle(servers: dict[str, Any]) -> None:
                if enabled:
                    servers[name].pop("enabled", None)
                else:
                    servers[name]["enabled"] = False

            return _with_server(document, name, toggle)

        _, digest = await self._commit("configure", name, base_hash, change, self._registry.clearing(name))
        verb = "Enabled" if enabled else "Disabled"
        return Outcome(digest, [f"mcp.servers.{name}.enabled"], f"{verb} MCP server {name}.")

    async def remove(self, base_hash: str, name: str) -> Outcome:
        def change(document: dict[str, Any]) -> dict[str, Any]:
            self._require(document, name)
            return _with_server(document, name, lambda servers: servers.pop(name))

        _, digest = await self._commit("unset", name, base_hash, change, self._registry.clearing(name))
        return Outcome(digest, [f"mcp.servers.{name}"], f"Removed MCP server {name}.")

    async def replace(self, base_hash: str, mcp: object) -> Outcome:
        """The editor's save: the whole ``mcp`` block, sentinels restored from the stored values."""
        if not isinstance(mcp, dict):
            raise ChangeRefused("mcp: Invalid input: expected object")
        names: set[str] = set()

        def change(document: dict[str, Any]) -> dict[str, Any]:
            stored = document.get("mcp", {})
            _, redacted = redact_mcp(stored)
            try:
                restored = restore_redacted(mcp, stored, redacted)
            except SentinelMisplaced as exc:
                raise ChangeRefused(str(exc)) from exc
            servers = restored.get("servers") if isinstance(restored, dict) else None
            if isinstance(servers, dict):
                servers.pop("__proto__", None)  # as `openclaw mcp set` (spec D11)
            doc = copy.deepcopy(document)
            doc["mcp"] = restored
            names.update(_servers(document), _servers(doc))
            return doc

        async def clear(committed: Committed) -> None:
            for name in sorted(names):
                clearing = self._registry.clearing(name)
                if clearing is not None:
                    await clearing(committed)

        committed, digest = await self._commit("set", "", base_hash, change, clear)
        paths = changed_paths(committed.before.get("mcp", {}), committed.after.get("mcp", {}))
        return Outcome(digest, paths, "Saved.")
