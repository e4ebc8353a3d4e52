"""The errors of the ``before_tool_call`` boundary."""

from __future__ import annotations

from openclaw_mcp.application.errors import ApplicationError

__all__ = ["HookRegistrationError", "ToolCallBlocked"]


class HookRegistrationError(ValueError):
    """A hook registration was refused (an invalid tool matcher); the message is the reference's text, e.g.
    ``tool hook matcher must be an array of tool names`` (plugin-tools.md §6.5)."""


class ToolCallBlocked(ApplicationError):
    """The boundary's *failure* outcome: the tool did not run and the call fails. ``str(exc)`` (also
    ``reason``) is the reason text, e.g. ``Tool call blocked because before_tool_call hook failed``;
    ``denied_reason`` is the reason code (``plugin-before-tool-call``, ``plugin-approval``)."""

    def __init__(self, reason: str, *, denied_reason: str = "plugin-before-tool-call") -> None:
        super().__init__(reason)
        self.reason = reason
        self.denied_reason = denied_reason
