"""The real agent CLIs (Codex, Claude Code, Gemini CLI) installed by scripts/install_agent_clients.sh.

Missing clients skip this tier locally and fail it under CI (``CI`` set), like the browser and Gateway tiers.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docker.gateway_harness import find_reference, running_under_ci

INSTALL_HINT = "bash scripts/install_agent_clients.sh"


@dataclass(frozen=True, slots=True)
class AgentClients:
    bin_dir: Path
    path: str
    """``PATH`` with the clients and a Node.js ≥ 20 first."""

    def command(self, name: str) -> str:
        return str(self.bin_dir / name)


def clients_dir() -> Path:
    explicit = os.environ.get("OPENCLAW_AGENT_CLIENTS_DIR", "").strip()
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "openclaw-agent-clients"


@pytest.fixture(scope="session")
def agent_clients() -> AgentClients:
    bin_dir = clients_dir() / "node_modules" / ".bin"
    missing = [name for name in ("codex", "claude", "gemini") if not (bin_dir / name).exists()]
    reference = find_reference()
    node_dir = str(reference.node.parent) if reference is not None else None
    if node_dir is None and shutil.which("node") is not None:
        node_dir = str(Path(shutil.which("node") or "node").parent)
    if missing or node_dir is None:
        what = ", ".join(missing) if missing else "node"
        reason = f"agent clients not installed ({what}); install them with: {INSTALL_HINT}"
        if running_under_ci():
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    return AgentClients(bin_dir, os.pathsep.join([str(bin_dir), node_dir, "/usr/bin", "/bin"]))
