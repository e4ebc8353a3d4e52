"""Which plugin tools the server serves (spec plugin-tools.md §3, §10 D-PT5/D-PT6): enablement, ``register``,
registry-level selection, tool checks, name conflicts, then the session's policy pipeline.

Every failure of one plugin — a malformed plugin object, ``register`` raising, a factory raising, a malformed
or undeclared tool — is one log line and leaves that plugin (or tool) out; nothing here raises for a plugin.

``register`` and the tool factories are plugin code that may never return: each runs under a deadline that
does not depend on its cooperation (:func:`~openclaw_mcp.application.abandonable.call_abandonable`; a factory's
own ``timeout_ms``, else :data:`DEFAULT_PLUGIN_CALL_TIMEOUT_MS`). Past it the plugin (or registration) is
skipped with one line — ``plugin failed to register (<id>): register timed out after <ms>ms``, ``plugin tool
failed (<id>): tool factory timed out after <ms>ms`` — and collection goes on, so that the server answers
``initialize`` and exits on EOF whatever the plugin does (issue 32, decision: the reference's factories are
synchronous and have no deadline).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from openclaw_mcp.application.abandonable import call_abandonable
from openclaw_mcp.application.plugin_tools._spi import PluginApi, ToolFactoryContext, ToolRegistration
from openclaw_mcp.application.ports.plugins import LoadedPlugin
from openclaw_mcp.application.tool_boundary import MAX_TIMER_TIMEOUT_MS, HookRegistry
from openclaw_mcp.domain.catalog_text import format_error_message
from openclaw_mcp.domain.tool_policy import (
    PluginDeclaration,
    PluginToolsPolicy,
    PolicyTool,
    apply_pipeline,
    normalize_tool_policy_name,
    plugin_registration_selected,
    plugin_selected,
    plugin_tool_selected,
)
from openclaw_mcp.jscompat.text import js_trim

__all__ = ["DEFAULT_PLUGIN_CALL_TIMEOUT_MS", "CollectedTools", "ServedTool", "collect_plugin_tools", "plugin_enabled"]

DEFAULT_PLUGIN_CALL_TIMEOUT_MS: Final = 5_000
"""How long a plugin's ``register`` or a tool factory without its own ``timeout_ms`` may take (decision: well
inside the start-up timeouts of MCP clients, e.g. Codex's 10 s, so that one stuck plugin still lets the server
answer ``initialize``)."""


@dataclass(frozen=True, slots=True)
class ServedTool:
    """A tool the server serves: its owner, its name as given, and the plugin's tool object."""

    plugin_id: str
    name: str
    description: object
    parameters: object
    execute: Callable[..., object]


@dataclass(frozen=True, slots=True)
class CollectedTools:
    """The served tools in order, and the hooks every enabled plugin registered."""

    tools: tuple[ServedTool, ...]
    hooks: HookRegistry


class _Malformed(Exception):
    pass


