"""Contract of the ``PluginSource`` port (application/ports/plugins.py): must pass for every implementation.

Harnesses (one per adapter, fresh for each test) build a source holding named plugins, each either a plugin
value (``{"id": <name>, "tools": [...]}``) or a load failure with a message:

- ``memory``: ``InMemoryPlugins(lazy=True)`` over zero-argument factories (a failure raises ``RuntimeError``);
- ``entry-points``: ``EntryPointPlugins`` over a real distribution written to a temporary directory on
  ``sys.path`` — its ``entry_points.txt`` advertises one module per plugin in a group of its own; a failure is a
  module that raises ``RuntimeError`` on import.

After the shared contract, the entry-point adapter's own rules: an entry point naming a missing attribute is a
load failure, and of two distributions advertising the same name the first on ``sys.path`` wins.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.adapters.memory.plugins import InMemoryPlugins
from openclaw_mcp.adapters.plugins.entry_points import EntryPointPlugins
from openclaw_mcp.application.ports.plugins import LoadedPlugin, PluginSource


@dataclass(frozen=True, slots=True)
class Fails:
    """A plugin whose loading raises ``RuntimeError(message)``."""

    message: str


Spec = dict[str, "dict[str, Any] | Fails"]
Build = Callable[[Spec], PluginSource]


def _memory(_tmp: Path, _monkeypatch: pytest.MonkeyPatch) -> Build:
    def build(spec: Spec) -> PluginSource:
        def factory(value: dict[str, Any] | Fails) -> Callable[[], object]:
            def make() -> object:
                if isinstance(value, Fails):
                    raise RuntimeError(value.message)
                return dict(value)

            return make

        return InMemoryPlugins({name: factory(value) for name, value in spec.items()}, lazy=True)

    return build


def _write_distribution(site: Path, dist: str, group: str, entries: dict[str, str]) -> None:
    info = site / f"{dist}-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0\n", encoding="utf-8")
    lines = [f"[{group}]", *(f"{name} = {target}" for name, target in entries.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _entry_points(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Build:
    def build(spec: Spec) -> PluginSource:
        token = uuid.uuid4().hex[:12]
        site = tmp / f"site-{token}"
        site.mkdir()
        group = f"openclaw_mcp_contract_{token}"
        entries: dict[str, str] = {}
        for index, (name, value) in enumerate(spec.items()):
            module = f"ocpt_{token}_{index}"
            body = f"raise RuntimeError({value.message!r})\n" if isinstance(value, Fails) else f"plugin = {value!r}\n"
            (site / f"{module}.py").write_text(body, encoding="utf-8")
            entries[name] = f"{module}:plugin"
        _write_distribution(site, f"ocpt_{token}", group, entries)
        monkeypatch.syspath_prepend(str(site))
        return EntryPointPlugins(group)

    return build


@pytest.fixture(params=[_memory, _entry_points], ids=["memory", "entry-points"])
def build(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Build:
    harness: Callable[[Path, pytest.MonkeyPatch], Build] = request.param
    return harness(tmp_path, monkeypatch)


def _load(source: PluginSource) -> tuple[Sequence[LoadedPlugin], list[str]]:
    lines: list[str] = []
    return source.load(log=lines.append), lines


def _plugin(name: str, *tools: str) -> dict[str, Any]:
    return {"id": name, "tools": list(tools)}


def test_an_empty_source_loads_nothing_and_logs_nothing(build: Build) -> None:
    assert _load(build({})) == ([], [])


def test_plugins_load_in_name_order_with_their_values(build: Build) -> None:
    loaded, lines = _load(build({"zeta": _plugin("zeta", "z"), "alpha": _plugin("alpha", "a"), "mid": _plugin("m")}))
    assert [plugin.name for plugin in loaded] == ["alpha", "mid", "zeta"]
    assert [plugin.value for plugin in loaded] == [_plugin("alpha", "a"), _plugin("m"), _plugin("zeta", "z")]
    assert all(isinstance(plugin, LoadedPlugin) for plugin in loaded)
    assert lines == []


def test_a_plugin_that_fails_to_load_is_one_log_line_and_left_out(build: Build) -> None:
    loaded, lines = _load(build({"good": _plugin("good"), "broken": Fails("boom on import"), "last": _plugin("last")}))
    assert [plugin.name for plugin in loaded] == ["good", "last"]
    assert lines == ["plugin failed to load (broken): boom on import"]


def test_every_plugin_failing_is_an_empty_result_not_an_error(build: Build) -> None:
    loaded, lines = _load(build({"a": Fails("first"), "b": Fails("second")}))
    assert loaded == []
    assert lines == ["plugin failed to load (a): first", "plugin failed to load (b): second"]


def test_loading_again_gives_the_same_plugins(build: Build) -> None:
    source = build({"one": _plugin("one", "t"), "two": Fails("nope")})
    first, _ = _load(source)
    second, lines = _load(source)
    assert [(plugin.name, plugin.value) for plugin in second] == [(plugin.name, plugin.value) for plugin in first]
    assert len(lines) == 1


def test_a_secret_in_a_load_failure_is_redacted(build: Build) -> None:
    _, lines = _load(build({"leaky": Fails("cannot reach https://user:hunter2@example.test/x")}))
    assert len(lines) == 1
    assert "hunter2" not in lines[0]
    assert lines[0].startswith("plugin failed to load (leaky): ")


# --- the entry-point adapter's own rules ----------------------------------------------------------------------


def test_an_entry_point_naming_a_missing_attribute_is_a_load_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ocpt_noattr.py").write_text("other = 1\n", encoding="utf-8")
    _write_distribution(tmp_path, "ocpt_noattr", "openclaw_mcp_contract_noattr", {"noattr": "ocpt_noattr:plugin"})
    monkeypatch.syspath_prepend(str(tmp_path))
    loaded, lines = _load(EntryPointPlugins("openclaw_mcp_contract_noattr"))
    assert loaded == []
    assert len(lines) == 1
    assert lines[0].startswith("plugin failed to load (noattr): ")


def test_of_two_distributions_with_the_same_entry_point_name_the_first_on_the_path_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    group = "openclaw_mcp_contract_dup"
    for label in ("first", "second"):
        site = tmp_path / label
        site.mkdir()
        (site / f"ocpt_dup_{label}.py").write_text(f"plugin = {label!r}\n", encoding="utf-8")
        _write_distribution(site, f"ocpt_dup_{label}", group, {"dup": f"ocpt_dup_{label}:plugin"})
    monkeypatch.syspath_prepend(str(tmp_path / "second"))
    monkeypatch.syspath_prepend(str(tmp_path / "first"))
    loaded, lines = _load(EntryPointPlugins(group))
    assert [(plugin.name, plugin.value) for plugin in loaded] == [("dup", "first")]
    assert lines == []
