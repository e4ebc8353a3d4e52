"""A shared single-flight result: many waiters, one producer task."""

from __future__ import annotations

from typing import Generic, TypeVar

import anyio

__all__ = ["Flight"]

_T = TypeVar("_T")


class Flight(Generic[_T]):
    """A result many tasks wait for and one task produces (``resolve`` or ``fail``, once)."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.value: _T | None = None
        self.error: BaseException | None = None

    def resolve(self, value: _T) -> None:
        self.value = value
        self.done.set()

    def fail(self, error: BaseException) -> None:
        self.error = error
        self.done.set()

    async def wait(self) -> _T:
        await self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]
