"""In-memory implementations of the ports, held to the same contract suites as the real adapters."""

from openclaw_mcp.adapters.memory.config_store import InMemoryConfigStore

__all__ = ["InMemoryConfigStore"]
