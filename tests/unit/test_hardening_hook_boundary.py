"""Plugin code that does not cooperate with its deadline, in process (issue 32, defects 12 and 15;
plugin-tools.md §6.6): :func:`call_abandonable`, the ``before_tool_call`` boundary (:class:`ToolBoundary`, also
behind the runtime's :class:`ToolGate`) with hostile hooks, the tool factories and ``register`` of
:func:`collect_plugin_tools`, and :func:`exit_deadline` in a real process.

A hook past its deadline fails the call closed at once, whatever it does later (answers after catching its
cancellation, swallows cancellation forever, blocks its thread, rewrites its event); the tool never runs and
nothing waits for the hook. The hostile hooks here are released at the end of their test, so the event loop's
teardown does not wait for them.
"""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

from openclaw_mcp.application.abandonable import call_abandonable
from openclaw_mcp.application.plugin_tools import (
    DEFAULT_PLUGIN_CALL_TIMEOUT_MS,
    PluginApi,
    ToolFactoryContext,
    collect_plugin_tools,
)
from openclaw_mcp.application.ports.plugins import LoadedPlugin
from openclaw_mcp.application.runtime.tool_gate import ToolGate, ToolGateSettings
from openclaw_mcp.application.tool_boundary import (
    HOOK_FAILURE_REASON,
    CancelSignal,
    HookRegistry,
    ToolBoundary,
    ToolCallBlocked,
)
from openclaw_mcp.domain.tool_policy import plugin_tools_policy

pytestmark = pytest.mark.asyncio

CALL_ID = "mcp-hostile"
DEADLINE_MS = 200
BOUND_S = 1.0
"""A failed call is answered within this many seconds of its start (the deadline plus scheduling slack)."""
STUCK_S = 3.0
"""Hostile code gives up by itself after this long, so that a regression fails a test instead of hanging it."""


class Tool:
    def __init__(self) -> None:
        self.calls: list[Any] = []

    async def __call__(self, params: Any) -> str:
        self.calls.append(params)
        return "ran"


class Hostile:
    """Hostile plugin code: ``behave`` is how it answers once cancelled (or, for the sync kinds, once
    released); :attr:`released` lets it end; :attr:`finished` is set when it has."""

    def __init__(self, kind: str, answer: Callable[[dict[str, Any], dict[str, Any]], Any] = lambda e, c: None):
        self.kind = kind
        self.answer = answer
        self.released = threading.Event()
        self.finished = threading.Event()
        self.cancellations = 0
        self.seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def handler(self) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
        if self.kind == "sync":
            return self._sync
        return self._swallow if self.kind == "swallow" else self._catch

    async def _catch(self, event: dict[str, Any], ctx: dict[str, Any]) -> Any:
        self.seen.append((event, ctx))
        try:
            await anyio.sleep(STUCK_S)
        except BaseException:  # the misbehaviour under test: ``except:`` and answer anyway
            self.cancellations += 1
            return self.answer(event, ctx)
        finally:
            self.finished.set()
        return self.answer(event, ctx)

    async def _swallow(self, event: dict[str, Any], ctx: dict[str, Any]) -> Any:
        self.seen.append((event, ctx))
        started = time.monotonic()
        try:
            while not self.released.is_set() and time.monotonic() - started < STUCK_S:
                try:
                    await anyio.sleep(0.01)
                except BaseException:  # swallowed, again and again
                    self.cancellations += 1
            return self.answer(event, ctx)
        finally:
            self.finished.set()

    def _sync(self, event: dict[str, Any], ctx: dict[str, Any]) -> Any:
        self.seen.append((event, ctx))
        try:
            self.released.wait(STUCK_S)  # blocks its thread
            return self.answer(event, ctx)
        finally:
            self.finished.set()

    async def release(self) -> None:
        self.released.set()
        with anyio.fail_after(STUCK_S + 2):
            while not self.finished.is_set():
                await anyio.sleep(0.01)


def hooks_of(*handlers: Any, timeout_ms: Any = DEADLINE_MS) -> HookRegistry:
    registry = HookRegistry()
    for index, handler in enumerate(handlers):
        registry.on("before_tool_call", handler, plugin_id=f"p{index}", timeout_ms=timeout_ms, priority=-index)
    return registry


