"""Fixtures of the real-Gateway tier (spec gateway-protocol.md §9, serve-bridge.md §12 cases marked S).

* ``reference`` (module): the installed reference OpenClaw 2026.9.6. Absent → the module is skipped with the
  install command, except under ``CI=true`` where it is an error (``.ci/run`` installs it).
* ``real_gateway`` (module): a seeded Gateway (mock OpenAI server, seed, ``gateway run`` on a free loopback
  port with a token) in its own temporary directory, ready; stopped by process group afterwards. It yields a
  :class:`~tests.docker.gateway_harness.RealGateway`: ``url``, ``token``, ``token_file``, ``state_dir``,
  ``operator(kind)`` connections for test-only methods and ``chat.send``, ``kill()`` / ``restart()``,
  ``new_bridge_state()`` / ``bridge_env()`` for bridge processes.

The contract suite's own real Gateway comes from the plugin in gateway_plugin.py (it must exist before
collection); ``RealGateway.contract_env()`` gives the same variables for a Gateway started by hand.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.docker.gateway_harness import RealGateway, Reference, find_reference, running_under_ci

INSTALL_HINT = "bash scripts/install_reference.sh"


@pytest.fixture(scope="module")
def reference() -> Reference:
    found = find_reference()
    if found is None:
        reason = f"the reference OpenClaw 2026.9.6 (node 24) is not installed; install it with: {INSTALL_HINT}"
        if running_under_ci():
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    return found


@pytest.fixture(scope="module")
def real_gateway(reference: Reference) -> Iterator[RealGateway]:
    gateway = RealGateway.prepare(reference)
    keep = os.environ.get("OPENCLAW_TEST_KEEP_STATE", "") == "1"
    try:
        gateway.boot()
        yield gateway
    finally:
        gateway.stop(remove=not keep)
