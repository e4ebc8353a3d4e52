"""``WebsocketsGatewayCaller`` (the one-shot ``callGateway`` of openclaw-tools.md §6.3) against the module's real,
seeded OpenClaw 2026.9.6 Gateway (the ``real_gateway`` fixture of conftest.py): token auth on loopback, no
device — the ``gateway-client``/``backend`` client keeps its requested scopes without one (gateway-protocol §2.3).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import anyio
import pytest

from openclaw_mcp.adapters.ws.oneshot import WebsocketsGatewayCaller
from openclaw_mcp.application.ports.gateway import GatewayCallTarget, GatewayRequestError
from tests.docker.gateway_harness import RealGateway
from tests.docker.test_openclaw_tools_acceptance import run_acceptance

pytestmark = [pytest.mark.asyncio, pytest.mark.reference]

TOKEN_MISMATCH = "unauthorized: gateway token mismatch (provide gateway auth token)"


async def test_cron_status_over_a_one_shot_call(real_gateway: RealGateway) -> None:
    logs: list[str] = []
    target = GatewayCallTarget(url=real_gateway.url, token=real_gateway.token)
    with anyio.fail_after(60):
        status = await WebsocketsGatewayCaller().call(
            target, "cron.status", {}, scopes=["operator.read"], timeout_ms=30_000, log=logs.append
        )
    assert isinstance(status, dict), status
    assert status["storage"] == "sqlite"
    assert isinstance(status["jobs"], int) and not isinstance(status["jobs"], bool)
    assert logs == []


async def test_a_wrong_token_is_rejected_with_the_backend_hint(real_gateway: RealGateway) -> None:
    logs: list[str] = []
    target = GatewayCallTarget(url=real_gateway.url, token="not-the-token")
    with anyio.fail_after(60), pytest.raises(GatewayRequestError) as caught:
        await WebsocketsGatewayCaller().call(
            target, "cron.status", {}, scopes=["operator.read"], timeout_ms=30_000, log=logs.append
        )
    assert str(caught.value) == TOKEN_MISMATCH
    assert caught.value.details is not None and caught.value.details.get("code") == "AUTH_TOKEN_MISMATCH"
    assert logs == [f"gateway connect failed: GatewayClientRequestError: {TOKEN_MISMATCH}"]


async def test_acceptance_7_passes_against_the_real_gateway(real_gateway: RealGateway) -> None:
    """The whole server: spec acceptance test 7 with ``--real-port`` (openclaw-tools.md §11)."""
    port = urlsplit(real_gateway.url).port
    assert port is not None
    args = ("--only", "7", "--real-port", str(port), "--real-token", real_gateway.token)
    done = await anyio.to_thread.run_sync(lambda: run_acceptance(*args))
    assert done.returncode == 0 and done.stdout.startswith("PASS 7 "), done.stdout + done.stderr
