"""A scripted in-process approval route implementing the ``PluginApprovals`` port (plugin-tools.md §6.9).

Each :meth:`InMemoryPluginApprovals.decide` records its request and takes the next scripted answer (the
``default`` once the script is used up): a decision string, ``None`` (the request expired), an
:class:`~application.ports.approvals.ApprovalError` to raise, or :data:`PENDING` (the operator never answers:
the call waits until it is cancelled).
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, Literal

import anyio
import anyio.lowlevel

from openclaw_mcp.application.ports.approvals import ApprovalError, PluginApprovalRequest

__all__ = ["PENDING", "InMemoryPluginApprovals", "ScriptedAnswer"]


class _Pending(enum.Enum):
    PENDING = "pending"

    def __repr__(self) -> str:
        return "PENDING"


PENDING: Final = _Pending.PENDING
"""A scripted answer that never comes."""

ScriptedAnswer = str | None | ApprovalError | Literal[_Pending.PENDING]


class InMemoryPluginApprovals:
    """``PluginApprovals`` answered from a script; ``requests`` holds every request received, in order."""

    def __init__(self, script: Iterable[ScriptedAnswer] = (), *, default: ScriptedAnswer = None) -> None:
        self._script: deque[ScriptedAnswer] = deque(script)
        self._default = default
        self.requests: list[PluginApprovalRequest] = []

    def answer(self, *answers: ScriptedAnswer) -> None:
        """Append answers to the script."""
        self._script.extend(answers)

    async def decide(self, request: PluginApprovalRequest) -> str | None:
        self.requests.append(request)
        answer = self._script.popleft() if self._script else self._default
        await anyio.lowlevel.checkpoint()
        if isinstance(answer, _Pending):
            await anyio.sleep_forever()
            raise AssertionError("unreachable: sleep_forever returned")
        if isinstance(answer, ApprovalError):
            raise answer
        return answer


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.approvals import PluginApprovals

    _: PluginApprovals = InMemoryPluginApprovals()
