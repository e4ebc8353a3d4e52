"""The stdio MCP transport: a server process owning its process group, driven by the MCP SDK client."""

from openclaw_mcp.adapters.stdio.connector import StdioMcpConnector

__all__ = ["StdioMcpConnector"]
