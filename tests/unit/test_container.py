"""The dependency-injector container resolves every provider (entry-point smoke test)."""

from dataclasses import replace
from pathlib import Path

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.memory import InMemoryConfigStore
from openclaw_mcp.application.config_service import ConfigService
from openclaw_mcp.domain.transport import HttpConfig, resolve_transport
from openclaw_mcp.entrypoints.containers import Container, create_container
from openclaw_mcp.entrypoints.oauth import oauth_server
from openclaw_mcp.entrypoints.settings import Settings

CALL_ARGUMENTS = {
    "oauth_protocol": lambda: ((), {"url": "https://mcp.example/mcp"}),
    "request_auth": lambda: ((), {"server": oauth_server("docs", "https://mcp.example/mcp")}),
    "plugin_approvals": lambda: ((object(),), {}),  # any connection: the route only keeps it
}
"""Providers that take call-time arguments."""


def test_container_resolves_every_provider(tmp_path: Path) -> None:
    container = Container(settings=Settings.from_environ({"OPENCLAW_STATE_DIR": str(tmp_path)}))
    container.check_dependencies()
    for name, provider in container.providers.items():
        if name == "elicitation":  # no handler by default (servers' requests are refused)
            assert provider() is None
            continue
        args, kwargs = CALL_ARGUMENTS[name]() if name in CALL_ARGUMENTS else ((), {})
        assert provider(*args, **kwargs) is not None, name
    assert isinstance(container.config_loader(), ConfigService)


def test_create_container_derives_the_paths_from_the_environment(tmp_path: Path) -> None:
    env = {"OPENCLAW_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path / "home")}
    container = create_container(env)
    assert container.environ() is env
    assert container.settings().config_path == str(tmp_path / "state" / "openclaw.json")
    assert container.state_db_path() == str(tmp_path / "state" / "state" / "openclaw.sqlite")
    settings = replace(Settings.from_environ(env), state_db_path="/x/db")
    assert create_container(settings).state_db_path() == "/x/db"


def test_one_clock_is_shared_by_the_adapters(tmp_path: Path) -> None:
    container = create_container({"OPENCLAW_STATE_DIR": str(tmp_path)})
    clock = container.clock()
    assert isinstance(clock, SystemClock)
    assert container.mcp_oauth().clock is clock
    assert container.config_loader().path == str(tmp_path / "openclaw.json")


def test_a_provider_can_be_overridden_with_the_in_memory_adapter() -> None:
    container = Container(settings=Settings.from_environ({"OPENCLAW_CONFIG_PATH": "/x/openclaw.json", "HOME": "/x"}))
    memory = InMemoryConfigStore()
    with container.config_store.override(memory):
        assert container.config_loader().path == "/memory/openclaw.json"


def test_the_operator_oauth_hook_authenticates_http_servers_from_the_state_database(tmp_path: Path) -> None:
    container = create_container({"OPENCLAW_STATE_DIR": str(tmp_path)})
    config = resolve_transport("docs", {"url": "https://mcp.example/mcp", "auth": "oauth"}).config
    assert isinstance(config, HttpConfig)
    auth = container.oauth_hook()("docs", config)
    assert type(auth).__name__ == "OAuthRequestAuth"
