"""The Gateway health probe the ``openclaw`` tool's ``gateway_status`` uses (spec openclaw-tools.md §7.3)."""

from __future__ import annotations

from typing import Protocol

__all__ = ["GatewayHealthProbe"]


class GatewayHealthProbe(Protocol):
    """Whether a Gateway answers its HTTP health endpoint."""

    async def healthy(self, http_url: str, timeout_s: float) -> str | None:
        """GET ``<http_url>/healthz`` (``http_url`` = the Gateway's HTTP origin, e.g. ``http://127.0.0.1:18789``).

        Returns ``None`` when the answer is 2xx within ``timeout_s`` seconds, else the note to show: the
        status text of a non-2xx answer, ``fetch failed`` when nothing answers, ``This operation was aborted``
        on timeout (the reference's ``fetch`` texts). Never raises for network failures; the response body
        is not read. Idempotent; cancellation propagates (no result).
        """
        ...
