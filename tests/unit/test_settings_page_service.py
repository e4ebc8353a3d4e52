"""The settings page's use cases (application.settings_page) over in-memory adapters: the snapshot, the base-hash
check under the lock, the row actions and the editor save through the registry's one commit path (validation,
OAuth clearing, keys outside ``mcp`` untouched)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openclaw_mcp.adapters.collation import UcaCollator
from openclaw_mcp.adapters.memory import InMemoryConfigStore
from openclaw_mcp.adapters.memory.oauth_status import InMemoryOAuthStore
from openclaw_mcp.application.config_service import ConfigService
from openclaw_mcp.application.errors import (
    ChangeInvalidError,
    ConfigConflictError,
    ConfigReadOnlyError,
    ServerNotFoundError,
)
from openclaw_mcp.application.registry import Registry, TransportWarnings
from openclaw_mcp.application.settings_page import ChangeRefused, McpSettings
from openclaw_mcp.domain.names import operator_store_key
from openclaw_mcp.domain.settings_page import REDACTED, config_hash

pytestmark = pytest.mark.asyncio

NOW = 1_795_958_899_480
DOCS_URL = "https://alice:s3cret@mcp.example.com/mcp?token=abc"
CONFIG: dict[str, Any] = {
    "gateway": {"mode": "local"},
    "mcp": {
        "servers": {
            "docs": {"url": DOCS_URL, "transport": "streamable-http", "auth": "oauth", "headers": {"A": "Bearer x"}},
            "context7": {"command": "uvx", "args": ["context7-mcp"], "env": {"K": "ghp_secret"}},
        }
    },
}


class FixedClock:
    def now_ms(self) -> int:
        return NOW


class Page:
    def __init__(self, config: Any = CONFIG, env: dict[str, str] | None = None) -> None:
        self.store = InMemoryConfigStore(text=json.dumps(config, indent=2) + "\n")
        self.oauth = InMemoryOAuthStore()
        self.warnings: list[str] = []
        service = ConfigService(self.store, env or {}, FixedClock(), self.warnings.append)
        self.registry = Registry(
            service,
            self.oauth,
            UcaCollator(),
            TransportWarnings(self.warnings.append),
            env or {},
            credentials=lambda: self.oauth,
        )
        self.settings = McpSettings(self.registry, FixedClock())

    @property
    def document(self) -> Any:
        assert self.store.text is not None
        return json.loads(self.store.text)

    @property
    def hash(self) -> str:
        return config_hash(self.store.text)


async def test_snapshot_is_redacted_and_carries_rows_cards_and_oauth_state() -> None:
    page = Page()
    page.oauth.stores[operator_store_key("docs", DOCS_URL)] = {
        "tokens": {"access_token": "t"},
        "tokenExpiresAt": NOW + 7_200_000,
    }
    snapshot = (await page.settings.snapshot()).as_json()
    text = json.dumps(snapshot)
    assert "s3cret" not in text and "ghp_secret" not in text and "Bearer x" not in text
    assert snapshot["hash"] == page.hash and snapshot["valid"] is True
    assert [row["name"] for row in snapshot["rows"]] == ["context7", "docs"]
    assert snapshot["rows"][1]["target"] == REDACTED
    assert snapshot["rows"][1]["oauth"] == {"state": "authorized", "label": "expires in 2 h"}
    assert snapshot["summary"] == {"servers": 2, "enabled": 2, "oauth": 1, "filtered": 0}


async def test_a_stale_base_hash_is_a_conflict_and_writes_nothing() -> None:
    page = Page()
    before = page.store.text
    with pytest.raises(ConfigConflictError):
        await page.settings.set_enabled("sha256:stale", "context7", False)
    assert page.store.text == before


async def test_toggle_and_remove_and_add() -> None:
    page = Page()
    outcome = await page.settings.set_enabled(page.hash, "context7", False)
    assert (outcome.message, outcome.changed_paths) == (
        "Disabled MCP server context7.",
        ["mcp.servers.context7.enabled"],
    )
    assert outcome.hash == page.hash
    assert page.document["mcp"]["servers"]["context7"]["enabled"] is False
    await page.settings.set_enabled(page.hash, "context7", True)
    assert "enabled" not in page.document["mcp"]["servers"]["context7"]
    added = await page.settings.add(page.hash, "notes", "stdio", "npx -y 'a b'")
    assert added.message == "Added MCP server notes."
    assert page.document["mcp"]["servers"]["notes"] == {"command": "npx", "args": ["-y", "a b"]}
    removed = await page.settings.remove(page.hash, "notes")
    assert removed.message == "Removed MCP server notes."
    assert "notes" not in page.document["mcp"]["servers"]
    assert page.document["gateway"] == {"mode": "local"}


async def test_unknown_server_gets_the_cli_message() -> None:
    page = Page()
    with pytest.raises(ServerNotFoundError) as caught:
        await page.settings.remove(page.hash, "nope")
    assert str(caught.value) == (
        'No MCP server named "nope" in /memory/openclaw.json. Run openclaw mcp list to see configured servers.'
    )


async def test_add_refusals_write_nothing() -> None:
    page = Page()
    before = page.store.text
    for name, target in (("bad name!", "x"), ("docs", "x"), ("x", "npx 'open")):
        with pytest.raises(ChangeRefused):
            await page.settings.add(page.hash, name, "stdio", target)
    assert page.store.text == before


async def test_removing_an_oauth_server_clears_its_credentials() -> None:
    page = Page()
    key = operator_store_key("docs", DOCS_URL)
    page.oauth.stores[key] = {"tokens": {"access_token": "t"}}
    await page.settings.remove(page.hash, "docs")
    assert "tokens" not in (page.oauth.stores.get(key) or {})


async def test_editor_save_restores_secrets_and_keeps_other_keys() -> None:
    page = Page()
    shown = (await page.settings.snapshot()).mcp
    assert isinstance(shown, dict)
    shown["servers"]["context7"]["command"] = "uvx2"
    outcome = await page.settings.replace(page.hash, shown)
    assert outcome.changed_paths == ["mcp.servers.context7.command"]
    document = page.document
    assert document["mcp"]["servers"]["docs"]["url"] == DOCS_URL
    assert document["mcp"]["servers"]["docs"]["headers"] == {"A": "Bearer x"}
    assert document["mcp"]["servers"]["context7"] == {
        "command": "uvx2",
        "args": ["context7-mcp"],
        "env": {"K": "ghp_secret"},
    }
    assert document["gateway"] == {"mode": "local"}


async def test_editor_save_that_replaces_the_oauth_url_clears_credentials() -> None:
    page = Page()
    key = operator_store_key("docs", DOCS_URL)
    page.oauth.stores[key] = {"tokens": {"access_token": "t"}}
    shown = (await page.settings.snapshot()).mcp
    assert isinstance(shown, dict)
    shown["servers"]["docs"]["url"] = "https://other.example.com/mcp"
    await page.settings.replace(page.hash, shown)
    assert "tokens" not in (page.oauth.stores.get(key) or {})


async def test_editor_validation_failure_names_the_full_path() -> None:
    page = Page()
    before = page.store.text
    shown = (await page.settings.snapshot()).mcp
    assert isinstance(shown, dict)
    shown["servers"]["context7"]["auth"] = "bogus"
    with pytest.raises(ChangeInvalidError) as caught:
        await page.settings.replace(page.hash, shown)
    first = caught.value.issues[0]
    assert f"{first.dotted}: {first.message}" == (
        'mcp.servers.context7.auth: Invalid input: expected "oauth" (allowed: "oauth")'
    )
    assert page.store.text == before


async def test_misplaced_sentinel_and_non_object_are_refused() -> None:
    page = Page()
    shown = (await page.settings.snapshot()).mcp
    assert isinstance(shown, dict)
    shown["servers"]["context7"]["command"] = REDACTED
    with pytest.raises(
        ChangeRefused, match=r"mcp\.servers\.context7\.command: redacted placeholder cannot be saved here"
    ):
        await page.settings.replace(page.hash, shown)
    with pytest.raises(ChangeRefused):
        await page.settings.replace(page.hash, [])


async def test_proto_keys_are_dropped_like_set_drops_them() -> None:
    page = Page()
    shown = (await page.settings.snapshot()).mcp
    assert isinstance(shown, dict)
    shown["servers"]["__proto__"] = {"command": "x"}
    await page.settings.replace(page.hash, shown)
    assert "__proto__" not in page.document["mcp"]["servers"]


async def test_read_only_mode_refuses_every_mutation() -> None:
    page = Page(env={"OPENCLAW_CONFIG_READONLY": "1"})
    before = page.store.text
    with pytest.raises(ConfigReadOnlyError):
        await page.settings.set_enabled(page.hash, "context7", False)
    assert page.store.text == before


async def test_invalid_config_snapshot_reports_issues() -> None:
    page = Page(config={"mcp": {"servers": {"x": {"command": 1}}}})
    snapshot = await page.settings.snapshot()
    assert snapshot.valid is False and snapshot.issues
    assert snapshot.issues[0]["path"].startswith("mcp.servers.x")
