"""Answering the domain's ``$include`` walks through the ``IncludeLoader`` port (spec cli-registry §1.2 item 4).

The walk (``domain.includes.include_walk``, or ``domain.config_load.config_analysis`` built on it) asks for
one file at a time; :class:`IncludeAnswers` answers it from the port and remembers every answer, so a later
walk over a document with the same directives (the would-be config a commit validates, right after the
current one was analysed) is answered again without touching the files.

:func:`run_walk` awaits the port: file reads run off the event loop (an inline composition's loader never
suspends, so the same coroutines run without one).
"""

from __future__ import annotations

from collections.abc import Coroutine, Generator
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
