"""Use-case outcomes and the error family of each port."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openclaw_mcp.domain.config_issues import Issue
    from openclaw_mcp.domain.config_load import ConfigAnalysis

__all__ = [
    "ApplicationError",
    "ChangeInvalidError",
    "CommandError",
    "ConfigConflictError",
    "ConfigLockTimeout",
    "ConfigReadError",
    "ConfigReadOnlyError",
    "ConfigStoreError",
    "InvalidConfigError",
    "OAuthStoreError",
    "ServerNotFoundError",
    "WriteRejectedError",
]


class ApplicationError(Exception):
    """Base of every error the application layer raises; its message is one printable line."""


class CommandError(ApplicationError):
    """A command-level failure: one message line (stderr, or the JSON envelope with ``--json``)."""


class InvalidConfigError(ApplicationError):
    """The config file exists and is invalid; no command runs."""

    def __init__(self, path: str, analysis: ConfigAnalysis) -> None:
        super().__init__(f"OpenClaw config is invalid: {path}")
        self.path = path
        self.analysis = analysis


class ConfigReadOnlyError(ApplicationError):
    """Writes are forbidden by the environment (``OPENCLAW_CONFIG_READONLY=1`` / ``OPENCLAW_NIX_MODE=1``)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines[0])
        self.lines = lines


class WriteRejectedError(ApplicationError):
    """The clobber guard refused a write that would shrink the config suspiciously."""


class ConfigStoreError(ApplicationError):
    """The config store could not read or write the config file (I/O failure, lock trouble)."""


class ConfigReadError(ConfigStoreError):
    """The config file exists but cannot be read (a directory, no permission): the config is invalid."""


class ConfigLockTimeout(ConfigStoreError):
    """The cross-process config write lock could not be taken in time."""


class OAuthStoreError(ApplicationError):
    """The OAuth credential store could not be read or written, or holds an invalid row."""


class ChangeInvalidError(CommandError):
    """A change would leave the config invalid; ``issues`` are the validator's, first one in the message."""

    def __init__(self, message: str, issues: Sequence[Issue]) -> None:
        super().__init__(message)
        self.issues = tuple(issues)


class ServerNotFoundError(CommandError):
    """The named server is not in ``mcp.servers``; the message is the CLI's."""


class ConfigConflictError(ApplicationError):
    """The config changed since the snapshot a change was based on (the settings page's base hash)."""

    def __init__(self) -> None:
        super().__init__("config changed since last load; re-run config.get and retry")
