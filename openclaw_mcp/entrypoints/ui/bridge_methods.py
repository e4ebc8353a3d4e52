"""The MCP App bridge methods of the page's API: ``POST /api/mcp/apps/<method>`` (mcp-apps §13.2.3)."""

__all__ = ["BRIDGE_METHODS"]

BRIDGE_METHODS = (
    "view",
    "callTool",
    "listTools",
    "listResources",
    "listResourceTemplates",
    "readResource",
    "updateModelContext",
)
