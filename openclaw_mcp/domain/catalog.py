"""The MCP tool catalog: data model, per-server normalisation and merge (spec client-runtime §4.3–§4.4,
§4.7, §4.12–§4.14, §4.16).

upstream: ``src/agents/agent-bundle-mcp-runtime.ts`` (catalog build), ``mcp-tool-metadata.ts``
(``normalizeMcpToolCatalog``), ``mcp-metadata.ts`` (``sanitizeMcpMetadataText``),
``agent-bundle-mcp-combined.ts`` (``mergeMcpToolCatalogs``). The listing shape check is in
:mod:`domain.tool_listing`, the diagnostic and metadata texts in :mod:`domain.catalog_text`.

Everything here is pure; the application owns connections, clocks (``generated_at`` is passed in) and the
result validators built from :meth:`NormalizedTools.output_schemas`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from openclaw_mcp.domain.catalog_text import sanitize_metadata_text
from openclaw_mcp.domain.codex import codex_annotations
from openclaw_mcp.domain.failure import FailureDetail
from openclaw_mcp.domain.filters import ToolFilter, is_tool_allowed
from openclaw_mcp.domain.names import safe_name_sort_key
from openclaw_mcp.jscompat.jsjson import JsonValue, js_ordered_keys, js_truthy
from openclaw_mcp.jscompat.text import js_trim, utf16_key

if TYPE_CHECKING:
    from openclaw_mcp.domain.tool_pins import PinReport

__all__ = [
    "CATALOG_VERSION",
    "RETIRED_RUNTIME_MESSAGE",
    "CapabilitySummary",
    "Catalog",
    "CatalogTool",
    "CollationKey",
    "Diagnostic",
    "NormalizedTools",
    "ServerCapabilities",
    "ServerEntry",
    "build_server_catalog",
    "diagnostic_catalog",
    "empty_catalog",
    "merge_catalogs",
    "normalize_listed_tools",
    "retired_catalog",
    "summarize_capabilities",
    "ui_resource_uri",
    "ui_visibility",
    "with_retry_diagnostic",
]

CATALOG_VERSION = 1
RETIRED_RUNTIME_MESSAGE = "MCP server runtime retired; retry discovery on the next turn."

CollationKey = Callable[[str], Any]
"""A sort key reproducing ``String.prototype.localeCompare`` (the application passes the UCA collator's)."""


# ---------------------------------------------------------------------------------------------------
# Data model (§4.3)
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CapabilitySummary:
    """An advertised ``resources``/``prompts``/``tools`` capability; ``filtered_count`` only for tools,
    and only when non-zero (listed − included)."""

    list_changed: bool
    filtered_count: int | None = None


@dataclass(frozen=True, slots=True)
class ServerCapabilities:
    resources: CapabilitySummary | None = None
    prompts: CapabilitySummary | None = None
    tools: CapabilitySummary | None = None


@dataclass(frozen=True, slots=True)
class ServerEntry:
    server_name: str
    safe_server_name: str
    launch_summary: str
    tool_count: int
    request_timeout_ms: int
    supports_parallel_tool_calls: bool
    resources: CapabilitySummary | None = None
    prompts: CapabilitySummary | None = None
    tools: CapabilitySummary | None = None
    tool_filter: ToolFilter | None = None
    denied_tool_names: tuple[str, ...] = ()
    codex_approval_mode: str | None = None
    """The session deny set, sorted by UTF-16 code units; empty when absent."""
    pins: PinReport | None = None
    """A pinned server's held and removed tools (issue 35); ``None`` for a server without pins."""


@dataclass(frozen=True, slots=True)
class CatalogTool:
    server_name: str
    safe_server_name: str
    tool_name: str
    input_schema: JsonValue
    fallback_description: str
    title: str | None = None
    description: str | None = None
    ui_resource_uri: str | None = None
    ui_visibility: tuple[str, ...] | None = None
    excluded_from_openclaw_catalog: bool = False
    denied_by_session: bool = False
    codex_annotations: tuple[tuple[str, bool], ...] = ()


@dataclass(frozen=True, slots=True)
class Diagnostic:
    server_name: str
    safe_server_name: str
    launch_summary: str
    message: str
    detail: FailureDetail | None = None
    """Why the server failed, beyond ``message`` (the reference's text; issue 36): never rendered into it."""


@dataclass(frozen=True, slots=True)
class Catalog:
    """A runtime's inventory. ``policy_tools``/``session_denied_tools``/``diagnostics`` are ``None`` when
    absent; a built server catalog carries (possibly empty) ``policy_tools`` and ``session_denied_tools``."""

    generated_at: int
    servers: Mapping[str, ServerEntry]
    tools: tuple[CatalogTool, ...]
    policy_tools: tuple[CatalogTool, ...] | None = None
    session_denied_tools: tuple[CatalogTool, ...] | None = None
    diagnostics: tuple[Diagnostic, ...] | None = None
    version: int = CATALOG_VERSION


def empty_catalog(generated_at: int) -> Catalog:
    """The catalog of a server whose definition does not resolve (§4.4 step 2): no diagnostic."""
    return Catalog(generated_at=generated_at, servers={}, tools=())


def diagnostic_catalog(generated_at: int, diagnostic: Diagnostic) -> Catalog:
    """The catalog of a failed build (§4.4 step 9)."""
    return Catalog(generated_at=generated_at, servers={}, tools=(), diagnostics=(diagnostic,))


def retired_catalog(generated_at: int, server_name: str, safe_server_name: str) -> Catalog:
    """The catalog a disposed server runtime reports (§4.13); ``launch_summary`` is the server name."""
    diagnostic = Diagnostic(server_name, safe_server_name, server_name, RETIRED_RUNTIME_MESSAGE)
    return diagnostic_catalog(generated_at, diagnostic)


def with_retry_diagnostic(catalog: Catalog | None, server_name: str, message: str) -> Catalog | None:
    """``schedule_retry(message)`` (§4.7): the stored catalog keeping its servers and tools, with one
    diagnostic (a copy of its first one with ``message``, else built from the server entry). ``None``
    means: invalidate instead."""
    if catalog is None:
        return None
    if catalog.diagnostics:
        diagnostic = replace(catalog.diagnostics[0], message=message, detail=None)
    else:
        entry = catalog.servers.get(server_name)
        if entry is None:
            return None
        diagnostic = Diagnostic(server_name, entry.safe_server_name, entry.launch_summary, message)
    return replace(catalog, diagnostics=(diagnostic,))


# ---------------------------------------------------------------------------------------------------
# Normalising one server's listing (§4.4 steps 7–8)
# ---------------------------------------------------------------------------------------------------


def _summary(capabilities: Mapping[str, Any], key: str) -> CapabilitySummary | None:
    value = capabilities.get(key)
    if not js_truthy(value):
        return None
    return CapabilitySummary(list_changed=isinstance(value, dict) and value.get("listChanged") is True)


def summarize_capabilities(capabilities: object) -> ServerCapabilities:
    """The ``resources``/``prompts``/``tools`` summaries of the server's initialize capabilities."""
    if not isinstance(capabilities, dict):
        return ServerCapabilities()
    return ServerCapabilities(
        resources=_summary(capabilities, "resources"),
        prompts=_summary(capabilities, "prompts"),
        tools=_summary(capabilities, "tools"),
    )


@dataclass(frozen=True, slots=True)
class NormalizedTools:
    """A classified listing; every tool is the listed dict with its trimmed ``name``."""

    included: tuple[dict[str, Any], ...]
    denied: tuple[dict[str, Any], ...]
    excluded: tuple[dict[str, Any], ...]
    listed_count: int

    @property
    def filtered_count(self) -> int:
        """Listed entries (including empty names, duplicates, task-only, filtered, denied) − included."""
        return self.listed_count - len(self.included)

    def output_schemas(self) -> dict[str, JsonValue]:
        """``outputSchema`` of each included tool that has one (build a result validator per entry, §8.3;
        a failure there fails the whole listing)."""
        return {tool["name"]: tool["outputSchema"] for tool in self.included if tool.get("outputSchema") is not None}


def normalize_listed_tools(
    tools: Sequence[Mapping[str, Any]],
    tool_filter: ToolFilter | None,
    denied_tool_names: Set[str] = frozenset(),
) -> NormalizedTools:
    """Classify a validated listing (upstream ``normalizeMcpToolCatalog``).

    Names are trimmed; empty names are dropped; a name listed more than once excludes every occurrence;
    ``execution.taskSupport == "required"`` excludes; then the filter excludes, the deny set denies, and
    the rest is included. Order within each class is listing order.
    """
    names = [js_trim(str(tool.get("name", ""))) for tool in tools]
    counts: dict[str, int] = {}
    for name in names:
        if name:
            counts[name] = counts.get(name, 0) + 1
    included: list[dict[str, Any]] = []
    denied: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    for source, name in zip(tools, names, strict=True):
        if not name:
            continue
        tool = {**source, "name": name}
        execution = source.get("execution")
        task_only = isinstance(execution, dict) and execution.get("taskSupport") == "required"
        if counts[name] != 1 or task_only or not is_tool_allowed(tool_filter, name):
            excluded.append(tool)
        elif name in denied_tool_names:
            denied.append(tool)
        else:
            included.append(tool)
    return NormalizedTools(tuple(included), tuple(denied), tuple(excluded), len(tools))


def ui_resource_uri(meta: object) -> str | None:
    """``_meta.ui.resourceUri`` (else ``_meta["ui/resourceUri"]``) when it is a ``ui://`` string."""
    if not isinstance(meta, dict):
        return None
    ui = meta.get("ui")
    raw = ui.get("resourceUri") if isinstance(ui, dict) else None
    if raw is None:
        raw = meta.get("ui/resourceUri")
    return raw if isinstance(raw, str) and raw.startswith("ui://") else None


def ui_visibility(meta: object) -> tuple[str, ...] | None:
    """The ``app``/``model`` entries of ``_meta.ui.visibility``, de-duplicated and sorted; ``None`` unless
    it is a list (``[]`` gives ``()``, which makes the tool app-only)."""
    ui = meta.get("ui") if isinstance(meta, dict) else None
    visibility = ui.get("visibility") if isinstance(ui, dict) else None
    if not isinstance(visibility, list):
        return None
    return tuple(sorted({entry for entry in visibility if entry in ("app", "model")}))


def build_server_catalog(
    *,
    server_name: str,
    safe_server_name: str,
    launch_summary: str,
    request_timeout_ms: int,
    supports_parallel_tool_calls: bool,
    capabilities: ServerCapabilities,
    normalized: NormalizedTools,
    tool_filter: ToolFilter | None,
    denied_tool_names: Set[str],
    generated_at: int,
    codex_approval_mode: str | None = None,
) -> Catalog:
    """The catalog of one successfully listed server (§4.4 step 8)."""
    tools_capability = capabilities.tools
    if tools_capability is not None and normalized.filtered_count:
        tools_capability = replace(tools_capability, filtered_count=normalized.filtered_count)
    entry = ServerEntry(
        server_name=server_name,
        safe_server_name=safe_server_name,
        launch_summary=launch_summary,
        tool_count=len(normalized.included),
        request_timeout_ms=request_timeout_ms,
        supports_parallel_tool_calls=supports_parallel_tool_calls,
        resources=capabilities.resources,
        prompts=capabilities.prompts,
        tools=tools_capability,
        tool_filter=tool_filter,
        denied_tool_names=tuple(sorted(denied_tool_names, key=utf16_key)),
        codex_approval_mode=codex_approval_mode,
    )
    fallback = f'Provided by bundle MCP server "{server_name}" ({launch_summary}).'

    def catalog_tool(tool: Mapping[str, Any], excluded: bool, denied: bool) -> CatalogTool:
        meta = tool.get("_meta")
        title = tool.get("title")
        return CatalogTool(
            server_name=server_name,
            safe_server_name=safe_server_name,
            tool_name=tool["name"],
            input_schema=tool.get("inputSchema"),
            fallback_description=fallback,
            title=title if isinstance(title, str) else None,
            description=sanitize_metadata_text(tool.get("description")),
            ui_resource_uri=ui_resource_uri(meta),
            ui_visibility=ui_visibility(meta),
            excluded_from_openclaw_catalog=excluded,
            denied_by_session=denied,
            codex_annotations=tuple(codex_annotations(tool.get("annotations")).items()),
        )

    included = tuple(catalog_tool(tool, False, False) for tool in normalized.included)
    denied = tuple(catalog_tool(tool, False, True) for tool in normalized.denied)
    excluded = tuple(catalog_tool(tool, True, tool["name"] in denied_tool_names) for tool in normalized.excluded)
    return Catalog(
        generated_at=generated_at,
        servers={server_name: entry},
        tools=included,
        policy_tools=included + denied + excluded,
        session_denied_tools=denied,
    )


# ---------------------------------------------------------------------------------------------------
# Merge (§4.14)
# ---------------------------------------------------------------------------------------------------


def merge_catalogs(catalogs: Iterable[Catalog], key: CollationKey) -> Catalog:
    """Merge per-server catalogs in part order (upstream ``mergeMcpToolCatalogs``).

    Each part's servers are taken sorted by server name (``key``), the resulting map is in JavaScript
    property order; ``tools``/``policy_tools``/``session_denied_tools`` are concatenated and sorted by
    (safe server name, tool name, server name); diagnostics keep part order; empty optional lists are
    omitted; ``generated_at`` is the maximum (at least 0).
    """
    servers: dict[str, ServerEntry] = {}
    tools: list[CatalogTool] = []
    policy: list[CatalogTool] = []
    denied: list[CatalogTool] = []
    diagnostics: list[Diagnostic] = []
    generated_at = 0
    for catalog in catalogs:
        for name in sorted(js_ordered_keys(catalog.servers), key=key):
            servers[name] = catalog.servers[name]
        tools.extend(catalog.tools)
        if catalog.policy_tools is not None:
            policy.extend(catalog.policy_tools)
        else:
            policy.extend(catalog.tools + (catalog.session_denied_tools or ()))
        denied.extend(catalog.session_denied_tools or ())
        diagnostics.extend(catalog.diagnostics or ())
        generated_at = max(generated_at, catalog.generated_at)

    def order(tool: CatalogTool) -> tuple[Any, Any, Any]:
        return safe_name_sort_key(tool.safe_server_name), key(tool.tool_name), key(tool.server_name)

    return Catalog(
        generated_at=generated_at,
        servers={name: servers[name] for name in js_ordered_keys(servers)},
        tools=tuple(sorted(tools, key=order)),
        policy_tools=tuple(sorted(policy, key=order)) or None,
        session_denied_tools=tuple(sorted(denied, key=order)) or None,
        diagnostics=tuple(diagnostics) or None,
    )
