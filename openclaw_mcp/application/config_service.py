"""Loading the config (the guard every command passes) and committing a change to ``mcp.servers``
(spec cli-registry §1.2–§1.5)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.config_includes import IncludeAnswers, run_walk
from openclaw_mcp.application.errors import (
    ApplicationError,
    ChangeInvalidError,
    ConfigReadError,
    ConfigReadOnlyError,
    ConfigStoreError,
    InvalidConfigError,
    WriteRejectedError,
)
from openclaw_mcp.domain.config_doc import (
    COMPAT_VERSION,
    clobber_verdict,
    has_json5_comment,
    mutate_servers,
    prepare_written_document,
    serialize_config,
    substitute_env,
)
from openclaw_mcp.domain.config_issues import Issue, ValidatorThrew
from openclaw_mcp.domain.config_load import ConfigAnalysis, config_analysis, unreadable_config
from openclaw_mcp.domain.includes import IncludeError, IncludeResolution, include_walk
from openclaw_mcp.domain.record import Record
from openclaw_mcp.domain.validation import validate_config
from openclaw_mcp.jscompat.jsjson import js_order

if TYPE_CHECKING:  # annotations only: the lease port's value classes cost ≈2.5 ms at start-up, and commands
    # that never lease do not load it
    from openclaw_mcp.application.ports.clock import Clock
    from openclaw_mcp.application.ports.config import ConfigEdit, ConfigStore, ServerRefs
    from openclaw_mcp.application.ports.leases import LeaseStore

__all__ = ["Committed", "ConfigService", "DocumentChange", "OnCommitted", "Warn"]

Warn = Callable[[str], None]
ServersChange = Callable[[dict[str, Any]], None]
DocumentChange = Callable[[dict[str, Any]], dict[str, Any]]
RepairChange = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Maps the authored document to the one to write (a new object; the argument must not be changed)."""
Precondition = Callable[[str | None], None]
"""Checks the current file text under the write lock; raises to abort the write."""


class Committed(Record):
    """What a commit wrote: the config before and after (authored form)."""

    before: dict[str, Any]
    after: dict[str, Any]

    def server(self, name: str, *, after: bool) -> object:
        """Server ``name`` as authored after (or before) the write; ``None`` when absent."""
        mcp = (self.after if after else self.before).get("mcp")
        servers = mcp.get("servers") if isinstance(mcp, dict) else None
        return servers.get(name) if isinstance(servers, dict) else None


OnCommitted = Callable[[Committed], Awaitable[None]]


def _readonly_lines(env: Mapping[str, str], path: str) -> list[str] | None:
    nix = env.get("OPENCLAW_NIX_MODE") == "1"
    if not nix and env.get("OPENCLAW_CONFIG_READONLY") != "1":
        return None
    if not nix:
        return [
            "Config is externally managed (`OPENCLAW_CONFIG_READONLY=1`), so OpenClaw treats openclaw.json "
            "as immutable.",
            f"Config path: {path}",
            "Edit the config in your external deployment source, then redeploy or restart OpenClaw as needed.",
        ]
    return [
        "Config is managed by Nix (`OPENCLAW_NIX_MODE=1`), so OpenClaw treats openclaw.json as immutable.",
        "This usually means nix-openclaw, the first-party Nix distribution, or another Nix-managed package "
        "set this mode.",
        f"Config path: {path}",
        "Do not run setup, onboarding, openclaw update, plugin install/update/uninstall/enable, doctor "
        "repair/token-generation, or config set against this file.",
        "Edit the Nix source for this install instead. For nix-openclaw, edit `programs.openclaw.config` or "
        "`instances.<name>.config`, then rebuild with Home Manager or NixOS.",
        "Agent-first Nix setup: https://github.com/openclaw/nix-openclaw#quick-start",
        "OpenClaw Nix overview: https://docs.openclaw.ai/install/nix",
    ]


def version_skew_warning(version: str) -> str:
    return "\n".join(
        [
            f"Your OpenClaw config was written by version {version}, but this command is running {COMPAT_VERSION}.",
            "Check: `openclaw --version`, `which openclaw`, and `openclaw gateway status --deep`.",
            "If unexpected, update PATH so `openclaw` points to the version you want, or reinstall the Gateway "
            "service from that same OpenClaw install.",
        ]
    )


