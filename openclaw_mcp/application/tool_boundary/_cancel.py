"""The cancellation handle of one tool call: what a hook sees as ``ctx["abortSignal"]`` and a tool receives
(the reference's ``AbortSignal``)."""

from __future__ import annotations

import anyio

__all__ = ["CancelSignal"]


class CancelSignal:
    """A one-shot cancellation flag with an awaitable.

    May be created anywhere, also outside a running event loop (anyio's ``Event`` binds to the loop on first
    use); :meth:`cancel` and :meth:`wait` must then be called from that loop's thread. Cancelling twice keeps
    the first reason."""

    __slots__ = ("_cancelled", "_event", "_reason")

    def __init__(self) -> None:
        self._event = anyio.Event()
        self._cancelled = False
        self._reason: object = None

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called (the reference's ``signal.aborted``)."""
        return self._cancelled

    @property
    def reason(self) -> object:
        """The reason given to :meth:`cancel` (``None`` until then, or when none was given)."""
        return self._reason

    def cancel(self, reason: object = None) -> None:
        """Cancel the call; every :meth:`wait` returns."""
        if self._cancelled:
            return
        self._cancelled = True
        self._reason = reason
        self._event.set()

    async def wait(self) -> None:
        """Return once the call is cancelled (at once when it already is)."""
        await self._event.wait()

    def __repr__(self) -> str:
        return f"CancelSignal(cancelled={self._cancelled!r}, reason={self._reason!r})"
