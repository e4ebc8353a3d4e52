"""The ``openclaw-plugin-tools`` use cases (spec plugin-tools.md §3–§6, §10): collect the tools of Python
plugins under the tool policy, and serve them through the ``before_tool_call`` boundary.

    collected = await collect_plugin_tools(source.load(log=log), config=config, policy=policy,
                                           context=ToolFactoryContext(config), log=log)
    service = PluginToolsService(collected.tools, collected.hooks, log=log)
    service.list_tools()                                  # the tools/list entries
    await service.call("echo_tool", {"text": "hi"}, CancelSignal())   # a tools/call result
"""

from openclaw_mcp.application.plugin_tools._collect import (
    DEFAULT_PLUGIN_CALL_TIMEOUT_MS,
    CollectedTools,
    ServedTool,
    collect_plugin_tools,
    plugin_enabled,
)
from openclaw_mcp.application.plugin_tools._service import PluginToolsService, new_tool_call_id
from openclaw_mcp.application.plugin_tools._spi import PluginApi, ToolFactoryContext, ToolRegistration

__all__ = [
    "DEFAULT_PLUGIN_CALL_TIMEOUT_MS",
    "CollectedTools",
    "PluginApi",
    "PluginToolsService",
    "ServedTool",
    "ToolFactoryContext",
    "ToolRegistration",
    "collect_plugin_tools",
    "new_tool_call_id",
    "plugin_enabled",
]
