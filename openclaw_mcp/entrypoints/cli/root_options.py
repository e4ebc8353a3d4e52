"""The ``openclaw`` root options, scanned from argv the way OpenClaw 2026.9.6 does before any command runs.

``--profile NAME`` / ``--dev`` / ``--container NAME`` are taken out of argv wherever they appear before a ``--``
(``openclaw mcp list --profile work`` works as ``openclaw --profile work mcp list``); ``--log-level LEVEL`` and
``--no-color`` are global options of the command tree, accepted in the same places. The texts are the reference's;
the state and config paths of a profile follow its ``applyCliProfileEnv``: ``~/.openclaw-NAME`` (``default`` is
``~/.openclaw``), an explicit ``OPENCLAW_STATE_DIR`` / ``OPENCLAW_CONFIG_PATH`` kept unless it points at the
inherited profile's own directory. Pure: the caller passes the environment, the home directory and the working
directory, and applies the returned changes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "LOG_LEVELS",
    "PROFILE_NAME",
    "RootOptionError",
    "RootOptions",
    "invalid_log_level_text",
    "profile_env",
    "profile_state_dir",
    "scan_root_options",
]

LOG_LEVELS = ("silent", "fatal", "error", "warn", "info", "debug", "trace")
PROFILE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.IGNORECASE)
_NEGATIVE_NUMBER = re.compile(r"-\d+(?:\.\d+)?")
_DEV_WITH_PROFILE = "Cannot combine --dev with --profile"


class RootOptionError(Exception):
    """A root option the reference refuses before any command: printed as ``[openclaw] <text>``, exit 2."""


@dataclass(frozen=True)
class RootOptions:
    """What the scan found; ``argv`` is the rest, root options removed."""

    argv: tuple[str, ...]
    profile: str | None = None
    container: str | None = None
    log_level: str | None = None
    """The ``--log-level`` value as given (validated by :func:`invalid_log_level_text`)."""
    no_color: bool = False
    without_container: tuple[str, ...] = field(default=())
    """``argv`` with only ``--container`` taken out: what a container re-run passes on."""


def _is_value_token(token: str | None) -> bool:
    if not token or token == "--":
        return False
    return not token.startswith("-") or _NEGATIVE_NUMBER.fullmatch(token) is not None


def _take_value(token: str, following: str | None) -> tuple[str | None, bool]:
    """``(value or None, consumed the next token)`` for ``--flag value`` / ``--flag=value``."""
    _, equals, inline = token.partition("=")
    if equals:
        return inline.strip() or None, False
    consumed = _is_value_token(following)
    return ((following or "").strip() if consumed else "") or None, consumed


def _flag(token: str, name: str) -> bool:
    return token == name or token.startswith(name + "=")


def scan_root_options(argv: Sequence[str]) -> RootOptions:
    """Take the root options out of ``argv`` (what follows the program name). Raises :class:`RootOptionError`
    with the reference's text for a missing value, a bad profile name, ``--dev`` with ``--profile``."""
    rest: list[str] = []
    without_container: list[str] = []
    profile: str | None = None
    saw_dev = False
    container: str | None = None
    log_level: str | None = None
    no_color = False
    index = 0
    while index < len(argv):
        token = argv[index]
        following = argv[index + 1] if index + 1 < len(argv) else None
        if token == "--":
            rest.extend(argv[index:])
            without_container.extend(argv[index:])
            break
        consumed = False
        if token == "--dev":
            if profile is not None and profile != "dev":
                raise RootOptionError(_DEV_WITH_PROFILE)
            saw_dev, profile = True, "dev"
        elif _flag(token, "--profile"):
            value, consumed = _take_value(token, following)
            if saw_dev:
                raise RootOptionError(_DEV_WITH_PROFILE)
            if value is None:
                raise RootOptionError("--profile requires a value")
            if PROFILE_NAME.fullmatch(value) is None:
                raise RootOptionError('Invalid --profile (use letters, numbers, "_", "-" only)')
            profile = value
        elif _flag(token, "--container"):
            value, consumed = _take_value(token, following)
            if value is None:
                raise RootOptionError("--container requires a value")
            container = value
        elif _flag(token, "--log-level"):
            value, consumed = _take_value(token, following)
            log_level = value if value is not None else ""
        elif token == "--no-color":
            no_color = True
        else:
            rest.append(token)
        taken = 2 if consumed else 1
        if not _flag(token, "--container"):
            without_container.extend(argv[index : index + taken])
        index += taken
    return RootOptions(tuple(rest), profile, container, log_level, no_color, tuple(without_container))


def invalid_log_level_text(value: str) -> str | None:
    """``None`` for a level the reference accepts (exact, after trimming), else its parse-error text."""
    if value.strip() in LOG_LEVELS:
        return None
    levels = "|".join(LOG_LEVELS)
    return (
        f"OpenClaw could not parse this command: option '--log-level <level>' argument '{value}' is invalid. "
        f"Invalid --log-level (use {levels})\nTry: openclaw --help"
    )


def profile_state_dir(profile: str, home: str) -> str:
    """``<home>/.openclaw`` for ``default`` (any case), else ``<home>/.openclaw-<profile>``."""
    trimmed = profile.strip()
    return posixpath.join(home, ".openclaw" if trimmed.lower() == "default" else f".openclaw-{trimmed}")


def _home_relative(path: str, home: str, cwd: str) -> str:
    trimmed = path.strip()
    if trimmed == "~" or trimmed.startswith("~/"):
        trimmed = home + trimmed[1:]
    return posixpath.normpath(posixpath.join(cwd, trimmed))


def profile_env(profile: str, env: Mapping[str, str], home: str, cwd: str) -> dict[str, str]:
    """The environment variables ``--profile`` / ``--dev`` set (``OPENCLAW_PROFILE``, ``OPENCLAW_STATE_DIR``,
    ``OPENCLAW_CONFIG_PATH``; ``OPENCLAW_GATEWAY_PORT=19001`` for ``dev`` unless set), as the reference's
    ``applyCliProfileEnv`` computes them (its Gateway service-selector bookkeeping aside)."""
    selected = profile.strip()
    inherited = (env.get("OPENCLAW_PROFILE") or "").strip() or "default"
    existing_state = (env.get("OPENCLAW_STATE_DIR") or "").strip() or None
    existing_config = (env.get("OPENCLAW_CONFIG_PATH") or "").strip() or None
    inherited_dir = profile_state_dir(inherited, home)
    selected_dir = profile_state_dir(selected, home)
    switches = inherited_dir != selected_dir
    switches_state = bool(existing_state and switches and _home_relative(existing_state, home, cwd) == inherited_dir)
    replaces_config = bool(
        switches
        and (not existing_state or switches_state)
        and existing_config
        and _home_relative(existing_config, home, cwd) == posixpath.join(inherited_dir, "openclaw.json")
    )
    changes = {"OPENCLAW_PROFILE": selected}
    state_dir = existing_state if existing_state and not switches_state else selected_dir
    if not existing_state or switches_state:
        changes["OPENCLAW_STATE_DIR"] = state_dir
    if not existing_config or replaces_config:
        changes["OPENCLAW_CONFIG_PATH"] = posixpath.join(state_dir, "openclaw.json")
    if selected == "dev" and not (env.get("OPENCLAW_GATEWAY_PORT") or "").strip():
        changes["OPENCLAW_GATEWAY_PORT"] = "19001"
    return changes
