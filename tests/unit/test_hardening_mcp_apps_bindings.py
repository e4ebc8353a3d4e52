"""Issue 32, defect 1: an MCP App view is bound to the server definition it was granted for (spec mcp-apps
§13.2; decision). Over the real ``AppsHost`` of ``openclaw mcp ui``, a real config file and the real stdio app
server (tests/fixtures/app_server.py): a removed, disabled or redefined server ends its views (the bridge answers
the expired error) and closes its runtime (its process ends), and at most one runtime is held per live
definition however often the definition is edited."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.application.mcp_apps import AppViews
from openclaw_mcp.domain.mcp_apps import VIEW_EXPIRED_CODE, VIEW_EXPIRED_MESSAGE, AppViewError
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.settings import Settings
from openclaw_mcp.entrypoints.ui.apps import AppsHost, AppsProblem

pytestmark = pytest.mark.asyncio

APP_SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "app_server.py"


class Setup:
    """A config file with one app server, the env that finds it, and the warnings the host printed."""

    def __init__(self, tmp_path: Path) -> None:
        self.dir = tmp_path
        self.config_path = tmp_path / "openclaw.json"
        self.marker = str(tmp_path / "app-server.jsonl")  # unique per test: finds this test's processes
        self.env = {
            **{key: value for key, value in os.environ.items() if not key.startswith("OPENCLAW_")},
            "OPENCLAW_STATE_DIR": str(tmp_path),
            "OPENCLAW_CONFIG_PATH": str(self.config_path),
            "HOME": str(tmp_path),
        }
        self.warnings: list[str] = []
        self.write(self.server())

    def server(self, *extra_args: str, enabled: bool | None = None, edit: int = 0) -> dict[str, Any]:
        server: dict[str, Any] = {
            "command": sys.executable,
            "args": [str(APP_SERVER), *extra_args],
            "env": {"APP_SERVER_LOG": self.marker, "APP_SERVER_EDIT": str(edit)},
        }
        if enabled is not None:
            server["enabled"] = enabled
        return server

    def write(self, *servers: tuple[str, dict[str, Any]] | dict[str, Any]) -> None:
        named = dict(item if isinstance(item, tuple) else ("clock", item) for item in servers)
        document = {"mcp": {"apps": {"enabled": True}, "servers": named}}
        temp = self.config_path.with_suffix(".tmp")
        temp.write_text(json.dumps(document), encoding="utf-8")
        os.replace(temp, self.config_path)

    def live_servers(self) -> list[int]:
        """PIDs of running app-server processes of this test (matched by their environment)."""
        needle = f"APP_SERVER_LOG={self.marker}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                    if state != "Z":
                        found.append(int(entry.name))
            except OSError:
                continue
        return found


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


@asynccontextmanager
async def hosted(setup: Setup, poll_seconds: float = 3600.0) -> AsyncIterator[AppsHost]:
    settings = Settings.from_environ(setup.env)
    registry = composition.registry(settings, setup.warnings.append)
    views = AppViews(composition.clock(), warn=setup.warnings.append)
    host = AppsHost(
        registry,
        settings,
        sandbox_base="http://localhost:9",
        sandbox_port=9,
        sandbox_origin=None,
        views=views,
        warn=setup.warnings.append,
        poll_seconds=poll_seconds,
    )
    async with anyio.create_task_group() as group:
        await group.start(host.serve)
        try:
            yield host
        finally:
            group.cancel_scope.cancel()


async def tick(host: AppsHost, view_id: str) -> dict[str, Any]:
    return await host.bridge("callTool", {"viewId": view_id, "toolName": "tick", "arguments": {}})


async def until(condition: Callable[[], bool], seconds: float = 15.0) -> None:
    with anyio.fail_after(seconds):
        while not condition():
            await anyio.sleep(0.05)


def ticks(answer: dict[str, Any]) -> int:
    ticked: int = answer["result"]["structuredContent"]["ticks"]
    return ticked


async def expect_expired(host: AppsHost, view_id: str) -> None:
    for method, body in (
        ("callTool", {"toolName": "tick", "arguments": {}}),
        ("view", {}),
        ("listTools", {}),
        ("readResource", {"uri": "ui://clock/view.html"}),
    ):
        with pytest.raises(AppsProblem) as refused:
            await host.bridge(method, {"viewId": view_id, **body})
        assert (refused.value.status, str(refused.value), refused.value.code) == (
            409,
            VIEW_EXPIRED_MESSAGE,
            VIEW_EXPIRED_CODE,
        ), method


@pytest.mark.parametrize("change", ["removed", "disabled", "redefined", "renamed"])
async def test_a_changed_server_ends_its_views_and_closes_its_runtime(setup: Setup, change: str) -> None:
    with anyio.fail_after(60):
        async with hosted(setup) as host:
            view_id = (await host.run("clock", "show-clock", {}))["viewId"]
            assert ticks(await tick(host, view_id)) == 1
            assert len(setup.live_servers()) == 1
            if change == "removed":
                setup.write(("other", setup.server()))
            elif change == "disabled":
                setup.write(setup.server(enabled=False))
            elif change == "redefined":
                setup.write(setup.server("--blob"))
            else:  # the same definition under another name is another grant
                setup.write(("clock2", setup.server()))
            await expect_expired(host, view_id)
            await until(lambda: not setup.live_servers())
            assert any('ended 1 view of "clock"' in line for line in setup.warnings), setup.warnings


async def test_an_unchanged_server_keeps_its_view(setup: Setup) -> None:
    with anyio.fail_after(60):
        async with hosted(setup) as host:
            view_id = (await host.run("clock", "show-clock", {}))["viewId"]
            setup.write(("clock", setup.server()), ("other", setup.server("--blob")))  # another server added
            assert ticks(await tick(host, view_id)) == 1
            assert ticks(await tick(host, view_id)) == 2
            assert len(setup.live_servers()) == 1


async def test_edits_keep_at_most_one_runtime_per_live_definition(setup: Setup) -> None:
    with anyio.fail_after(120):
        async with hosted(setup) as host:
            view_id = (await host.run("clock", "show-clock", {}))["viewId"]
            for edit in range(1, 5):
                setup.write(setup.server(edit=edit))
                await expect_expired(host, view_id)
                view_id = (await host.run("clock", "show-clock", {}))["viewId"]
                assert ticks(await tick(host, view_id)) == 1  # a fresh process for the new definition
                await until(lambda: len(setup.live_servers()) <= 1)
            assert len(setup.live_servers()) == 1


async def test_the_poller_closes_the_runtime_of_a_removed_server_without_any_request(setup: Setup) -> None:
    with anyio.fail_after(60):
        async with hosted(setup, poll_seconds=0.1) as host:
            view_id = (await host.run("clock", "show-clock", {}))["viewId"]
            assert len(setup.live_servers()) == 1
            setup.write(("other", setup.server()))
            await until(lambda: not setup.live_servers())
            with pytest.raises(AppViewError, match=VIEW_EXPIRED_MESSAGE):
                host.views.view(view_id)


async def test_an_invalid_config_refuses_the_bridge_and_keeps_the_view_until_it_is_valid(setup: Setup) -> None:
    with anyio.fail_after(60):
        async with hosted(setup) as host:
            view_id = (await host.run("clock", "show-clock", {}))["viewId"]
            setup.config_path.write_text("{ not json", encoding="utf-8")
            with pytest.raises(AppsProblem) as refused:
                await tick(host, view_id)
            assert refused.value.status == 409
            assert str(refused.value).startswith("OpenClaw config is invalid")
            setup.write(setup.server())
            assert ticks(await tick(host, view_id)) == 1


# -- defect 2, the header part: blockDescendantFrames refuses every nested frame (decision) -------------------


async def test_block_descendant_frames_overrides_frame_domains_in_the_header() -> None:
    from openclaw_mcp.domain.mcp_apps import csp_header

    directives = csp_header({"blockDescendantFrames": True, "frameDomains": ["https://f.example.com"]}).split("; ")
    assert "frame-src 'none'" in directives
    assert "child-src 'none'" in directives
    assert "require-trusted-types-for 'script'" in directives
    assert not any("https://f.example.com" in directive for directive in directives)
    unblocked = csp_header({"frameDomains": ["https://f.example.com"]}).split("; ")
    assert "frame-src https://f.example.com" in unblocked
    assert not any(d.startswith(("child-src", "require-trusted-types-for")) for d in unblocked)