def _field(value: object, key: str) -> Any:
    """``value[key]`` of a mapping, else the attribute (``None`` when absent)."""
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def _string_list(value: object, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise _Malformed(f"{what} must be a list of strings")
    return tuple(value)


def _declaration(plugin: object) -> tuple[PluginDeclaration, Callable[..., object]]:
    plugin_id = _field(plugin, "id")
    if not isinstance(plugin_id, str) or not js_trim(plugin_id):
        raise _Malformed("id must be a non-empty string")
    register = _field(plugin, "register")
    if not callable(register):
        raise _Malformed("register must be a function")
    tools = _string_list(_field(plugin, "tools"), "tools")
    optional = _string_list(_field(plugin, "optional_tools"), "optional_tools")
    return PluginDeclaration(js_trim(plugin_id), tools, optional), register


def _string_set(value: object) -> set[str] | None:
    if not isinstance(value, list):
        return None
    return {js_trim(entry) for entry in value if isinstance(entry, str) and js_trim(entry)}


def plugin_enabled(config: Mapping[str, Any], plugin_id: str) -> bool:
    """Enablement from the config's ``plugins`` section: ``enabled: false`` disables all,
    ``entries.<id>.enabled: false`` one plugin, a non-empty ``allow`` list admits only its ids and ``deny``
    removes its ids."""
    plugins = config.get("plugins")
    if not isinstance(plugins, Mapping):
        return True
    if plugins.get("enabled") is False:
        return False
    entries = plugins.get("entries")
    entry = entries.get(plugin_id) if isinstance(entries, Mapping) else None
    if isinstance(entry, Mapping) and entry.get("enabled") is False:
        return False
    allow, deny = _string_set(plugins.get("allow")), _string_set(plugins.get("deny"))
    if allow and plugin_id not in allow:
        return False
    return not (deny and plugin_id in deny)


def _is_tool(value: object) -> bool:
    return _field(value, "execute") is not None or _field(value, "name") is not None


def _inspect_tool(plugin_id: str, raw: object, name: str) -> ServedTool:
    """The reference's tool checks, with its error texts."""
    if not (isinstance(raw, Mapping) or _field(raw, "name") is not None or hasattr(raw, "execute")):
        raise _Malformed("tool must be an object")
    if not name:
        raise _Malformed("missing non-empty name")
    execute = _field(raw, "execute")
    if not callable(execute):
        raise _Malformed(f"{name} missing execute function")
    parameters = _field(raw, "parameters")
    if not isinstance(parameters, Mapping):
        raise _Malformed(f"{name} missing parameters object")
    return ServedTool(plugin_id, _field(raw, "name"), _field(raw, "description"), parameters, execute)


class _Collector:
    def __init__(
        self,
        config: Mapping[str, Any],
        policy: PluginToolsPolicy,
        context: ToolFactoryContext,
        log: Callable[[str], None],
        timeout_ms: int,
    ) -> None:
        self._config = config
        self._policy = policy
        self._context = context
        self._log = log
        self._timeout_ms = timeout_ms
        self.hooks = HookRegistry()
        self.tools: list[ServedTool] = []
        self._seen: set[str] = set()

    def declare(self, loaded: LoadedPlugin) -> tuple[PluginDeclaration, Callable[..., object]] | None:
        try:
            return _declaration(loaded.value)
        except _Malformed as exc:
            self._log(f"plugin is malformed ({loaded.name}): {exc}")
        except Exception as exc:  # a plugin object whose attributes raise
            self._log(f"plugin is malformed ({loaded.name}): {format_error_message(exc)}")
        return None

    async def register(
        self, declaration: PluginDeclaration, register: Callable[..., object]
    ) -> list[ToolRegistration] | None:
        api = PluginApi(declaration.plugin_id, self._config, HookRegistry())
        timeout_ms = self._timeout_ms
        try:
            await call_abandonable(
                register, api, timeout_s=timeout_ms / 1000, timeout_message=f"register timed out after {timeout_ms}ms"
            )
        except Exception as exc:  # the plugin's own code: skipped with one line, never the server
            self._log(f"plugin failed to register ({declaration.plugin_id}): {format_error_message(exc)}")
            return None
        self.hooks.extend(api.hooks)
        return api.registrations

    async def resolve(self, declaration: PluginDeclaration, registration: ToolRegistration) -> None:
        plugin_id, policy = declaration.plugin_id, self._policy
        source = registration.tool_or_factory
        names = registration.names
        if names is None and _is_tool(source):
            names = (name,) if isinstance(name := _field(source, "name"), str) else ()
        if not plugin_registration_selected(
            declaration, optional=registration.optional, policy=policy, registration_names=names
        ):
            return
        try:
            if _is_tool(source) or not callable(source):
                resolved = source
            else:
                resolved = await self._call_factory(source, registration.timeout_ms)
        except Exception as exc:  # a factory raising (or past its deadline): one line, the registration skipped
            self._log(f"plugin tool failed ({plugin_id}): {format_error_message(exc)}")
            return
        if resolved is None:
            return
        for raw in resolved if isinstance(resolved, list | tuple) else [resolved]:
            self._add(declaration, registration, names, raw)

    async def _call_factory(self, factory: Callable[..., object], registered: int | None) -> object:
        timeout_ms = self._timeout_ms if registered is None else min(registered, MAX_TIMER_TIMEOUT_MS)
        return await call_abandonable(
            factory,
            self._context,
            timeout_s=timeout_ms / 1000,
            timeout_message=f"tool factory timed out after {timeout_ms}ms",
        )

    def _add(
        self,
        declaration: PluginDeclaration,
        registration: ToolRegistration,
        names: Sequence[str] | None,
        raw: object,
    ) -> None:
        plugin_id = declaration.plugin_id
        try:
            raw_name = _field(raw, "name")
            name = raw_name if isinstance(raw_name, str) else ""
            tool_name = js_trim(name)
            if not plugin_tool_selected(
                declaration, tool_name, optional=registration.optional, policy=self._policy, registration_names=names
            ):
                return
            tool = _inspect_tool(plugin_id, raw, tool_name)
        except _Malformed as exc:
            self._log(f"plugin tool is malformed ({plugin_id}): {exc}")
            return
        except Exception as exc:  # a tool object whose attributes raise
            self._log(f"plugin tool is malformed ({plugin_id}): {format_error_message(exc)}")
            return
        if normalize_tool_policy_name(name) not in {normalize_tool_policy_name(n) for n in declaration.declared}:
            self._log(f"plugin tool is undeclared ({plugin_id}): {name}")
            return
        key = normalize_tool_policy_name(name)
        if key in self._seen:
            return  # a name conflict: dropped silently, as the reference's server suppresses them
        self._seen.add(key)
        self.tools.append(tool)


async def collect_plugin_tools(
    plugins: Sequence[LoadedPlugin],
    *,
    config: Mapping[str, Any],
    policy: PluginToolsPolicy,
    context: ToolFactoryContext,
    log: Callable[[str], None],
    timeout_ms: int = DEFAULT_PLUGIN_CALL_TIMEOUT_MS,
) -> CollectedTools:
    """Run ``register`` of every enabled plugin (sorted by plugin id; hooks are kept from all of them), select
    and resolve the tools of the plugins the policy selects (§3.2), then filter them with the session's policy
    pipeline (§3.2 step 6; its warnings go to ``log``). ``timeout_ms``: the deadline of each ``register`` and
    of each factory registered without its own."""
    collector = _Collector(config, policy, context, log, timeout_ms)
    if not policy.plugins_enabled:
        return CollectedTools((), collector.hooks)
    declared: dict[str, tuple[PluginDeclaration, Callable[..., object]]] = {}
    for loaded in plugins:
        found = collector.declare(loaded)
        if found is None:
            continue
        plugin_id = found[0].plugin_id
        if plugin_id in declared:
            log(f"plugin id is duplicated ({plugin_id}): {loaded.name} ignored")
        elif plugin_enabled(config, plugin_id):
            declared[plugin_id] = found
    for plugin_id in sorted(declared):
        declaration, register = declared[plugin_id]
        registrations = await collector.register(declaration, register)
        if registrations is None or not plugin_selected(declaration, policy):
            continue
        for registration in registrations:
            await collector.resolve(declaration, registration)
    tools = collector.tools
    if policy.steps:
        tools = apply_pipeline(
            tools, policy.steps, identity=lambda tool: PolicyTool(tool.name, tool.plugin_id), warn=log
        )
    return CollectedTools(tuple(tools), collector.hooks)
