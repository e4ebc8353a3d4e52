"""Model-facing agent tool names and the materialisation of a catalog into agent tools (spec
client-runtime §5.3–§5.5, §6.6, §9.1).

upstream: ``src/agents/agent-bundle-mcp-names.ts`` (``buildSafeToolName``, ``normalizeReservedToolNames``)
and ``src/agents/agent-bundle-mcp-materialize.ts`` (``buildBundleMcpToolsFromCatalog``,
``buildAppToolPolicyProjections``).

Materialisation here is pure: it decides names, order, labels, descriptions, parameter schemas, execution
modes and metadata, and returns the rename warnings as text. The application attaches the executors
(``AgentToolSpec.executable``) and logs the warnings.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from dataclasses import dataclass
from typing import Any, Literal

from openclaw_mcp.domain.catalog import Catalog, CatalogTool, CollationKey
from openclaw_mcp.domain.names import SERVER_PREFIX_MAX, safe_name_sort_key, sanitize_fragment
from openclaw_mcp.domain.schemas import normalize_tool_parameters
from openclaw_mcp.domain.utility_tools import utility_operations, utility_tool_definition
from openclaw_mcp.jscompat.jsjson import JsonValue
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "TOOL_NAME_MAX_PREFIX",
    "TOOL_NAME_MAX_TOTAL",
    "TOOL_NAME_SEPARATOR",
    "AgentToolSpec",
    "ExecutionMode",
    "MaterializedTools",
    "build_app_tool_policy_projections",
    "build_safe_tool_name",
    "build_tools_from_catalog",
    "is_app_only",
    "normalize_reserved_tool_names",
    "rename_warning",
]

TOOL_NAME_SEPARATOR = "__"
TOOL_NAME_MAX_PREFIX = SERVER_PREFIX_MAX
TOOL_NAME_MAX_TOTAL = 64

ExecutionMode = Literal["parallel", "sequential"]


def normalize_reserved_tool_names(names: Iterable[object] | None) -> set[str]:
    """The caller's reserved tool names, trimmed and lowercased, empties and non-strings dropped."""
    out: set[str] = set()
    for name in names or ():
        if isinstance(name, str) and js_trim(name):
            out.add(js_trim(name).lower())
    return out


def build_safe_tool_name(safe_server_name: str, tool_name: str, reserved: Set[str]) -> str:
    """``<safe server>__<safe tool fragment>``, at most 64 characters (with a safe server name ≤ 30), with
    ``-2``, ``-3`` … until its lowercase form is not in ``reserved`` (§5.3). The caller reserves the result.

    ``("memory", "status", {"memory__status"})`` → ``memory__status-2``; ``("s", "a🚀")`` → ``s__a--``.
    """
    clean = sanitize_fragment(js_trim(tool_name), "tool")  # JS trim first: str.strip() keeps U+FEFF
    max_tool = max(1, TOOL_NAME_MAX_TOTAL - len(safe_server_name) - len(TOOL_NAME_SEPARATOR))
    truncated = clean[:max_tool] or "tool"
    candidate = f"{safe_server_name}{TOOL_NAME_SEPARATOR}{truncated}"
    n = 2
    while candidate.lower() in reserved:
        suffix = f"-{n}"
        candidate = f"{safe_server_name}{TOOL_NAME_SEPARATOR}{truncated[: max(1, max_tool - len(suffix))]}{suffix}"
        n += 1
    return candidate


def rename_warning(tool_name: str, server_name: str, agent_tool_name: str) -> str:
    """The warning for a real tool whose agent name is not ``<safe server>__<trimmed tool name>``."""
    return (
        f'bundle-mcp: tool "{tool_name}" from server "{server_name}" registered as "{agent_tool_name}" '
        "to keep the tool name provider-safe."
    )


def is_app_only(tool: CatalogTool) -> bool:
    """``_meta.ui.visibility`` given and without ``model`` (``[]`` is app-only)."""
    return tool.ui_visibility is not None and "model" not in tool.ui_visibility