async def run(boundary: ToolBoundary, params: Any = None, *, tool: Tool | None = None) -> tuple[Any, Tool, float]:
    """One call: its outcome (or the ``ToolCallBlocked`` raised), the tool, the seconds it took."""
    tool = tool or Tool()
    started = time.monotonic()
    with anyio.fail_after(10):
        try:
            outcome: Any = await boundary.run(
                tool_name="danger_tool",
                params={"path": "ok"} if params is None else params,
                tool_call_id=CALL_ID,
                execute=tool,
                approval_mode="report",
                cancel=CancelSignal(),
            )
        except ToolCallBlocked as exc:
            outcome = exc
    return outcome, tool, time.monotonic() - started


def _block(event: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    return {"block": True, "blockReason": "late"}


def _allow_evil(event: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    return {"params": {"path": "evil"}}


def _mutate(event: dict[str, Any], ctx: dict[str, Any]) -> None:
    event["params"]["path"] = "evil"
    ctx["toolName"] = "safe_tool"
    ctx.clear()


HOSTILE = [
    ("catch-return-none", "catch", lambda e, c: None),
    ("catch-return-params", "catch", _allow_evil),
    ("catch-return-block", "catch", _block),
    ("catch-mutate-after-timeout", "catch", _mutate),
    ("swallow-loop", "swallow", lambda e, c: None),
    ("swallow-then-allow", "swallow", _allow_evil),
    ("sync-block", "sync", lambda e, c: None),
    ("sync-block-then-params", "sync", _allow_evil),
]


@pytest.fixture
def released() -> Iterator[list[Hostile]]:
    """Hostile code made by a test; each is released (and ends) when the test is over."""
    made: list[Hostile] = []
    yield made
    for hostile in made:
        hostile.released.set()


# --- the boundary ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "answer"), [(k, a) for _, k, a in HOSTILE], ids=[name for name, _, _ in HOSTILE])
async def test_a_hook_past_its_deadline_fails_closed_at_once_whatever_it_does_later(
    kind: str, answer: Any, released: list[Hostile]
) -> None:
    hostile = Hostile(kind, answer)
    released.append(hostile)
    logs: list[str] = []
    boundary = ToolBoundary(hooks_of(hostile.handler()), log=logs.append)
    outcome, tool, elapsed = await run(boundary)
    assert isinstance(outcome, ToolCallBlocked) and str(outcome) == HOOK_FAILURE_REASON
    assert outcome.denied_reason == "plugin-before-tool-call"
    assert DEADLINE_MS / 1000 <= elapsed < BOUND_S, elapsed
    assert logs == [
        f"before_tool_call hook failed: tool=danger_tool toolCallId={CALL_ID} "
        f"error=TimeoutError: timed out after {DEADLINE_MS}ms"
    ]
    await hostile.release()  # whatever it answers now is dropped
    await anyio.sleep(0.05)
    assert tool.calls == []
    if kind == "catch":
        assert hostile.cancellations == 1  # it was cancelled once, and answered anyway


async def test_a_hook_that_swallows_cancellation_is_cancelled_once_and_left_alone(released: list[Hostile]) -> None:
    hostile = Hostile("swallow")
    released.append(hostile)
    outcome, tool, elapsed = await run(ToolBoundary(hooks_of(hostile.handler())))
    assert str(outcome) == HOOK_FAILURE_REASON and tool.calls == [] and elapsed < BOUND_S
    await anyio.sleep(0.2)
    assert not hostile.finished.is_set() and hostile.cancellations == 1  # no cancellation storm either
    await hostile.release()


async def test_concurrent_calls_on_a_stuck_hook_each_fail_within_the_bound(released: list[Hostile]) -> None:
    hostile = Hostile("swallow")
    released.append(hostile)
    boundary = ToolBoundary(hooks_of(hostile.handler()))
    outcomes: list[tuple[Any, Tool, float]] = []

    async def one() -> None:
        outcomes.append(await run(boundary))

    started = time.monotonic()
    async with anyio.create_task_group() as tg:
        for _ in range(8):
            tg.start_soon(one)
    assert time.monotonic() - started < BOUND_S
    assert [str(outcome) for outcome, _, _ in outcomes] == [HOOK_FAILURE_REASON] * 8
    assert all(tool.calls == [] for _, tool, _ in outcomes)
    await hostile.release()


async def test_a_later_handler_never_runs_after_a_timed_out_one(released: list[Hostile]) -> None:
    hostile = Hostile("catch", _allow_evil)
    released.append(hostile)
    later: list[bool] = []
    outcome, tool, _ = await run(ToolBoundary(hooks_of(hostile.handler(), lambda e, c: later.append(True))))
    assert str(outcome) == HOOK_FAILURE_REASON and tool.calls == []
    await hostile.release()
    assert later == []


async def test_a_timed_out_hook_that_rewrites_its_event_touches_neither_this_call_nor_the_next(
    released: list[Hostile],
) -> None:
    hostile = Hostile("catch", _mutate)
    released.append(hostile)
    boundary = ToolBoundary(hooks_of(hostile.handler()))
    params = {"path": "ok", "nested": {"keep": 1}}
    outcome, tool, _ = await run(boundary, params)
    await hostile.release()
    assert str(outcome) == HOOK_FAILURE_REASON and tool.calls == []
    assert params == {"path": "ok", "nested": {"keep": 1}}  # the hook only ever had a copy
    [(event, ctx)] = hostile.seen
    assert event["params"]["path"] == "evil" and ctx == {}


async def test_an_outer_cancellation_while_a_hook_is_stuck_propagates_at_once(released: list[Hostile]) -> None:
    hostile = Hostile("swallow")
    released.append(hostile)
    boundary = ToolBoundary(hooks_of(hostile.handler(), timeout_ms=60_000))
    tool = Tool()
    started = time.monotonic()
    with anyio.fail_after(10), anyio.move_on_after(0.1) as scope:
        await boundary.run(tool_name="t", params={}, tool_call_id="c", execute=tool, cancel=CancelSignal())
    assert scope.cancelled_caught and tool.calls == [] and time.monotonic() - started < BOUND_S
    await hostile.release()


async def test_a_hook_that_takes_its_time_within_the_deadline_still_decides() -> None:
    async def slow_async(event: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        await anyio.sleep(0.05)
        return {"params": {"a": 2}}

    def slow_sync(event: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        time.sleep(0.05)
        return {"params": {"b": 3}}

    outcome, tool, _ = await run(ToolBoundary(hooks_of(slow_async, slow_sync)), {"path": "ok"})
    assert outcome == "ran" and tool.calls == [{"path": "ok", "b": 3}]  # the last defined params win
    outcome, tool, _ = await run(ToolBoundary(hooks_of(slow_sync, slow_async)), {"path": "ok"})
    assert outcome == "ran" and tool.calls == [{"path": "ok", "a": 2}]


def _raises(error: BaseException) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
    def handler(event: dict[str, Any], ctx: dict[str, Any]) -> Any:
        raise error

    return handler


def _raises_async(error: BaseException) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
    async def handler(event: dict[str, Any], ctx: dict[str, Any]) -> Any:
        await anyio.sleep(0)
        raise error

    return handler


FAILING = [
    ("raise", _raises(RuntimeError("boom")), "RuntimeError: boom"),
    ("raise-async", _raises_async(ValueError("bad")), "ValueError: bad"),
    ("system-exit", _raises(SystemExit("bye")), "RuntimeError: SystemExit: bye"),
    ("system-exit-async", _raises_async(SystemExit(3)), "RuntimeError: SystemExit: 3"),
    ("keyboard-interrupt", _raises(KeyboardInterrupt()), "RuntimeError: KeyboardInterrupt"),
    ("own-cancellation", _raises_async(asyncio.CancelledError()), "RuntimeError: CancelledError"),
    ("not-callable", "not callable", "TypeError: 'str' object is not callable"),
    ("wrong-signature", lambda: None, "TypeError: <lambda>() takes 0 positional arguments but 2 were given"),
]


@pytest.mark.parametrize(("handler", "error"), [(h, e) for _, h, e in FAILING], ids=[n for n, _, _ in FAILING])
async def test_a_hook_that_raises_anything_fails_closed_and_the_caller_goes_on(handler: Any, error: str) -> None:
    logs: list[str] = []
    outcome, tool, elapsed = await run(ToolBoundary(hooks_of(handler), log=logs.append))
    assert isinstance(outcome, ToolCallBlocked) and str(outcome) == HOOK_FAILURE_REASON
    assert tool.calls == [] and elapsed < BOUND_S
    assert logs == [f"before_tool_call hook failed: tool=danger_tool toolCallId={CALL_ID} error={error}"]


class _Weird:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing")

    __hash__ = None  # type: ignore[assignment]


async def _awaitable_garbage() -> Any:
    return [1, 2, 3]


GARBAGE = [
    ("string", "block"),
    ("number", 1),
    ("list", [{"block": True}]),
    ("object", object()),
    ("weird-eq", _Weird()),
    ("generator", (x for x in [{"block": True}])),
    ("mapping-with-non-string-keys", {1: True, None: "x"}),
]


@pytest.mark.parametrize("value", [v for _, v in GARBAGE], ids=[n for n, _ in GARBAGE])
async def test_a_hook_that_returns_garbage_decides_nothing(value: Any) -> None:
    outcome, tool, _ = await run(ToolBoundary(hooks_of(lambda e, c: value)), {"path": "ok"})
    assert outcome == "ran" and tool.calls == [{"path": "ok"}]


async def test_a_sync_hook_returning_an_awaitable_is_awaited_under_the_same_deadline(
    released: list[Hostile],
) -> None:
    _, tool, _ = await run(ToolBoundary(hooks_of(lambda e, c: _awaitable_garbage())), {"path": "ok"})
    assert tool.calls == [{"path": "ok"}]
    hostile = Hostile("swallow", _allow_evil)
    released.append(hostile)
    stuck = hostile.handler()
    outcome, tool, elapsed = await run(ToolBoundary(hooks_of(lambda e, c: stuck(e, c))))
    assert str(outcome) == HOOK_FAILURE_REASON and tool.calls == [] and elapsed < BOUND_S
    await hostile.release()


async def test_the_runtime_tool_gate_path_fails_closed_on_a_stuck_hook(released: list[Hostile]) -> None:
    hostile = Hostile("catch", _allow_evil)
    released.append(hostile)
    logs: list[str] = []
    gate = ToolGate(
        ToolGateSettings(
            agent_id="main",
            session_key="agent:main:main",
            boundary=ToolBoundary(hooks_of(hostile.handler()), log=logs.append),
        ),
        warn=logs.append,
    )
    tool = Tool()
    started = time.monotonic()
    with anyio.fail_after(10), pytest.raises(ToolCallBlocked) as caught:
        await gate.call(tool_name="docs__search", params={"q": "x"}, tool_call_id="call-1", execute=tool)
    assert str(caught.value) == HOOK_FAILURE_REASON and time.monotonic() - started < BOUND_S
    await hostile.release()
    assert tool.calls == []
    assert logs == [
        "before_tool_call hook failed: tool=docs__search toolCallId=call-1 "
        f"error=TimeoutError: timed out after {DEADLINE_MS}ms"
    ]


# --- call_abandonable ---------------------------------------------------------------------------------------------


async def test_call_abandonable_returns_results_and_raises_errors_of_sync_and_async_code() -> None:
    caller = threading.get_ident()

    async def add(a: int, b: int) -> int:
        await anyio.sleep(0)
        return a + b

    def where() -> int:
        return threading.get_ident()

    def fails() -> None:
        raise LookupError("nope")

    with anyio.fail_after(5):
        assert await call_abandonable(add, 2, 3, timeout_s=1) == 5
        assert await call_abandonable(where, timeout_s=1) != caller  # sync code never holds the event loop
        with pytest.raises(LookupError, match="nope"):
            await call_abandonable(fails, timeout_s=1)
        with pytest.raises(TimeoutError, match=r"^late$"):
            await call_abandonable(anyio.sleep, 5, timeout_s=0.05, timeout_message="late")


async def test_call_abandonable_closes_a_coroutine_delivered_after_the_deadline() -> None:
    made: list[Any] = []

    def slow_factory() -> Any:
        time.sleep(0.2)
        coroutine = _awaitable_garbage()
        made.append(coroutine)
        return coroutine

    with anyio.fail_after(5):
        with pytest.raises(TimeoutError):
            await call_abandonable(slow_factory, timeout_s=0.05)
        while not made or inspect.getcoroutinestate(made[0]) != inspect.CORO_CLOSED:
            await anyio.sleep(0.02)


# --- tool factories and register (defect 15) -----------------------------------------------------------------


class _Plugin:
    def __init__(self, plugin_id: str, register: Any, tools: tuple[str, ...]) -> None:
        self.id = plugin_id
        self.tools = tools
        self.optional_tools = ()
        self.register = register


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": name, "parameters": {"type": "object"}, "execute": lambda *a: name}


async def _collect(plugins: list[_Plugin], **options: Any) -> tuple[list[str], list[str], float]:
    logs: list[str] = []
    started = time.monotonic()
    with anyio.fail_after(10):
        collected = await collect_plugin_tools(
            [LoadedPlugin(plugin.id, plugin) for plugin in plugins],
            config={},
            policy=plugin_tools_policy({}, agent_id=None, session_key=None),
            context=ToolFactoryContext({}),
            log=logs.append,
            **options,
        )
    return [tool.name for tool in collected.tools], logs, time.monotonic() - started


async def test_factories_that_never_resolve_are_skipped_with_one_line_each(released: list[Hostile]) -> None:
    swallowing = Hostile("swallow", lambda e, c: _tool("late"))
    blocking = Hostile("sync", lambda e, c: _tool("late"))
    released.extend([swallowing, blocking])

    async def forever(ctx: ToolFactoryContext) -> Any:
        await anyio.sleep_forever()

    def register(api: PluginApi) -> None:
        api.register_tool(lambda ctx: _tool("good_one"), names=["good_one"])
        api.register_tool(forever, names=["stuck_a"])
        api.register_tool(lambda ctx: swallowing.handler()({}, {}), names=["stuck_b"])
        api.register_tool(lambda ctx: blocking.handler()({}, {}), names=["stuck_c"], timeout_ms=150.9)
        api.register_tool(lambda ctx: _tool("good_two"), names=["good_two"])

    tools = ("good_one", "stuck_a", "stuck_b", "stuck_c", "good_two")
    names, logs, elapsed = await _collect([_Plugin("p", register, tools)], timeout_ms=100)
    assert names == ["good_one", "good_two"]
    assert logs == [
        "plugin tool failed (p): tool factory timed out after 100ms",
        "plugin tool failed (p): tool factory timed out after 100ms",
        "plugin tool failed (p): tool factory timed out after 150ms",
    ]
    assert elapsed < 2.0
    await swallowing.release()
    await blocking.release()


async def test_a_register_that_never_returns_skips_its_plugin_and_the_others_serve(released: list[Hostile]) -> None:
    blocking = Hostile("sync")
    released.append(blocking)

    async def stuck_async(api: PluginApi) -> None:
        api.register_tool(_tool("never_served"))
        await anyio.sleep_forever()

    def stuck_sync(api: PluginApi) -> None:
        blocking.handler()({}, {})

    def fine(api: PluginApi) -> None:
        api.register_tool(_tool("served"))

    plugins = [
        _Plugin("a", stuck_async, ("never_served",)),
        _Plugin("b", stuck_sync, ()),
        _Plugin("c", fine, ("served",)),
    ]
    names, logs, _ = await _collect(plugins, timeout_ms=100)
    assert names == ["served"]
    assert logs == [
        "plugin failed to register (a): register timed out after 100ms",
        "plugin failed to register (b): register timed out after 100ms",
    ]
    await blocking.release()


async def test_a_factory_may_ask_for_more_time_than_the_default() -> None:
    async def slow(ctx: ToolFactoryContext) -> Any:
        await anyio.sleep(0.2)
        return _tool("slow")

    def register(api: PluginApi) -> None:
        api.register_tool(slow, names=["slow"], timeout_ms=2_000)

    names, logs, _ = await _collect([_Plugin("p", register, ("slow",))], timeout_ms=50)
    assert names == ["slow"] and logs == []


@pytest.mark.parametrize("timeout_ms", [0, -1, "300", True, float("nan"), float("inf"), None])
async def test_a_factory_timeout_that_is_not_a_positive_number_means_the_default(timeout_ms: Any) -> None:
    api = PluginApi("p", {}, HookRegistry())
    api.register_tool(lambda ctx: None, timeout_ms=timeout_ms)
    assert api.registrations[0].timeout_ms is None
    assert DEFAULT_PLUGIN_CALL_TIMEOUT_MS == 5_000


# --- the process deadline ------------------------------------------------------------------------------------------

_STUCK_PROCESS = """
import sys, threading
from openclaw_mcp.entrypoints.stdio_process import Stderr, exit_deadline
threading.Thread(target=threading.Event().wait).start()  # a non-daemon thread that never ends
exit_deadline(3, 0.3, stderr=Stderr(sys.stderr), line="stuck: exiting")
print("served", flush=True)
"""


async def test_exit_deadline_ends_a_process_that_cannot_end_itself() -> None:
    started = time.monotonic()
    done = await anyio.to_thread.run_sync(
        lambda: subprocess.run(
            [sys.executable, "-c", _STUCK_PROCESS], capture_output=True, text=True, timeout=20, check=False
        )
    )
    assert done.returncode == 3 and time.monotonic() - started < 10
    assert done.stdout == "served\n" and done.stderr == "stuck: exiting\n"


async def test_exit_deadline_stays_silent_when_the_process_ends_in_time() -> None:
    code = _STUCK_PROCESS.replace("threading.Thread(target=threading.Event().wait).start()", "")
    done = await anyio.to_thread.run_sync(
        lambda: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20, check=False)
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "served\n", "")
