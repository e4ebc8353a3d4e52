"""Suite-wide defaults.

The audit trail (docs/audit.md) records every tool call of the client runtime in the state database of the
environment it is given — the process environment by default, and for a test that hands the runtime a bare
environment, the ``HOME`` it names (``/tmp``, the real home …). So, outside the audit tests:

* the suite's own processes append to one scratch database under pytest's temporary directory (the trail's code
  still runs in every test, its records land nowhere that matters);
* child processes that inherit the environment run with ``OPENCLAW_MCP_AUDIT=off`` unless it is set (tests that
  give a child its own isolated state directory decide for themselves).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from openclaw_mcp.entrypoints import composition

os.environ.setdefault("OPENCLAW_MCP_AUDIT", "off")


@pytest.fixture(autouse=True, scope="session")
def _scratch_audit_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    scratch = str(tmp_path_factory.getbasetemp() / "audit-scratch" / "openclaw.sqlite")
    original = composition.audit_log_at

    def scratch_log(db_path: str, **kwargs: Any) -> Any:
        return original(scratch, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(composition, "audit_log_at", scratch_log)
        yield


@pytest.fixture(autouse=True)
def _real_audit_database_for_audit_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """The audit tests (``test_audit*`` modules) use the real paths."""
    if not request.module.__name__.rpartition(".")[2].startswith("test_audit"):
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(composition, "audit_log_at", _ORIGINAL_AUDIT_LOG_AT)
        yield


_ORIGINAL_AUDIT_LOG_AT = composition.audit_log_at