def _iso_stamp(ms: int) -> str:
    from datetime import UTC, datetime  # deferred (CLI start-up): only a rejected write needs it

    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    iso = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
    return iso.replace(":", "-").replace(".", "-")


class ConfigService:
    """The config file as the registry commands see it."""

    def __init__(
        self,
        store: ConfigStore,
        env: Mapping[str, str],
        clock: Clock,
        warn: Warn,
        refs: ServerRefs | None = None,
        lifecycle: LeaseStore | None = None,
    ) -> None:
        self._store = store
        self._refs = refs
        self._lifecycle = lifecycle
        self._env = env
        self._clock = clock
        self._warn = warn
        self._includes: IncludeAnswers | None = None  # the include files read by the latest analysis

    @property
    def path(self) -> str:
        return self._store.path

    async def _analyze(self, text: str | None) -> tuple[ConfigAnalysis, IncludeAnswers]:
        """``text`` analysed, its ``$include`` files read (afresh) through the store's include loader."""
        includes = IncludeAnswers(self._store.include_loader())
        analysis = await run_walk(config_analysis(text, self._env, self.path), includes)
        self._includes = includes
        return analysis, includes

    async def _check(self, text: str | None, *, announce: bool) -> tuple[ConfigAnalysis, IncludeAnswers]:
        analysis, includes = await self._analyze(text)
        if announce and analysis.missing_env:
            joined = "; ".join(
                f'{path}: Missing env var "{name}" - feature using this value will be unavailable'
                for path, name in analysis.missing_env
            )
            self._warn(f"[config] warnings: {joined}")
        if not analysis.valid:
            raise InvalidConfigError(self.path, analysis)
        return analysis, includes

    async def load(self) -> ConfigAnalysis:
        """Read and validate the config; raise ``InvalidConfigError`` when it exists and is invalid.

        Warns (through ``warn``) about missing env vars and about a config written by a newer version.
        """
        try:
            file = await self._store.read()
        except ConfigReadError as exc:
            raise InvalidConfigError(self.path, unreadable_config(str(exc))) from exc
        analysis, _ = await self._check(file.text, announce=True)
        if analysis.newer_version is not None:
            self._warn(version_skew_warning(analysis.newer_version))
        return analysis

    async def inspect(self) -> tuple[str | None, ConfigAnalysis]:
        """The current file text and its analysis, without raising for an invalid config or warning."""
        try:
            file = await self._store.read()
        except ConfigReadError as exc:
            return None, unreadable_config(str(exc))
        analysis, _ = await self._analyze(file.text)
        return file.text, analysis

    async def commit(
        self, label: str, server: str, change: ServersChange, on_committed: OnCommitted | None = None
    ) -> Committed:
        """Apply ``change`` to the authored ``mcp.servers`` map and write the result.

        The whole read → change → validate → write runs under the store's write lock, so concurrent
        writers never lose updates. ``change`` may raise ``CommandError`` to abort without writing.
        ``server`` names the entry the change is about: when it, ``mcp.servers`` or ``mcp`` comes from an
        ``$include`` file the change is refused (no write-through into include files, spec D7).
        ``on_committed`` runs once the file is written, still under the server's lifecycle lease (the OAuth
        clearing of tool-policy-and-lifecycle §4); what it raises propagates, the write stays.
        """

        def transform(authored: dict[str, Any]) -> dict[str, Any]:
            return mutate_servers(authored, change)

        return await self.commit_document(label, server, transform, on_committed)

    async def commit_document(
        self,
        label: str,
        server: str,
        change: DocumentChange,
        on_committed: OnCommitted | None = None,
        precondition: Precondition | None = None,
    ) -> Committed:
        """``commit`` for a change of the whole authored document (the settings page's editor and row actions).

        ``precondition`` sees the file text under the write lock first (the base-hash check). An empty
        ``server`` holds no lifecycle lease and marks no server independent.
        """
        lines = _readonly_lines(self._env, self.path)
        if lines is not None:
            raise ConfigReadOnlyError(lines)
        key = server.strip()
        if self._lifecycle is None or not key:
            return await self._commit(label, server, change, on_committed, precondition)
        from openclaw_mcp.application.ports.leases import MCP_LIFECYCLE_LEASE as policy  # deferred: see the imports

        async with self._lifecycle.hold(
            policy.scope, key, duration_ms=policy.duration_ms, wait_ms=policy.wait_ms, label=policy.label
        ):
            return await self._commit(label, server, change, on_committed, precondition)

    async def _commit(
        self,
        label: str,
        server: str,
        change: DocumentChange,
        on_committed: OnCommitted | None,
        precondition: Precondition | None,
    ) -> Committed:
        async with self._store.edit() as edit:
            current = edit.current
            if precondition is not None:
                precondition(current.text)
            analysis, includes = await self._check(current.text, announce=False)
            if analysis.includes is not None:
                conflict = analysis.includes.write_conflict(server)
                if conflict is not None:
                    where = ".".join(str(part) for part in conflict)
                    raise ApplicationError(f"Config include write-through is not supported for {where}.")
            after = change(analysis.authored)
            issues = self._issues(after, await self._resolve(after, includes))
            if issues:
                first = issues[0]
                raise ChangeInvalidError(f"Config invalid after MCP {label} ({first.dotted}: {first.message}).", issues)
            text = serialize_config(prepare_written_document(after, first_write=not current.exists))
            if current.text is not None:
                verdict = clobber_verdict(current.text, analysis.authored, text, parse_ok=True)
                if verdict is not None:
                    await self._reject(edit, text, verdict)
                if has_json5_comment(current.text):
                    self._warn(f"Config write will strip JSON5 comments from {self.path}.")
            await edit.replace(text)
        committed = Committed(analysis.authored, after)
        if on_committed is not None:
            await on_committed(committed)
        if self._refs is not None and label != "unset" and server:
            await self._refs.mark_independent(server, self._clock.now_ms())
        return committed

    async def commit_repair(self, change: RepairChange) -> Committed | None:
        """Write a repair of the authored document (``openclaw doctor``): unlike ``commit_document`` the current
        file need not be valid (repairing it is the point) and the result is not validated; the lock, the
        read-only modes, the clobber guard and the atomic write with its ``.bak`` ring are the same.

        Returns ``None`` (nothing written) when the file is missing, does not parse into an object, or
        ``change`` returns an equal document.
        """
        lines = _readonly_lines(self._env, self.path)
        if lines is not None:
            raise ConfigReadOnlyError(lines)
        async with self._store.edit() as edit:
            current = edit.current
            if current.text is None:
                return None
            analysis, _ = await self._analyze(current.text)
            before = analysis.authored
            after = await change(before)
            if not before or after == before:
                return None
            text = serialize_config(prepare_written_document(after, first_write=False))
            verdict = clobber_verdict(current.text, before, text, parse_ok=True)
            if verdict is not None:
                await self._reject(edit, text, verdict)
            if has_json5_comment(current.text):
                self._warn(f"Config write will strip JSON5 comments from {self.path}.")
            await edit.replace(text)
        return Committed(before, after)

    async def validate_document(self, document: dict[str, Any]) -> list[Issue]:
        """The issues a commit of ``document`` (authored form) would be refused for; empty when it is valid.
        ``$include`` files the latest analysis read (``load``, ``inspect``, a commit) are not read again."""
        includes = self._includes
        if includes is None:
            includes = self._includes = IncludeAnswers(self._store.include_loader())
        return self._issues(document, await self._resolve(document, includes))

    async def _resolve(self, document: dict[str, Any], includes: IncludeAnswers) -> IncludeResolution:
        try:
            return await run_walk(include_walk(document, self.path), includes)
        except IncludeError as exc:
            raise ApplicationError(exc.message) from exc

    def _issues(self, document: dict[str, Any], resolution: IncludeResolution) -> list[Issue]:
        """Validate a would-be config as the reader will see it (includes merged, env substituted)."""
        merged: Any = js_order(resolution.document) if resolution.sites else document
        try:
            return validate_config(substitute_env(merged, self._env).value)
        except ValidatorThrew as exc:
            raise ApplicationError(exc.message) from exc

    async def _reject(self, edit: ConfigEdit, text: str, verdict: tuple[int, int]) -> None:
        baseline, size = verdict
        head = f"Config write rejected: {self.path} (size-drop:{baseline}->{size})."
        stamp = _iso_stamp(self._clock.now_ms())
        try:
            saved = await edit.save_rejected(text, stamp)
        except ConfigStoreError as exc:  # the payload could not be saved: say so, still refuse
            target = f"{self.path}.rejected.{stamp}"
            raise WriteRejectedError(f"{head} Rejected payload could not be saved to {target}: {exc}.") from exc
        raise WriteRejectedError(f"{head} Rejected payload saved to {saved}.")
