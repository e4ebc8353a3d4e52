"""Contract of the ``ToolPinStore`` port (issue 35): must pass for every implementation.

Each factory yields a ``make_store(clock)`` building stores over one backing table (several processes sharing
one state database).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from openclaw_mcp.adapters.memory.tool_pins import InMemoryToolPinRows, InMemoryToolPinStore
from openclaw_mcp.adapters.sqlite.tool_pins import SqliteToolPinStore
from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.tool_pins import PinnedServer, ToolPinStore, ToolPinStoreError
from openclaw_mcp.domain.tool_pins import tool_fingerprint

pytestmark = pytest.mark.asyncio

MakeStore = Callable[[Clock], ToolPinStore]
EPOCH = 1_767_225_600_000


class FrozenClock:
    def __init__(self, now_ms: int = EPOCH) -> None:
        self.value = now_ms

    def now_ms(self) -> int:
        return self.value


def memory_pins(tmp_path: Path) -> MakeStore:
    rows = InMemoryToolPinRows()
    return lambda clock: InMemoryToolPinStore(rows, clock=clock)


def sqlite_pins(tmp_path: Path) -> MakeStore:
    path = tmp_path / "state" / "openclaw.sqlite"  # the directory does not exist yet
    return lambda clock: SqliteToolPinStore(path, clock=clock)


FACTORIES = [pytest.param(memory_pins, id="memory"), pytest.param(sqlite_pins, id="sqlite")]


@pytest.fixture(params=FACTORIES)
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> MakeStore:
    factory: Callable[[Path], MakeStore] = request.param
    return factory(tmp_path)


SEARCH = {"name": "search", "description": "Search the web", "inputSchema": {"type": "object"}}
FETCH = {"name": "fetch", "description": "Fetch ü URL", "inputSchema": {"type": "object"}, "_meta": {"x": 1}}


async def test_nothing_pinned_reads_empty(make_store: MakeStore) -> None:
    store = make_store(FrozenClock())
    assert await store.read_server("docs") is None
    assert await store.pinned_servers() == []
    assert await store.unpin_server("docs") is False


async def test_pin_server_records_fingerprints_definitions_and_who(make_store: MakeStore) -> None:
    store = make_store(FrozenClock())
    stored = await store.pin_server("docs", {"search": SEARCH, "fetch": FETCH}, by="alice")
    pins = await store.read_server("docs")
    assert pins == stored
    assert pins is not None
    assert list(pins.tools) == ["fetch", "search"]  # tool-name order
    assert pins.server == PinnedServer("docs", EPOCH, "alice", 2)
    assert pins.fingerprints() == {"fetch": tool_fingerprint(FETCH), "search": tool_fingerprint(SEARCH)}
    assert dict(pins.tools["fetch"].definition) == FETCH
    assert (pins.tools["search"].pinned_at, pins.tools["search"].pinned_by) == (EPOCH, "alice")
    # another store over the same table sees it
    assert await make_store(FrozenClock()).read_server("docs") == pins


async def test_a_server_pinned_with_zero_tools_is_pinned(make_store: MakeStore) -> None:
    store = make_store(FrozenClock())
    await store.pin_server("empty", {}, by="bob")
    pins = await store.read_server("empty")
    assert pins is not None and pins.tools == {}
    assert await store.pinned_servers() == [PinnedServer("empty", EPOCH, "bob", 0)]


async def test_pin_server_replaces_earlier_pins(make_store: MakeStore) -> None:
    clock = FrozenClock()
    store = make_store(clock)
    await store.pin_server("docs", {"search": SEARCH, "fetch": FETCH}, by="alice")
    clock.value += 1000
    await store.pin_server("docs", {"search": {**SEARCH, "description": "v2"}}, by="bob")
    pins = await store.read_server("docs")
    assert pins is not None
    assert list(pins.tools) == ["search"]
    assert pins.tools["search"].definition["description"] == "v2"
    assert pins.server == PinnedServer("docs", EPOCH + 1000, "bob", 1)


async def test_servers_are_independent_and_listed_by_name(make_store: MakeStore) -> None:
    store = make_store(FrozenClock())
    await store.pin_server("zeta", {"search": SEARCH}, by="a")
    await store.pin_server("alpha", {"search": SEARCH, "fetch": FETCH}, by="b")
    assert [(s.server, s.tool_count) for s in await store.pinned_servers()] == [("alpha", 2), ("zeta", 1)]
    assert await store.unpin_server("alpha") is True
    assert await store.read_server("alpha") is None
    zeta = await store.read_server("zeta")
    assert zeta is not None and list(zeta.tools) == ["search"]


async def test_update_pins_accepts_and_drops_in_one_step(make_store: MakeStore) -> None:
    clock = FrozenClock()
    store = make_store(clock)
    await store.pin_server("docs", {"search": SEARCH, "fetch": FETCH}, by="alice")
    clock.value += 5
    changed = {**SEARCH, "description": "changed"}
    new = {"name": "new", "inputSchema": {"type": "object"}}
    pins = await store.update_pins("docs", {"search": changed, "new": new}, frozenset({"fetch"}), by="carol")
    assert list(pins.tools) == ["new", "search"]
    assert pins.tools["search"].fingerprint == tool_fingerprint(changed)
    assert (pins.tools["new"].pinned_at, pins.tools["new"].pinned_by) == (EPOCH + 5, "carol")
    assert pins.server.pinned_at == EPOCH  # the server row keeps its first pin
    assert await store.read_server("docs") == pins


async def test_update_pins_of_an_unpinned_server_fails_and_changes_nothing(make_store: MakeStore) -> None:
    store = make_store(FrozenClock())
    with pytest.raises(ToolPinStoreError, match='"docs" is not pinned') as caught:
        await store.update_pins("docs", {"search": SEARCH}, by="x")
    assert isinstance(caught.value, ApplicationError)
    assert await store.read_server("docs") is None
    assert await store.pinned_servers() == []


async def test_stored_definitions_do_not_alias_the_callers(make_store: MakeStore) -> None:
    store = make_store(FrozenClock())
    definition = {"name": "t", "inputSchema": {"type": "object", "properties": {}}}
    await store.pin_server("docs", {"t": definition}, by="x")
    definition["inputSchema"]["properties"]["added"] = {"type": "string"}
    pins = await store.read_server("docs")
    assert pins is not None and pins.tools["t"].definition["inputSchema"] == {"type": "object", "properties": {}}
