"""``GatewayHealthProbe`` over httpx2 (the project's httpx): one GET of ``/healthz`` on a fresh client
(spec openclaw-tools.md §7.3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import anyio
import httpx2

__all__ = ["HttpxGatewayHealthProbe"]

_UNREACHABLE: Final = "fetch failed"
_TIMED_OUT: Final = "This operation was aborted"


class HttpxGatewayHealthProbe:
    """Probes with ``httpx2.AsyncClient`` (no proxy from the environment, no redirects followed).

    ``transport`` is for tests (e.g. ``httpx2.MockTransport``)."""

    def __init__(self, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        self._transport = transport

    async def healthy(self, http_url: str, timeout_s: float) -> str | None:
        url = http_url.rstrip("/") + "/healthz"
        with anyio.move_on_after(timeout_s):  # the whole exchange, as the reference's abort timer
            try:
                async with (
                    httpx2.AsyncClient(transport=self._transport, trust_env=False, timeout=timeout_s) as client,
                    client.stream("GET", url) as response,
                ):
                    if response.is_success:
                        return None
                    return response.reason_phrase or str(response.status_code)
            except httpx2.TimeoutException:
                return _TIMED_OUT
            except (httpx2.HTTPError, OSError, ValueError):
                return _UNREACHABLE
        return _TIMED_OUT


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.gateway_health import GatewayHealthProbe

    _: GatewayHealthProbe = HttpxGatewayHealthProbe()
