"""``openclaw mcp export`` and ``openclaw mcp import``: ``mcp.servers`` to and from other MCP clients' files.

Export reads the config (authored servers, so ``${VAR}`` references stay references), maps every server
with the format's module of ``domain.interchange`` and merges the entries into the client's file through the
``ForeignFiles`` port. Import reads the client's files through the port, maps each entry, canonicalises and
validates it exactly as ``openclaw mcp set`` does (``domain.canonical`` and the config service's validation)
and commits every accepted server in one write through the same locked config store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.config_service import Committed, ConfigService, OnCommitted
from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.application.ports.foreign_files import ForeignFileError, ForeignFiles, ForeignUpdate, WrittenFile
from openclaw_mcp.domain.canonical import canonicalize_server
from openclaw_mcp.domain.config_doc import mutate_servers
from openclaw_mcp.domain.interchange import claude, codex, cursor, gemini, hermes, vscode
from openclaw_mcp.domain.interchange._json import JsonFormat, export_entry, import_document
from openclaw_mcp.domain.interchange.formats import SYNTAX
from openclaw_mcp.domain.interchange.model import Exported, Imported, ImportedServer, Variable
from openclaw_mcp.domain.projection.codex import CodexProjectionError, codex_agent_allowed, is_requester_scoped
from openclaw_mcp.domain.projection.oauth_bearer import needs_bearer

if TYPE_CHECKING:
    from openclaw_mcp.application.ports.oauth import OAuthStatusReader

__all__ = ["ExportReport", "ExportRequest", "ImportReport", "ImportRequest", "ImportSource", "Interchange"]

_JSON_FORMATS: dict[str, JsonFormat] = {
    "claude": claude.CLAUDE,
    "cursor": cursor.CURSOR,
    "vscode": vscode.VSCODE,
    "gemini": gemini.GEMINI,
}
_TOP_KEY = {"claude": "mcpServers", "cursor": "mcpServers", "vscode": "servers", "gemini": "mcpServers",
            "codex": "mcp_servers"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ExportRequest:
    format: str
    path: str
    """The file to merge into; ``-`` prints the document instead."""
    agent: str | None = None
    include_secrets: bool = False


@dataclass(slots=True)
class ExportReport:
    format: str
    path: str
    servers: list[str]
    variables: list[Variable]
    warnings: list[str]
    notes: list[str]
    text: str | None = None
    written: WrittenFile | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "path": self.path,
            "servers": self.servers,
            "variables": [variable.as_json() for variable in self.variables],
            "warnings": self.warnings,
        }


@dataclass(frozen=True, slots=True)
class ImportSource:
    """One file to read: its path, and for Claude's ``~/.claude.json`` project entry the project key."""

    path: str
    label: str
    kind: str
    """``claude-project`` (``mcpServers`` else the whole object), ``claude-user``, ``claude-user-project``,
    ``claude-desktop``, or the source name of the other formats."""
    project: str | None = None


@dataclass(frozen=True, slots=True)
class ImportRequest:
    source: str
    files: tuple[ImportSource, ...]
    explicit: bool
    """FILE was given (or the source has a single default file): a missing file is an error."""
    dry_run: bool = False
    overwrite: bool = False


@dataclass(slots=True)
class ImportReport:
    source: str
    path: str
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    manual: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    dry_run: bool = False
    written: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "path": self.path,
            "files": self.files,
            "dryRun": self.dry_run,
            "written": self.written,
            "imported": list(self.servers),
            "servers": self.servers,
            "skipped": [{"name": name, "reason": reason} for name, reason in self.skipped],
            "warnings": self.warnings,
            "manual": self.manual,
            "problems": self.problems,
        }


Clearing = Callable[[str], OnCommitted | None]


