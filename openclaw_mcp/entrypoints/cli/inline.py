"""Running a use case's coroutine without an event loop.

The registry commands that do not connect (``list``, ``show``, ``status``, ``set``, …) drive their async use
cases with :func:`run_inline` over adapters composed never to suspend (``entrypoints.composition`` with
``inline=True``): this saves importing asyncio and anyio at start-up. A coroutine that suspends anyway is a
composition bug, reported as :class:`InlineSuspended`.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["InlineSuspended", "run_inline"]

T = TypeVar("T")


class InlineSuspended(RuntimeError):
    """Internal error: a coroutine run by :func:`run_inline` tried to suspend (wait on an event loop)."""


def run_inline(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on this thread, without an event loop; return its result or raise its
    exception. Raises :class:`InlineSuspended` (after closing ``coro``) if it suspends."""
    try:
        yielded = coro.send(None)
    except StopIteration as stop:
        result: T = stop.value
        return result
    coro.close()
    raise InlineSuspended(
        f"internal error: a command run without an event loop tried to suspend (it awaited {yielded!r})"
    )
