"""``openclaw config get/set/unset/validate`` for the ``mcp`` section and the MCP repairs of ``openclaw doctor``
(spec cli-registry §1.4), over the one config writer (``ConfigService``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.application.config_service import Committed, ConfigService, OnCommitted
from openclaw_mcp.application.errors import ChangeInvalidError, CommandError, InvalidConfigError
from openclaw_mcp.domain.config_issues import Issue
from openclaw_mcp.domain.config_load import ConfigAnalysis
from openclaw_mcp.domain.config_paths import (
    ConfigPath,
    PathError,
    SetValueError,
    apply_hint,
    changed_leaf_paths,
    format_path,
    get_at,
    is_known_mcp_path,
    mcp_view,
    migrate_legacy_mcp,
    outside_mcp_message,
    parse_path,
    parse_set_value,
    set_at,
    unset_at,
)
from openclaw_mcp.domain.shell_quoting import posix_quote

__all__ = ["ConfigPaths", "Repair", "Validation"]

Clearing = Callable[[str], OnCommitted | None]
"""For a server name: what must run after a committed write that replaced it (OAuth clearing), if anything."""


@dataclass(frozen=True, slots=True)
class Validation:
    """``config validate``: whether the file exists and its analysis."""

    path: str
    exists: bool
    analysis: ConfigAnalysis


@dataclass(frozen=True, slots=True)
class Repair:
    """``doctor``: the change lines, whether the file was written, the config before, and the issues the
    migrated config would still have (then nothing is written)."""

    path: str
    exists: bool
    changes: tuple[str, ...]
    written: bool
    before: ConfigAnalysis
    remaining: tuple[Issue, ...]


class _Unchanged(Exception):
    """Raised inside a commit's change to abort it: the edit changes nothing."""


def _mcp_path(raw: str) -> ConfigPath:
    try:
        path = parse_path(raw)
    except PathError as exc:
        raise CommandError(str(exc)) from exc
    if path.tokens[0] != "mcp":
        raise CommandError(outside_mcp_message(raw))
    return path


def _server_of(path: ConfigPath) -> str:
    """The server a path is inside (``mcp.servers.<name>…``), ``""`` for paths above the servers."""
    keys = path.keys
    return keys[2] if len(keys) >= 3 and keys[1] == "servers" else ""


def _servers(document: dict[str, Any]) -> dict[str, Any]:
    mcp = document.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    return servers if isinstance(servers, dict) else {}


def _reload_off(document: dict[str, Any]) -> bool:
    found, mode = get_at(document, ["gateway", "reload", "mode"])
    return found and mode == "off"


class ConfigPaths:
    """The ``mcp`` section read and edited by path."""

    def __init__(self, config: ConfigService, clearing: Clearing) -> None:
        self._config = config
        self._clearing = clearing

    @property
    def path(self) -> str:
        return self._config.path

    async def get(self, raw: str) -> Any:
        """The value at ``raw`` as ``config get`` shows it (schema order, secrets redacted).

        Raises ``CommandError`` for a bad, outside or unset path and ``InvalidConfigError`` for an invalid
        config."""
        path = _mcp_path(raw)
        text, analysis = await self._config.inspect()
        if text is not None and not analysis.valid:
            raise InvalidConfigError(self.path, analysis)
        document = analysis.document
        view = {"mcp": mcp_view(document["mcp"])} if "mcp" in document else {}
        found, value = get_at(view, path.keys)
        if not found:
            if is_known_mcp_path(path.keys):
                raise CommandError(
                    f"Config path is valid but unset: {raw}. The runtime default applies until you set an "
                    f"authored value with openclaw config set {posix_quote(raw)} <value>."
                )
            raise CommandError(f"Unknown config path: {raw}. Run openclaw config schema to inspect valid paths.")
        return value

    async def set(self, raw: str, raw_value: str, *, strict: bool) -> str:
        """Set the value at ``raw``; returns the line to print (``Updated …`` or ``No change``)."""
        await self._config.load()
        path = _mcp_path(raw)
        try:
            value = parse_set_value(raw_value, strict=strict)
        except SetValueError as exc:
            raise CommandError(str(exc)) from exc

        def change(authored: dict[str, Any]) -> dict[str, Any]:
            import copy  # deferred: only writes copy the document

            after = copy.deepcopy(authored)
            try:
                set_at(after, path, copy.deepcopy(value))
            except PathError as exc:
                raise CommandError(str(exc)) from exc
            if after == authored:
                raise _Unchanged
            return after

        return await self._commit(path, change, "Updated")

    async def unset(self, raw: str) -> str:
        """Remove the value at ``raw``; returns the ``Removed …`` line."""
        await self._config.load()
        path = _mcp_path(raw)

        def change(authored: dict[str, Any]) -> dict[str, Any]:
            import copy  # deferred: only writes copy the document

            after = copy.deepcopy(authored)
            if not unset_at(after, path.keys):
                raise CommandError(
                    f"Config path not found: {format_path(path.tokens)}. Nothing was changed. Run openclaw config "
                    "get <path> first if you are unsure of the path."
                )
            return after

        return await self._commit(path, change, "Removed")

    async def _commit(self, path: ConfigPath, change: Callable[[dict[str, Any]], dict[str, Any]], action: str) -> str:
        try:
            committed = await self._config.commit_document("config set", _server_of(path), change, self._after_write)
        except _Unchanged:
            return "No change"
        except ChangeInvalidError as exc:
            first = exc.issues[0]
            raise CommandError(f"Config validation failed: {first.dotted}: {first.message}") from exc
        paths = changed_leaf_paths(committed.before.get("mcp"), committed.after.get("mcp"))
        hint = apply_hint(paths, reload_off=_reload_off(committed.after))
        return f"{action} {format_path(path.tokens, committed.after)}. {hint}"

    async def _after_write(self, committed: Committed) -> None:
        before, after = _servers(committed.before), _servers(committed.after)
        for name in dict.fromkeys([*before, *after]):
            if before.get(name) == after.get(name):
                continue
            clear = self._clearing(name)
            if clear is not None:
                await clear(committed)

    async def validate(self) -> Validation:
        """The file's analysis (``config validate``)."""
        text, analysis = await self._config.inspect()
        return Validation(self.path, text is not None, analysis)

    async def repair(self) -> Repair:
        """Migrate the legacy keys of ``mcp.servers`` / ``nodeHost.mcp.servers`` (``doctor``). The file is
        written (with its ``.bak``) only when the migrated config is valid, as the reference does."""
        text, before = await self._config.inspect()
        changes: list[str] = []
        remaining: list[Issue] = []

        async def change(authored: dict[str, Any]) -> dict[str, Any]:
            after, lines = migrate_legacy_mcp(authored)
            changes[:] = lines
            remaining[:] = await self._config.validate_document(after) if lines else []
            return authored if remaining else after

        committed = await self._config.commit_repair(change) if text is not None else None
        return Repair(self.path, text is not None, tuple(changes), committed is not None, before, tuple(remaining))