@dataclass(frozen=True, slots=True)
class AgentToolSpec:
    """One model-facing agent tool (everything but its executor).

    ``operation`` is ``tool`` for a real MCP tool (then ``catalog_tool`` is set) or a utility operation.
    ``executable`` is false for session-denied inventory entries and App policy projections: executing
    them fails with ``INVENTORY_ONLY_ERROR`` / ``APP_POLICY_PROJECTION_ERROR``.
    """

    name: str
    label: str
    description: str
    parameters: JsonValue
    execution_mode: ExecutionMode
    server_name: str
    safe_server_name: str
    tool_name: str
    operation: str
    executable: bool = True
    excluded_from_openclaw_catalog: bool = False
    denied_by_session: bool = False
    catalog_tool: CatalogTool | None = None

    def plugin_meta(self) -> dict[str, Any]:
        """The tool metadata ``{pluginId: "bundle-mcp", optional: false, mcp: {...}}``."""
        mcp: dict[str, Any] = {
            "serverName": self.server_name,
            "safeServerName": self.safe_server_name,
            "toolName": self.tool_name,
            "operation": self.operation,
        }
        if self.excluded_from_openclaw_catalog:
            mcp["excludedFromOpenClawCatalog"] = True
        if self.denied_by_session:
            mcp["deniedBySession"] = True
        return {"pluginId": "bundle-mcp", "optional": False, "mcp": mcp}


@dataclass(frozen=True, slots=True)
class MaterializedTools:
    """Agent tools sorted by name, and the rename warnings in emission order."""

    tools: tuple[AgentToolSpec, ...]
    warnings: tuple[str, ...] = ()


def _execution_mode(catalog: Catalog, server_name: str) -> ExecutionMode:
    entry = catalog.servers.get(server_name)
    return "parallel" if entry is not None and entry.supports_parallel_tool_calls else "sequential"


def _catalog_order(key: CollationKey) -> Any:
    def order(tool: CatalogTool) -> tuple[Any, Any, Any]:
        return safe_name_sort_key(tool.safe_server_name), key(tool.tool_name), key(tool.server_name)

    return order


def _by_name(tools: Iterable[AgentToolSpec]) -> tuple[AgentToolSpec, ...]:
    return tuple(sorted(tools, key=lambda tool: safe_name_sort_key(tool.name)))


