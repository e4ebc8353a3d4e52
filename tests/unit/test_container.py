"""The dependency-injector container resolves every provider (entry-point smoke test)."""

from pathlib import Path

from adapters.memory import InMemoryConfigStore
from application.registry import Registry
from entrypoints.containers import Container


def test_container_resolves_every_provider(tmp_path: Path) -> None:
    container = Container()
    container.config.from_dict(
        {
            "config_path": str(tmp_path / "openclaw.json"),
            "state_db_path": str(tmp_path / "state" / "openclaw.sqlite"),
            "include_roots": [],
            "env": {},
        }
    )
    container.check_dependencies()
    for name, provider in container.providers.items():
        assert provider() is not None, name
    assert isinstance(container.registry(), Registry)


def test_a_provider_can_be_overridden_with_the_in_memory_adapter() -> None:
    container = Container()
    container.config.from_dict(
        {"config_path": "/x/openclaw.json", "state_db_path": "/x/db", "include_roots": [], "env": {}}
    )
    memory = InMemoryConfigStore()
    with container.config_store.override(memory):
        assert container.registry().path == "/memory/openclaw.json"
