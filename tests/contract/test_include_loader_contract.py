"""IncludeLoader contract: must pass for every implementation.

Observable behaviour through the port only (``application.ports.config.IncludeLoader``): paths resolved from
the including file's directory, one canonical string per file, paths leaving the config directory refused,
missing and unparseable files refused at ``load`` with the reference's texts (``IncludeError`` only, the parse
error chained as its cause), JSON5 content, a fresh value per ``load``, and a loader still usable after a
cancelled request.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from openclaw_mcp.domain.includes import IncludeError
from openclaw_mcp.jscompat.json5 import Json5Error
from tests.contract.include_loader_factories import FACTORIES, IncludeLoaderFactory

pytestmark = pytest.mark.asyncio

FILES = {
    "a.json": '{"name": "a"}',
    "sub/b.json5": "// JSON5\n{servers: {docs: {command: 'npx', args: ['x',], enabled: true, retries: 2.5}},}\n",
    "bad.json": "{a:1,,}\n",
}


@pytest.fixture(params=FACTORIES)
def include_loader_factory(request: pytest.FixtureRequest) -> IncludeLoaderFactory:
    factory: IncludeLoaderFactory = request.param
    return factory


async def test_a_relative_path_is_taken_from_the_including_files_directory(
    include_loader_factory: IncludeLoaderFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with include_loader_factory(tmp_path, FILES) as h:
            from_config = await h.loader.resolve("./sub/b.json5", h.config_path)
            from_include = await h.loader.resolve("../a.json", from_config)
    assert from_config == f"{h.root}/sub/b.json5"
    assert from_include == f"{h.root}/a.json"


async def test_one_file_gives_one_string_however_it_is_written(
    include_loader_factory: IncludeLoaderFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with include_loader_factory(tmp_path, FILES) as h:
            plain = await h.loader.resolve("./a.json", h.config_path)
            bare = await h.loader.resolve("a.json", h.config_path)
            detour = await h.loader.resolve("./sub/../a.json", h.config_path)
            absolute = await h.loader.resolve(f"{h.root}/a.json", h.config_path)
            again = await h.loader.resolve("./a.json", h.config_path)
    assert plain == bare == detour == absolute == again == f"{h.root}/a.json"


async def test_a_path_leaving_the_config_directory_is_refused(
    include_loader_factory: IncludeLoaderFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with include_loader_factory(tmp_path, FILES) as h:
            with pytest.raises(IncludeError) as direct:
                await h.loader.resolve("../outside.json", h.config_path)
            nested_from = await h.loader.resolve("./sub/b.json5", h.config_path)
            with pytest.raises(IncludeError) as nested:
                await h.loader.resolve("../../outside.json", nested_from)
    assert direct.value.message == f"Include path escapes config directory: ../outside.json (root: {h.root})"
    assert nested.value.message == f"Include path escapes config directory: ../../outside.json (root: {h.root})"


async def test_load_returns_the_parsed_json5_content(
    include_loader_factory: IncludeLoaderFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with include_loader_factory(tmp_path, FILES) as h:
            resolved = await h.loader.resolve("./sub/b.json5", h.config_path)
            content = await h.loader.load("./sub/b.json5", resolved)
    assert content == {"servers": {"docs": {"command": "npx", "args": ["x"], "enabled": True, "retries": 2.5}}}


async def test_every_load_returns_a_new_value(include_loader_factory: IncludeLoaderFactory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with include_loader_factory(tmp_path, FILES) as h:
            resolved = await h.loader.resolve("./a.json", h.config_path)
            first = await h.loader.load("./a.json", resolved)
            first["name"] = "changed"
            second = await h.loader.load("./a.json", resolved)
    assert second == {"name": "a"}


async def test_a_missing_file_resolves_but_cannot_be_loaded(
    include_loader_factory: IncludeLoaderFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with include_loader_factory(tmp_path, FILES) as h:
            resolved = await h.loader.resolve("./nope.json", h.config_path)
            with pytest.raises(IncludeError) as caught:
                await h.loader.load("./nope.json", resolved)
    assert resolved == f"{h.root}/nope.json"
    assert caught.value.message == f"Failed to read include file: ./nope.json (resolved: {h.root}/nope.json)"


async def test_a_file_that_does_not_parse_is_refused_with_the_parse_error_as_cause(
    include_loader_factory: IncludeLoaderFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with include_loader_factory(tmp_path, FILES) as h:
            resolved = await h.loader.resolve("./bad.json", h.config_path)
            with pytest.raises(IncludeError) as caught:
                await h.loader.load("./bad.json", resolved)
    assert caught.value.message == f"Failed to parse include file: ./bad.json (resolved: {h.root}/bad.json)"
    assert str(caught.value) == caught.value.message
    assert isinstance(caught.value.__cause__, Json5Error)


async def test_the_loader_still_answers_after_a_cancelled_request(
    include_loader_factory: IncludeLoaderFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with include_loader_factory(tmp_path, FILES) as h:
            resolved = await h.loader.resolve("./a.json", h.config_path)
            with anyio.CancelScope() as scope:
                scope.cancel()
                await h.loader.load("./a.json", resolved)
            content = await h.loader.load("./a.json", resolved)
    assert content == {"name": "a"}
