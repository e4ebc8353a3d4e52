"""A task group held open across an async context manager's ``__aenter__`` and ``__aexit__``.

Objects that own background tasks (connections, runtimes) start them when entered and end them when exited;
the task group must be entered and exited in that same pair of calls, in LIFO order with the caller's other
scopes. This is the one place that does it.
"""

from __future__ import annotations

import anyio
import anyio.abc

__all__ = ["HeldTaskGroup"]


class HeldTaskGroup:
    """``await open()`` in ``__aenter__``, ``await close()`` in ``__aexit__``; :attr:`group` in between."""

    def __init__(self) -> None:
        self._group: anyio.abc.TaskGroup | None = None

    @property
    def group(self) -> anyio.abc.TaskGroup | None:
        """The open task group (``None`` before :meth:`open` and after :meth:`close`)."""
        return self._group

    async def open(self) -> anyio.abc.TaskGroup:
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        return group

    async def close(self, *, cancel: bool = True, shield: bool = False) -> None:
        """Exit the group (a no-op when not open): its tasks are cancelled first unless ``cancel`` is false;
        ``shield`` protects the wait for them from the caller's cancellation (the group's own scope, so the
        LIFO order of scopes holds). Task failures propagate; the caller's exception is never handed in."""
        group, self._group = self._group, None
        if group is None:
            return
        if cancel:
            group.cancel_scope.cancel()
        if shield:
            group.cancel_scope.shield = True
        await group.__aexit__(None, None, None)
