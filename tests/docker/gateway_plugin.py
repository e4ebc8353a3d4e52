"""pytest plugin: a real Gateway for the ``reference`` parameter of tests/contract/test_gateway_contract.py.

That suite reads ``OPENCLAW_TEST_GATEWAY_URL`` / ``OPENCLAW_TEST_GATEWAY_TOKEN`` when it is imported, so they
must be set before collection. Load this plugin from the rootdir (``conftest.py`` with
``pytest_plugins = ["tests.docker.gateway_plugin"]``, or ``-p tests.docker.gateway_plugin``) and it:

* at configure time — when the variables are not set already, the reference is installed, the contract
  suite is among the selected paths and ``OPENCLAW_TEST_REAL_GATEWAY`` is not ``0`` — picks a free loopback
  port and a token, exports both variables and boots a seeded Gateway (gateway_harness.RealGateway) in a
  background thread, so the ~10–40 s start overlaps with the tests that run first;
* before each ``reference``-marked test of the contract suite, waits for that Gateway to be ready (a failed
  start fails those tests with the Gateway's log tail);
* under ``CI=true`` without the reference installed, fails those tests instead of letting them skip;
* stops the Gateway (by process group) when the session ends.
"""

from __future__ import annotations

import os
import secrets
import threading
from pathlib import Path

import pytest

from tests.docker.gateway_harness import RealGateway, find_reference, free_port, running_under_ci

__all__ = ["BackgroundGateway"]

CONTRACT_SUITE = Path(__file__).resolve().parents[1] / "contract" / "test_gateway_contract.py"
_KEY = pytest.StashKey["BackgroundGateway | str"]()
"""The background Gateway, or why the contract suite's ``reference`` cases must fail (a message)."""


class BackgroundGateway:
    """A :class:`RealGateway` booting in a thread on a port fixed in advance."""

    def __init__(self, gateway: RealGateway, port: int) -> None:
        self.gateway = gateway
        self.port = port
        self.url = f"ws://127.0.0.1:{port}"
        self.error: BaseException | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._boot, name="real-gateway-boot", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _boot(self) -> None:
        try:
            self.gateway.boot(port=self.port)
        except BaseException as exc:  # reported to the tests that need it
            self.error = exc
        finally:
            self._done.set()

    def wait(self, timeout: float = 300.0) -> RealGateway:
        if not self._done.wait(timeout):
            raise TimeoutError(f"the real Gateway did not start within {timeout:.0f} s")
        if self.error is not None:
            raise RuntimeError(f"the real Gateway did not start: {self.error}") from self.error
        return self.gateway

    def stop(self) -> None:
        self.gateway.abort()  # no-op once booted; else the boot gives up at its next step
        self._done.wait(300.0)
        self._thread.join(timeout=5.0)
        self.gateway.stop(remove=os.environ.get("OPENCLAW_TEST_KEEP_STATE", "") != "1")


def _selects_contract_suite(config: pytest.Config) -> bool:
    markexpr = str(getattr(config.option, "markexpr", "") or "")
    if "not reference" in markexpr:
        return False
    args = [arg for arg in config.args if not arg.startswith("-")]
    if not args:
        return True
    for arg in args:
        path = Path(arg.split("::", 1)[0])
        if not path.is_absolute():
            path = Path(config.invocation_params.dir) / path
        path = path.resolve()
        if path == CONTRACT_SUITE or path in CONTRACT_SUITE.parents:
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("OPENCLAW_TEST_GATEWAY_URL", "").strip():
        return  # provided by whoever runs pytest
    if os.environ.get("OPENCLAW_TEST_REAL_GATEWAY", "").strip() == "0" or not _selects_contract_suite(config):
        return
    reference = find_reference()
    if reference is None:
        if running_under_ci():
            config.stash[_KEY] = (
                "CI=true but the reference OpenClaw 2026.9.6 is not installed (bash scripts/install_reference.sh)"
            )
        return
    token = f"contract-{secrets.token_hex(12)}"
    port = free_port()
    background = BackgroundGateway(RealGateway.prepare(reference, token=token), port)
    os.environ["OPENCLAW_TEST_GATEWAY_URL"] = background.url
    os.environ["OPENCLAW_TEST_GATEWAY_TOKEN"] = token
    config.stash[_KEY] = background
    config.add_cleanup(background.stop)
    background.start()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    state = item.config.stash.get(_KEY, None)
    if state is None or item.get_closest_marker("reference") is None:
        return
    if Path(str(item.path)).resolve() != CONTRACT_SUITE:
        return
    if isinstance(state, str):
        pytest.fail(state, pytrace=False)
    try:
        state.wait()
    except (RuntimeError, TimeoutError) as exc:
        pytest.fail(f"{exc}\n{state.gateway.log_tail()}", pytrace=False)
