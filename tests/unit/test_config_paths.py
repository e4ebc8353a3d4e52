"""Config path resolution (spec cli-registry §1.1).

Expectations were checked against the reference CLI (``openclaw mcp list`` prints the resolved path) in the
same directory layouts, with the same environments.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from openclaw_mcp.entrypoints import paths
from openclaw_mcp.entrypoints.paths import (
    resolve_config_path,
    resolve_home,
    resolve_state_db_path,
    resolve_state_dir,
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    directory = tmp_path / "home"
    directory.mkdir()
    return directory


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cwd"
    directory.mkdir()
    monkeypatch.chdir(directory)
    return directory


def touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}\n")


def test_home_alone_gives_the_default_config_path(home: Path) -> None:
    env = {"HOME": str(home)}
    assert resolve_home(env) == str(home)
    assert resolve_state_dir(env) == str(home / ".openclaw")
    assert resolve_config_path(env) == str(home / ".openclaw" / "openclaw.json")


def test_state_database_lives_under_the_state_directory(home: Path) -> None:
    assert resolve_state_db_path({"HOME": str(home)}) == str(home / ".openclaw" / "state" / "openclaw.sqlite")
    env = {"HOME": str(home), "OPENCLAW_STATE_DIR": str(home / "st")}
    assert resolve_state_db_path(env) == str(home / "st" / "state" / "openclaw.sqlite")


def test_an_existing_legacy_state_directory_is_used_when_the_new_one_is_absent(home: Path) -> None:
    (home / ".clawdbot").mkdir()
    env = {"HOME": str(home)}
    assert resolve_state_dir(env) == str(home / ".clawdbot")
    assert resolve_config_path(env) == str(home / ".clawdbot" / "openclaw.json")


def test_the_new_state_directory_wins_over_the_legacy_one(home: Path) -> None:
    (home / ".clawdbot").mkdir()
    (home / ".openclaw").mkdir()
    assert resolve_state_dir({"HOME": str(home)}) == str(home / ".openclaw")


def test_an_existing_legacy_config_file_is_found_among_the_home_candidates(home: Path) -> None:
    (home / ".openclaw").mkdir()
    touch(home / ".clawdbot" / "clawdbot.json")
    assert resolve_config_path({"HOME": str(home)}) == str(home / ".clawdbot" / "clawdbot.json")


def test_a_legacy_file_name_in_the_state_directory_is_found(home: Path) -> None:
    touch(home / ".openclaw" / "clawdbot.json")
    assert resolve_config_path({"HOME": str(home)}) == str(home / ".openclaw" / "clawdbot.json")


def test_the_state_directory_override_ignores_config_files_under_home(home: Path, tmp_path: Path) -> None:
    touch(home / ".openclaw" / "openclaw.json")
    touch(home / ".clawdbot" / "openclaw.json")
    env = {"HOME": str(home), "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    assert resolve_config_path(env) == str(tmp_path / "state" / "openclaw.json")


def test_the_state_directory_override_still_finds_its_legacy_file_name(home: Path, tmp_path: Path) -> None:
    touch(tmp_path / "state" / "clawdbot.json")
    env = {"HOME": str(home), "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    assert resolve_config_path(env) == str(tmp_path / "state" / "clawdbot.json")


def test_a_tilde_in_the_state_directory_is_the_home(home: Path) -> None:
    assert resolve_state_dir({"HOME": str(home), "OPENCLAW_STATE_DIR": "~/st"}) == str(home / "st")
    assert resolve_state_dir({"HOME": str(home), "OPENCLAW_STATE_DIR": "~"}) == str(home)


def test_the_state_directory_is_trimmed_and_normalised(home: Path) -> None:
    env = {"HOME": f"{home}/../home/", "OPENCLAW_STATE_DIR": " ~/a/../b/ "}
    assert resolve_state_dir(env) == str(home / "b")
    assert resolve_config_path(env) == str(home / "b" / "openclaw.json")


def test_a_tilde_not_followed_by_a_separator_is_a_relative_name(home: Path, cwd: Path) -> None:
    env = {"HOME": str(home), "OPENCLAW_STATE_DIR": "~foo"}
    assert resolve_config_path(env) == str(cwd / "~foo" / "openclaw.json")


def test_openclaw_home_replaces_the_home_and_expands_its_own_tilde(home: Path) -> None:
    env = {"HOME": str(home), "OPENCLAW_HOME": "~/oh"}
    assert resolve_home(env) == str(home / "oh")
    assert resolve_config_path(env) == str(home / "oh" / ".openclaw" / "openclaw.json")


@pytest.mark.parametrize("value", ["undefined", "null", "   ", ""])
def test_placeholder_openclaw_home_values_count_as_unset(home: Path, value: str) -> None:
    env = {"HOME": str(home), "OPENCLAW_HOME": value}
    assert resolve_config_path(env) == str(home / ".openclaw" / "openclaw.json")


def test_a_relative_openclaw_home_is_taken_from_the_current_directory(home: Path, cwd: Path) -> None:
    env = {"HOME": str(home), "OPENCLAW_HOME": "rel"}
    assert resolve_config_path(env) == str(cwd / "rel" / ".openclaw" / "openclaw.json")


def test_the_config_path_override_expands_a_tilde(home: Path) -> None:
    assert resolve_config_path({"HOME": str(home), "OPENCLAW_CONFIG_PATH": "~/x.json"}) == str(home / "x.json")


def test_a_relative_config_path_override_is_taken_from_the_current_directory(home: Path, cwd: Path) -> None:
    env = {"HOME": str(home), "OPENCLAW_CONFIG_PATH": "rel.json"}
    assert resolve_config_path(env) == str(cwd / "rel.json")


def test_a_blank_config_path_override_is_ignored(home: Path) -> None:
    env = {"HOME": str(home), "OPENCLAW_CONFIG_PATH": "   "}
    assert resolve_config_path(env) == str(home / ".openclaw" / "openclaw.json")


def test_userprofile_is_the_home_when_home_is_missing_or_blank(home: Path) -> None:
    assert resolve_home({"USERPROFILE": str(home)}) == str(home)
    assert resolve_home({"HOME": "  ", "USERPROFILE": str(home)}) == str(home)


def test_the_termux_home_comes_before_the_operating_system_home() -> None:
    env = {"PREFIX": "/data/data/com.termux/files/usr", "ANDROID_DATA": "/data"}
    assert resolve_config_path(env) == "/data/data/com.termux/files/home/.openclaw/openclaw.json"


def test_without_home_variables_the_operating_system_home_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "os-home"))
    assert resolve_home({}) == str(tmp_path / "os-home")
    assert resolve_home({"OPENCLAW_HOME": "~/oh"}) == str(tmp_path / "os-home" / "oh")


def test_without_any_home_the_current_directory_is_the_home(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "_os_user_home", lambda: None)
    assert resolve_home({}) == str(cwd)
    # OPENCLAW_HOME="~…" cannot be expanded without an OS home either.
    assert resolve_home({"OPENCLAW_HOME": "~/oh"}) == str(cwd)


def test_every_result_is_absolute(home: Path, cwd: Path) -> None:
    env = {"HOME": "home-rel", "OPENCLAW_STATE_DIR": "state-rel"}
    for value in (resolve_home(env), resolve_state_dir(env), resolve_config_path(env)):
        assert os.path.isabs(value)
    assert resolve_home(env) == str(cwd / "home-rel")
