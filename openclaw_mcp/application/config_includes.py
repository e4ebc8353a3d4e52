"""Answering the domain's ``$include`` walks through the ``IncludeLoader`` port (spec cli-registry §1.2 item 4).

The walk (``domain.includes.include_walk``, or ``domain.config_load.config_analysis`` built on it) asks for
one file at a time; :class:`IncludeAnswers` answers it from the port and remembers every answer, so a later
walk over a document with the same directives (the would-be config a commit validates, right after the
current one was analysed) is answered again without touching the files.

:func:`run_walk` awaits the port: file reads run off the event loop. :meth:`IncludeAnswers.answer_now` serves
the synchronous callers (``ConfigService.validate_document``, called from a change callback): remembered
answers first; a request never asked before is put to the port directly when no event loop runs (inline
compositions, whose adapters never suspend), and otherwise on a private event loop in another thread while
the caller waits — the one case that still holds up the caller's loop, reached only when a change introduces
a ``$include`` the analysis before it did not read.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Coroutine, Generator
from typing import TYPE_CHECKING, Any, TypeVar

from openclaw_mcp.domain.includes import IncludeError, IncludeRequest, ResolveInclude

if TYPE_CHECKING:
    from openclaw_mcp.application.ports.config import IncludeLoader

__all__ = ["IncludeAnswers", "run_walk"]

T = TypeVar("T")


class IncludeAnswers:
    """The loader's answers to the requests of the walks run through it (a failure is an answer too)."""

    def __init__(self, loader: IncludeLoader) -> None:
        self._loader = loader
        self._answers: dict[IncludeRequest, tuple[bool, Any]] = {}  # request -> (ok, value or IncludeError)

    def _ask(self, request: IncludeRequest) -> Coroutine[Any, Any, Any]:
        if isinstance(request, ResolveInclude):
            return self._loader.resolve(request.include_path, request.including_file)
        return self._loader.load(request.include_path, request.resolved_path)

    async def answer(self, request: IncludeRequest) -> Any:
        """The answer to ``request``: remembered, or asked of the port. Raises ``IncludeError``."""
        if request in self._answers:
            return self._recalled(request)
        try:
            value = await self._ask(request)
        except IncludeError as exc:
            self._answers[request] = (False, exc)
            raise
        self._answers[request] = (True, value)
        return value

    def answer_now(self, request: IncludeRequest) -> Any:
        """:meth:`answer` for a caller that cannot await (see the module docstring)."""
        if request in self._answers:
            return self._recalled(request)
        try:
            value = _on_private_loop(self._ask, request) if _on_event_loop() else _complete(self._ask(request))
        except IncludeError as exc:
            self._answers[request] = (False, exc)
            raise
        self._answers[request] = (True, value)
        return value

    def _recalled(self, request: IncludeRequest) -> Any:
        ok, value = self._answers[request]
        if not ok:
            raise IncludeError(value.message) from value
        return value


async def run_walk(walk: Generator[IncludeRequest, Any, T], answers: IncludeAnswers) -> T:
    """Run ``walk`` to its result, answering its requests through ``answers``; an ``IncludeError`` is thrown
    into the walk (which may turn it into its result). Raises what the walk raises."""
    reply: Any = None
    failure: IncludeError | None = None
    try:
        while True:
            request = walk.send(reply) if failure is None else walk.throw(failure)
            reply, failure = None, None
            try:
                reply = await answers.answer(request)
            except IncludeError as exc:
                failure = exc
    except StopIteration as done:
        result: T = done.value
        return result
    finally:
        walk.close()


def _on_event_loop() -> bool:
    """Whether this thread runs an (anyio) event loop; never in an inline process, which imports no anyio."""
    if "anyio" not in sys.modules:
        return False
    import anyio.lowlevel

    try:
        anyio.lowlevel.current_token()
    except RuntimeError:  # anyio's NoEventLoopError
        return False
    return True


def _complete(coro: Coroutine[Any, Any, T]) -> T:
    """``coro``'s result, run without an event loop (the port's adapters composed without one never suspend)."""
    try:
        coro.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    coro.close()
    raise RuntimeError("internal error: an include loader composed without an event loop tried to suspend")


def _on_private_loop(ask: Callable[[IncludeRequest], Coroutine[Any, Any, T]], request: IncludeRequest) -> T:
    """``ask(request)`` run on an event loop of its own, in another thread, while this thread waits."""
    import anyio.from_thread  # deferred: an inline process never gets here

    async def run() -> T:
        return await ask(request)

    with anyio.from_thread.start_blocking_portal() as portal:
        return portal.call(run)
