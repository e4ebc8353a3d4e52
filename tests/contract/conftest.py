"""Factories for the contract suites: one async context manager per adapter, yielding a ready instance.

Each port gets its own section: a factory per adapter, the ``pytest.param`` list, and a fixture
parametrized over that list. Adapters that need real infrastructure are added with
``marks=pytest.mark.docker``; ``tests/docker`` reuses the same test functions with its own factory list.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest

from openclaw_mcp.adapters.filesystem import FileConfigStore
from openclaw_mcp.adapters.memory import InMemoryConfigStore
from openclaw_mcp.application.ports.config import ConfigStore

# --- ConfigStore ---------------------------------------------------------------------------------------

ConfigStoreFactory = Callable[[Path], AbstractAsyncContextManager[ConfigStore]]


@asynccontextmanager
async def memory_config_store(tmp_path: Path) -> AsyncIterator[ConfigStore]:
    yield InMemoryConfigStore()


@asynccontextmanager
async def file_config_store(tmp_path: Path) -> AsyncIterator[ConfigStore]:
    # A parent directory that does not exist yet: the first edit must create it.
    yield FileConfigStore(str(tmp_path / "state" / "openclaw.json"))


CONFIG_STORE_FACTORIES = [
    pytest.param(memory_config_store, id="memory"),
    pytest.param(file_config_store, id="filesystem"),
]


@pytest.fixture(params=CONFIG_STORE_FACTORIES)
def config_store_factory(request: pytest.FixtureRequest) -> ConfigStoreFactory:
    factory: ConfigStoreFactory = request.param
    return factory
