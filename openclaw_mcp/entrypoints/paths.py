"""Where the OpenClaw config file and state directory live (spec cli-registry §1.1).

Every function takes the environment as a mapping (normally ``os.environ``) and returns an absolute,
normalised path. Only existence checks touch the filesystem; nothing is created here.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping

from openclaw_mcp.application.errors import ConfigStoreError

__all__ = [
    "resolve_config_path",
    "resolve_home",
    "resolve_state_db_path",
    "resolve_state_dir",
]

_CONFIG_FILENAME = "openclaw.json"
_LEGACY_CONFIG_FILENAMES = ("clawdbot.json",)
_STATE_DIRNAME = ".openclaw"
_LEGACY_STATE_DIRNAMES = (".clawdbot",)
_TILDE = re.compile(r"^~(?=$|[\\/])")
_TERMUX_PREFIX = re.compile(r"(?:^|/)com\.termux/files/usr/?$")


def _absolute(path: str) -> str:
    """``path.resolve`` of Node: absolute, normalised, and no POSIX double-slash root."""
    resolved = os.path.abspath(path)
    if resolved.startswith("//") and not resolved.startswith("///"):
        resolved = resolved[1:]
    return resolved


def _value(raw: str | None) -> str | None:
    """An environment value trimmed; blank and the strings ``undefined``/``null`` count as unset."""
    if raw is None:
        return None
    trimmed = raw.strip()
    if not trimmed or trimmed in ("undefined", "null"):
        return None
    return trimmed


def _os_user_home() -> str | None:
    """The operating system's idea of the user's home, as Node's ``os.homedir()`` finds it: the process's
    own ``HOME`` (``USERPROFILE`` on Windows), else the password database."""
    home = os.environ.get("USERPROFILE" if sys.platform == "win32" else "HOME")
    if home:
        return _value(home)
    if sys.platform == "win32":
        return None
    import pwd

    try:
        return _value(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        return None


def _termux_home(env: Mapping[str, str]) -> str | None:
    prefix = _value(env.get("PREFIX"))
    if prefix is None or _value(env.get("ANDROID_DATA")) is None:
        return None
    if not _TERMUX_PREFIX.search(prefix.replace("\\", "/")):
        return None
    return _absolute(os.path.join(prefix, "..", "home"))


def _raw_os_home(env: Mapping[str, str]) -> str | None:
    return _value(env.get("HOME")) or _value(env.get("USERPROFILE")) or _termux_home(env) or _os_user_home()


def _effective_home(env: Mapping[str, str]) -> str | None:
    explicit = _value(env.get("OPENCLAW_HOME"))
    if explicit is None:
        raw = _raw_os_home(env)
        return None if raw is None else _absolute(raw)
    if _TILDE.match(explicit):
        os_home = _raw_os_home(env)
        if os_home is None:
            return None
        return _absolute(_TILDE.sub(lambda _: os_home, explicit, count=1))
    return _absolute(explicit)


def resolve_home(env: Mapping[str, str]) -> str:
    """The OpenClaw home ``H``: ``OPENCLAW_HOME`` (``~`` expanded against the OS home), else ``HOME``,
    else ``USERPROFILE``, else the OS home, else the current directory; made absolute.

    Raises ``ConfigStoreError`` only when none of these exists (not even a current directory).
    """
    home = _effective_home(env)
    if home is not None:
        return home
    try:
        return _absolute(os.getcwd())
    except OSError as exc:
        raise ConfigStoreError(
            "Unable to resolve an OpenClaw home: set OPENCLAW_HOME, HOME, or USERPROFILE, "
            "or run from an existing directory."
        ) from exc


def _user_path(raw: str, env: Mapping[str, str]) -> str:
    """A user-supplied path: trimmed, a leading ``~`` (alone or before ``/``/``\\``) replaced by ``H``."""
    trimmed = raw.strip()
    if trimmed.startswith("~"):
        home = resolve_home(env)
        trimmed = _TILDE.sub(lambda _: home, trimmed, count=1)
    return _absolute(trimmed)


def _override(env: Mapping[str, str], name: str) -> str | None:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return None
    return raw.strip()


def resolve_state_dir(env: Mapping[str, str]) -> str:
    """The state directory ``S``: ``OPENCLAW_STATE_DIR`` if set, else ``H/.openclaw`` if it exists, else the
    first existing legacy ``H/.clawdbot``, else ``H/.openclaw``."""
    override = _override(env, "OPENCLAW_STATE_DIR")
    if override is not None:
        return _user_path(override, env)
    home = resolve_home(env)
    new_dir = os.path.join(home, _STATE_DIRNAME)
    if os.path.exists(new_dir):
        return new_dir
    for name in _LEGACY_STATE_DIRNAMES:
        legacy = os.path.join(home, name)
        if os.path.exists(legacy):
            return legacy
    return new_dir


def _config_names(directory: str) -> list[str]:
    return [os.path.join(directory, name) for name in (_CONFIG_FILENAME, *_LEGACY_CONFIG_FILENAMES)]


def resolve_config_path(env: Mapping[str, str]) -> str:
    """The config path ``<CFG>``: ``OPENCLAW_CONFIG_PATH`` if set; else the first existing candidate
    (``S/openclaw.json``, ``S/clawdbot.json`` and, only without ``OPENCLAW_STATE_DIR``, the same two names
    under ``H/.openclaw`` then ``H/.clawdbot``); else ``S/openclaw.json``."""
    override = _override(env, "OPENCLAW_CONFIG_PATH")
    if override is not None:
        return _user_path(override, env)
    state_dir = resolve_state_dir(env)
    candidates = _config_names(state_dir)
    if _override(env, "OPENCLAW_STATE_DIR") is None:
        home = resolve_home(env)
        for name in (_STATE_DIRNAME, *_LEGACY_STATE_DIRNAMES):
            candidates.extend(_config_names(os.path.join(home, name)))
    for candidate in candidates:
        if os.path.exists(candidate):
            return candidate
    return os.path.join(state_dir, _CONFIG_FILENAME)


def resolve_state_db_path(env: Mapping[str, str]) -> str:
    """The state database holding MCP OAuth rows and leases: ``S/state/openclaw.sqlite``."""
    return os.path.join(resolve_state_dir(env), "state", "openclaw.sqlite")