def build_tools_from_catalog(
    catalog: Catalog,
    key: CollationKey,
    *,
    reserved_tool_names: Iterable[object] | None = None,
    include_session_denied: bool = False,
    include_app_only_inventory: bool = False,
) -> MaterializedTools:
    """Project a catalog into agent tools (§5.5, upstream ``buildBundleMcpToolsFromCatalog``).

    Primary pass: the catalog's tools sorted by (safe server name, tool name, server name) — ``key`` is
    the raw-name collation — skipping app-only tools and empty names, named in that order against the
    reserved names; then, per server sorted by server name, its utility tools. The list is sorted by
    agent tool name.

    ``include_session_denied`` / ``include_app_only_inventory`` run a secondary pass as the reference
    does: the primary pass first, then the session-denied tools and denied utility operations (not
    executable, ``denied_by_session``), resp. the app-only tools, named after every primary name; the
    result holds both passes, sorted together. Warnings are those of every pass run (the primary pass's
    are repeated, as the reference logs them again).
    """
    initial = normalize_reserved_tool_names(reserved_tool_names)
    if include_app_only_inventory:
        base = build_tools_from_catalog(
            catalog, key, reserved_tool_names=initial, include_session_denied=include_session_denied
        )
    elif include_session_denied:
        base = build_tools_from_catalog(catalog, key, reserved_tool_names=initial)
    else:
        base = MaterializedTools(())
    tools = list(base.tools)
    warnings = list(base.warnings)
    reserved = initial | {tool.name.lower() for tool in tools}
    denied_pass = include_session_denied  # as upstream, also during an app-only pass that has both flags
    if include_app_only_inventory:
        source: Iterable[CatalogTool] = [tool for tool in catalog.tools if is_app_only(tool)]
    elif denied_pass:
        source = catalog.session_denied_tools or ()
    else:
        source = catalog.tools
    for tool in sorted(source, key=_catalog_order(key)):
        app_only = is_app_only(tool)
        if app_only and not include_app_only_inventory:
            continue
        original = js_trim(tool.tool_name)
        if not original:
            continue
        name = build_safe_tool_name(tool.safe_server_name, original, reserved)
        if name != f"{tool.safe_server_name}{TOOL_NAME_SEPARATOR}{original}":
            warnings.append(rename_warning(tool.tool_name, tool.server_name, name))
        reserved.add(name.lower())
        tools.append(
            AgentToolSpec(
                name=name,
                label=tool.title if tool.title is not None else tool.tool_name,
                description=tool.description or tool.fallback_description,
                parameters=normalize_tool_parameters(tool.input_schema),
                execution_mode=_execution_mode(catalog, tool.server_name),
                server_name=tool.server_name,
                safe_server_name=tool.safe_server_name,
                tool_name=tool.tool_name,
                operation="tool",
                executable=not denied_pass,
                excluded_from_openclaw_catalog=tool.excluded_from_openclaw_catalog or app_only,
                denied_by_session=tool.denied_by_session,
                catalog_tool=tool,
            )
        )
    for server_name in sorted(catalog.servers, key=key):
        server = catalog.servers[server_name]
        safe = server.safe_server_name or server.server_name
        mode: ExecutionMode = "parallel" if server.supports_parallel_tool_calls else "sequential"
        for operation in utility_operations(server, session_denied_only=denied_pass):
            definition = utility_tool_definition(operation, server.server_name)
            name = build_safe_tool_name(safe, operation, reserved)
            reserved.add(name.lower())
            tools.append(
                AgentToolSpec(
                    name=name,
                    label=definition.label,
                    description=definition.description,
                    parameters=normalize_tool_parameters(definition.parameters),
                    execution_mode=mode,
                    server_name=server.server_name,
                    safe_server_name=safe,
                    tool_name=operation,
                    operation=operation,
                    executable=not denied_pass,
                    denied_by_session=denied_pass,
                )
            )
    return MaterializedTools(_by_name(tools), tuple(warnings))


def build_app_tool_policy_projections(
    catalog: Catalog,
    model_tools: Iterable[AgentToolSpec],
    key: CollationKey,
    *,
    reserved_tool_names: Iterable[object] | None = None,
) -> tuple[AgentToolSpec, ...]:
    """The App-tool policy view (§5.5): the model's real tools plus the app-only tools, which are named
    after every model tool name (reserved names included), sorted by (safe server name, tool name); the
    result is sorted by agent tool name. The app-only projections are not executable (the reference gives
    them no execution mode; ``execution_mode`` is ``sequential`` here)."""
    model = list(model_tools)
    tools = [tool for tool in model if tool.operation == "tool"]
    reserved = normalize_reserved_tool_names([*(reserved_tool_names or ()), *(tool.name for tool in model)])
    app_only = sorted(
        (tool for tool in catalog.tools if is_app_only(tool)),
        key=lambda tool: (safe_name_sort_key(tool.safe_server_name), key(tool.tool_name)),
    )
    for tool in app_only:
        name = build_safe_tool_name(tool.safe_server_name, tool.tool_name, reserved)
        reserved.add(name.lower())
        tools.append(
            AgentToolSpec(
                name=name,
                label=tool.title if tool.title is not None else tool.tool_name,
                description=tool.description or tool.fallback_description,
                parameters=normalize_tool_parameters(tool.input_schema),
                execution_mode="sequential",
                server_name=tool.server_name,
                safe_server_name=tool.safe_server_name,
                tool_name=tool.tool_name,
                operation="tool",
                executable=False,
                catalog_tool=tool,
            )
        )
    return _by_name(tools)