class Interchange:
    """The export and import use cases."""

    def __init__(
        self,
        config: ConfigService,
        files: ForeignFiles,
        oauth: OAuthStatusReader | None = None,
        sort: Callable[[Iterable[str]], list[str]] = sorted,
        clearing: Clearing | None = None,
    ) -> None:
        self._config = config
        self._files = files
        self._oauth = oauth
        self._sort = sort
        self._clearing = clearing

    # -- export ------------------------------------------------------------------------------------

    async def _token(self, name: str, server: Mapping[str, Any]) -> str | None:
        if self._oauth is None or not needs_bearer(server) or is_requester_scoped(server):
            return None
        from openclaw_mcp.domain.names import operator_store_key
        from openclaw_mcp.domain.transport import HttpConfig, resolve_transport

        config = resolve_transport(name, server).config
        if not isinstance(config, HttpConfig):
            return None
        store = await self._oauth.read_store(operator_store_key(name, config.url))
        tokens = store.get("tokens") if isinstance(store, dict) else None
        token = tokens.get("access_token") if isinstance(tokens, dict) else None
        return token if isinstance(token, str) and token else None

    async def export(self, request: ExportRequest) -> ExportReport:
        """Map and write (or render) the servers; raises ``CommandError`` for a server Codex cannot express
        and ``ForeignFileError`` when the target file cannot be parsed or written (nothing written then)."""
        analysis = await self._config.load()
        mcp = analysis.authored.get("mcp")
        authored = mcp.get("servers") if isinstance(mcp, dict) else None
        authored = authored if isinstance(authored, dict) else {}
        out = Exported()
        for name in self._sort(analysis.servers):
            resolved = analysis.servers[name]
            server = authored[name] if isinstance(authored.get(name), dict) else resolved
            if request.agent is not None and not codex_agent_allowed(server, request.agent):
                continue
            token = await self._token(name, resolved) if request.include_secrets else None
            if request.format == "codex":
                try:
                    entry = codex.export_codex_entry(name, server, token, request.include_secrets, out)
                except CodexProjectionError as exc:
                    raise CommandError(f'export: server "{name}": {exc}') from exc
            else:
                entry = export_entry(_JSON_FORMATS[request.format], name, server, token, request.include_secrets, out)
            if entry is not None:
                out.entries[name] = entry
        update = ForeignUpdate(
            SYNTAX[request.format], _TOP_KEY[request.format], out.entries, out.inputs, request.include_secrets
        )
        report = ExportReport(request.format, request.path, list(out.entries), out.variables, out.warnings, out.notes)
        if request.path == "-":
            report.text = await self._files.render(update)
        else:
            report.written = await self._files.write(request.path, update)
        return report

    # -- import ------------------------------------------------------------------------------------

    async def _read(self, source: ImportSource, request: ImportRequest, report: ImportReport) -> Imported | None:
        syntax = SYNTAX.get(source.kind, SYNTAX.get(request.source, "json"))
        try:
            document = await self._files.read(source.path, syntax)
        except ForeignFileError as exc:
            report.problems.append(f"import: {exc}")
            return None
        if document is None:
            if request.explicit:
                report.problems.append(f"import: {source.path}: no such file")
            return None
        if source.path not in report.files:
            report.files.append(source.path)
        data, file = document.data, source.path
        match source.kind:
            case "claude-project":
                return claude.import_claude(file, data, source.label, whole_fallback=True)
            case "claude-user" | "claude-desktop":
                return claude.import_claude(file, data, source.label, whole_fallback=False)
            case "claude-user-project":
                projects = data.get("projects") if isinstance(data, dict) else None
                entry = projects.get(source.project) if isinstance(projects, dict) else None
                if not isinstance(entry, dict):
                    return Imported()
                key = f"projects[{source.project}].mcpServers"
                wrapped = {key: entry.get("mcpServers")} if "mcpServers" in entry else {}
                return claude.import_claude(file, wrapped, source.label, whole_fallback=False, top_key=key)
            case "codex":
                return codex.import_codex(file, data)
            case "hermes":
                return hermes.import_hermes(file, data)
            case _:
                return import_document(_JSON_FORMATS[source.kind], file, data, source.label)

    async def import_servers(self, request: ImportRequest) -> ImportReport:
        """Read, map, validate and (unless ``dry_run`` or a problem was found) commit in one write."""
        analysis = await self._config.load()
        report = ImportReport(request.source, self._config.path, dry_run=request.dry_run)
        results: list[Imported] = []
        for source in request.files:
            result = await self._read(source, request, report)
            if result is not None:
                results.append(result)
        if not request.explicit and not report.files and not report.problems:
            checked = ", ".join(dict.fromkeys(source.path for source in request.files))
            report.problems.append(f"import: no {request.source} MCP config found (checked {checked})")
        combined = claude.combine_sources(results) if request.source == "claude" else _concat(results)
        report.problems += [f"import: {problem}" for problem in combined.problems]
        report.warnings += combined.warnings
        report.manual += combined.manual
        report.skipped += combined.conflicts
        accepted = await self._accept(analysis.authored, analysis.servers, combined.servers, request, report)
        if report.problems:
            report.servers = {}
            return report
        report.servers = accepted
        if request.dry_run or not accepted:
            return report
        names = list(accepted)

        def change(servers: dict[str, Any]) -> None:
            for name in names:
                servers[name] = accepted[name]

        await self._config.commit("import", "", change, self._after(names) if request.overwrite else None)
        report.written = True
        return report

    async def _accept(
        self,
        authored: dict[str, Any],
        existing: Mapping[str, Any],
        candidates: Sequence[ImportedServer],
        request: ImportRequest,
        report: ImportReport,
    ) -> dict[str, dict[str, Any]]:
        accepted: dict[str, dict[str, Any]] = {}
        for candidate in candidates:
            name = candidate.name.strip()
            if not name or name == "__proto__":
                report.warnings.append(f"{candidate.where}: invalid server name, skipped")
                continue
            if name in accepted:
                report.skipped.append((name, f"defined more than once ({candidate.where})"))
                continue
            if name in existing and not request.overwrite:
                report.skipped.append((name, "target exists"))
                continue
            server = canonicalize_server(candidate.server)
            document = mutate_servers(authored, _setter(name, server))
            issues = [
                issue
                for issue in await self._config.validate_document(document)
                if issue.path[:3] == ("mcp", "servers", name)
            ]
            if issues:
                report.problems += [f"import: {candidate.where}: {issue.dotted}: {issue.message}" for issue in issues]
                continue
            accepted[name] = server
        return accepted

    def _after(self, names: Sequence[str]) -> OnCommitted | None:
        factory = self._clearing
        if factory is None:
            return None
        hooks = [hook for hook in (factory(name) for name in names) if hook is not None]
        if not hooks:
            return None

        async def run(committed: Committed) -> None:
            for hook in hooks:
                await hook(committed)

        return run


def _setter(name: str, server: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def change(servers: dict[str, Any]) -> None:
        servers[name] = server

    return change


def _concat(results: Sequence[Imported]) -> Imported:
    out = Imported()
    for result in results:
        out.extend(result)
    return out
