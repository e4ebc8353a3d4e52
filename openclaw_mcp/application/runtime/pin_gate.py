"""Holding unreviewed tools of pinned servers out of the catalog (issue 35).

For a server with pins, each listing is classified against them (``domain.tool_pins``): a tool whose
fingerprint changed, or a new one, is held — removed from the listing before the catalog is built, so no
catalog view (the agent's tools, probe, the tools servers, the settings page) ever sees it — with one warning
line per held tool per listing; a pinned tool no longer listed is reported likewise. A server without pins
is passed through untouched (no warning, no report: byte for byte what it was).

Fail closed: when the pin store cannot be read, whether the server is pinned is unknown, so every listed tool
of it is held, with the one line ``pin store unreadable: <reason>; tools of pinned servers are held``
(printed once per process and reason).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from openclaw_mcp.application.ports.tool_pins import ToolPinStore, ToolPinStoreError
from openclaw_mcp.application.runtime.services import WarningDedupe
from openclaw_mcp.domain.tool_pins import PinReport, classify, held_line, removed_line, tool_name, unreadable_line

__all__ = ["hold_unreviewed"]


async def hold_unreviewed(
    pins: ToolPinStore | None,
    server_name: str,
    listed: Sequence[Any],
    warn: Callable[[str], None],
    once: WarningDedupe,
) -> tuple[list[Any], PinReport | None]:
    """The listing without held tools, and the report of a pinned server (``None``: not pinned, or no store —
    the listing is returned as given)."""
    if pins is None:
        return list(listed), None
    try:
        stored = await pins.read_server(server_name)
    except ToolPinStoreError as exc:
        reason = str(exc)
        if once.first_time(("tool-pins", reason)):
            warn(unreadable_line(reason))
        names = dict.fromkeys(tool_name(tool) for tool in listed)
        return [], PinReport(held=tuple((name, "unreadable") for name in names))
    if stored is None:
        return list(listed), None
    verdict = classify(stored.fingerprints(), listed)
    report = PinReport.of(verdict)
    for name, reason in report.held:
        warn(held_line(server_name, name, reason))
    for name in report.removed:
        warn(removed_line(server_name, name))
    kept = [tool for tool in listed if tool_name(tool) not in verdict.held]
    return kept, report
