"""In-memory implementations of the ports, held to the same contract suites as the real adapters."""

from adapters.memory.config_store import InMemoryConfigStore

__all__ = ["InMemoryConfigStore"]
