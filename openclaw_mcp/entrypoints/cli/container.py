"""``--container NAME`` / ``OPENCLAW_CONTAINER``: re-run the same argv inside a running Podman or Docker container.

As OpenClaw 2026.9.6: ``podman`` then ``docker`` are asked ``inspect --format {{.State.Running}} NAME`` (10 s
each, a missing runtime counts as not running); exactly one must answer ``true``; the command then runs as
``<runtime> exec -i [-t] -e OPENCLAW_CONTAINER_HINT=NAME -e OPENCLAW_CLI_CONTAINER_BYPASS=1 NAME openclaw …``
with the terminal inherited, and its exit code is ours. Inside, ``OPENCLAW_CLI_CONTAINER_BYPASS=1`` stops a
second hop.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence

__all__ = ["ContainerError", "container_target", "run_in_container"]

RUNTIMES = ("podman", "docker")
_PROBE_TIMEOUT_S = 10.0
_DROPPED_ENV = (
    "OPENCLAW_PROFILE",
    "OPENCLAW_GATEWAY_PORT",
    "OPENCLAW_GATEWAY_URL",
    "OPENCLAW_GATEWAY_TOKEN",
    "OPENCLAW_GATEWAY_PASSWORD",
)


class ContainerError(Exception):
    """The reference's reason line for a container run that cannot start (printed in the failure frame)."""


def container_target(flag: str | None, env: Mapping[str, str]) -> str | None:
    """The container to run in: the flag, else ``OPENCLAW_CONTAINER``; ``None`` under the bypass."""
    if env.get("OPENCLAW_CLI_CONTAINER_BYPASS") == "1":
        return None
    return flag or (env.get("OPENCLAW_CONTAINER") or "").strip() or None


def _running(runtime: str, name: str) -> bool:
    try:
        done = subprocess.run(
            [runtime, "inspect", "--format", "{{.State.Running}}", name],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() == "true"


def _primary(argv: Sequence[str]) -> str | None:
    return next((token for token in argv if not token.startswith("-")), None)


def run_in_container(name: str, argv: Sequence[str], env: Mapping[str, str]) -> int:
    """Run ``openclaw <argv…>`` in container ``name``; its exit code (128 + N when it died of signal N)."""
    if _primary(argv) == "update" or "--update" in argv:
        raise ContainerError(
            "openclaw update is not supported with --container; rebuild or restart the container image instead."
        )
    matches = [runtime for runtime in RUNTIMES if _running(runtime, name)]
    if not matches:
        raise ContainerError(f'No running container matched "{name}" under podman or docker.')
    if len(matches) > 1:
        raise ContainerError(
            f'Container "{name}" is running under multiple runtimes ({", ".join(matches)}); '
            "use a unique container name."
        )
    runtime = matches[0]
    flag = "-e" if runtime == "docker" else "--env"
    tty = ["-t"] if sys.stdin.isatty() and sys.stdout.isatty() else []
    proxy = (env.get("OPENCLAW_PROXY_URL") or "").strip()
    command = [runtime, "exec", "-i", *tty, flag, f"OPENCLAW_CONTAINER_HINT={name}", flag]
    command += ["OPENCLAW_CLI_CONTAINER_BYPASS=1", *([flag, f"OPENCLAW_PROXY_URL={proxy}"] if proxy else [])]
    command += [name, "openclaw", *argv]
    child_env = {key: value for key, value in env.items() if key not in _DROPPED_ENV}
    child_env["OPENCLAW_CONTAINER"] = ""
    sys.stdout.flush()
    try:
        code = subprocess.call(command, env=child_env)
    except OSError as exc:
        raise ContainerError(f"{runtime} exec failed: {exc.strerror or exc}") from exc
    return 128 - code if code < 0 else code
