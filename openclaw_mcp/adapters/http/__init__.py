"""HTTP MCP client transports (streamable HTTP and SSE) over the MCP Python SDK and httpx2."""

from openclaw_mcp.adapters.http.connector import HttpMcpConnector

__all__ = ["HttpMcpConnector"]
