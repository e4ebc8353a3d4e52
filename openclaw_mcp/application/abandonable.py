"""Calling plugin code under a deadline that does not depend on the plugin's cooperation (issue 32: the
``before_tool_call`` hooks, their ``onResolution`` callbacks, plugin ``register`` and tool factories).

    value = await call_abandonable(handler, event, ctx, timeout_s=0.3, timeout_message="timed out after 300ms")

A deadline enforced with a cancel scope around the plugin's awaitable relies on the plugin: code that catches the
cancellation can answer anyway (``except:`` → ``None``), code that swallows it in a loop never returns, and a
sync function that blocks holds the event loop. Here the plugin code never runs in the caller's task:

* a coroutine function runs in a **detached task** of the running asyncio loop (owned by no task group, so
  nobody ever waits for it); on expiry it gets one cancellation, and whatever it does later is dropped;
* any other callable runs in a **daemon thread**; on expiry the thread is left to finish on its own (a
  daemon thread never keeps the interpreter alive); an awaitable it returns is awaited in a detached task;
* the caller waits for the *delivery* of the result, under the deadline: expiry raises ``TimeoutError`` at
  once, whether the plugin code stops, answers late, or never ends. The caller's own cancellation abandons
  the call the same way.

Detached tasks are the point: structured concurrency cannot abandon a task that refuses cancellation, since a
task group waits for its children. A process that must exit while such code still runs bounds its own
shutdown (``entrypoints.stdio_process.exit_deadline``). Decision: asyncio only (the backend every entrypoint
runs); elsewhere :func:`call_abandonable` raises ``RuntimeError``, which the boundary's callers turn into a
closed failure.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

__all__ = ["call_abandonable"]

_DETACHED: set[asyncio.Task[None]] = set()
"""Strong references to the running detached tasks (the loop keeps only weak ones)."""


def _is_coroutine_function(func: object) -> bool:
    """A coroutine function, or a callable object whose ``__call__`` is one (``functools.partial`` included)."""
    dunder_call = inspect.getattr_static(type(func), "__call__", None)
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(dunder_call)


def _as_error(exc: BaseException) -> Exception:
    """What the caller re-raises for an error of the plugin code: an ``Exception`` as it is; anything else
    (``SystemExit``, ``KeyboardInterrupt``, a cancellation the code raised by itself) as a ``RuntimeError``,
    so that it fails the call and never ends the caller's task or process."""
    if isinstance(exc, Exception):
        return exc
    message = str(exc)
    error = RuntimeError(f"{type(exc).__name__}: {message}" if message else type(exc).__name__)
    error.__cause__ = exc
    return error


def _discard(value: object) -> None:
    """Drop a result nobody will await (a coroutine is closed, so it warns about nothing)."""
    if inspect.iscoroutine(value):
        value.close()


class _Call:
    """One call's delivery: set once, from the loop's thread; :meth:`abandon` makes later deliveries no-ops."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.done = anyio.Event()
        self.value: object = None
        self.error: Exception | None = None
        self.abandoned = False
        self._task: asyncio.Task[None] | None = None

    def settle(self, value: object, error: BaseException | None) -> None:
        if self.abandoned or self.done.is_set():
            _discard(value)
            return
        if error is not None:
            self.error = _as_error(error)
        else:
            self.value = value
        self.done.set()

    def abandon(self) -> None:
        """Give up on the call: one cancellation for its task (a thread cannot be stopped)."""
        self.abandoned = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def start_task(self, start: Callable[[], object]) -> None:
        """Run ``start()`` (and await what it returns) in a detached task."""
        task = self._loop.create_task(self._drive(start))
        _DETACHED.add(task)
        task.add_done_callback(_DETACHED.discard)
        self._task = task

    async def _drive(self, start: Callable[[], object]) -> None:
        try:
            value = start()
            if inspect.isawaitable(value):
                value = await value
        except BaseException as exc:  # plugin code: every outcome is delivered, never raised here
            if not self.abandoned:
                self.settle(None, exc)
            return
        self.settle(value, None)

    def start_thread(self, func: Callable[..., object], args: tuple[Any, ...]) -> None:
        """Run ``func(*args)`` in a daemon thread (with the caller's context variables)."""
        context = contextvars.copy_context()
        thread = threading.Thread(
            target=context.run, args=(self._run_in_thread, func, args), name="openclaw plugin call", daemon=True
        )
        thread.start()

    def _run_in_thread(self, func: Callable[..., object], args: tuple[Any, ...]) -> None:
        value: object = None
        error: BaseException | None = None
        try:
            value = func(*args)
        except BaseException as exc:  # delivered to the caller (fails its call)
            error = exc
        try:
            self._loop.call_soon_threadsafe(self._from_thread, value, error)
        except RuntimeError:  # the loop is closed: nobody waits any more
            _discard(value)

    def _from_thread(self, value: object, error: BaseException | None) -> None:
        if error is None and inspect.isawaitable(value) and not (self.abandoned or self.done.is_set()):
            awaitable: Awaitable[object] = value
            self.start_task(lambda: awaitable)
            return
        self.settle(value, error)


async def call_abandonable(func: Callable[..., object], *args: Any, timeout_s: float, timeout_message: str = "") -> Any:
    """``func(*args)``'s result (awaited when it is awaitable) within ``timeout_s`` seconds.

    Raises ``TimeoutError(timeout_message)`` when nothing was delivered in time — at once, without waiting for
    ``func`` to stop; what it delivers later is dropped. An ``Exception`` raised by ``func`` propagates as it
    is; any other ``BaseException`` it raises becomes a ``RuntimeError`` (see :func:`_as_error`). Cancelling
    the caller abandons the call and propagates. ``RuntimeError`` outside an asyncio loop."""
    call = _Call(asyncio.get_running_loop())
    if _is_coroutine_function(func):
        call.start_task(lambda: func(*args))
    else:
        call.start_thread(func, args)
    try:
        with anyio.move_on_after(timeout_s):
            await call.done.wait()
    finally:
        if not call.done.is_set():
            call.abandon()
    if not call.done.is_set():
        raise TimeoutError(timeout_message) if timeout_message else TimeoutError()
    if call.error is not None:
        raise call.error
    return call.value
