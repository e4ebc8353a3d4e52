from openclaw_mcp.domain.envpolicy import (
    BLOCKED_EVERYWHERE,
    BLOCKED_INHERITED_ONLY,
    BLOCKED_PREFIXES,
    CREDENTIAL_ALLOWLIST,
    filter_env,
    is_blocked_env_key,
)


def _run(env: object) -> tuple[dict[str, str] | None, list[str]]:
    reports: list[str] = []
    return filter_env(env, reports.append), reports


def test_policy_lists_have_the_reference_sizes() -> None:
    assert (len(BLOCKED_EVERYWHERE), len(BLOCKED_INHERITED_ONLY), len(CREDENTIAL_ALLOWLIST)) == (110, 84, 15)
    assert len(BLOCKED_PREFIXES) == 3


def test_keeps_safe_keys_and_drops_blocked_ones_in_entry_order() -> None:
    env = {
        "SAFE_VALUE": "ok",
        "PORT": 3000,
        "ENABLED": True,
        "GITHUB_TOKEN": "g",
        "HTTP_PROXY": "http://p",
        "NODE_OPTIONS": "x",
        "LD_PRELOAD": "x",
        "BASH_ENV": "x",
        "ANSIBLE_CONFIG": "x",
        "TF_CLI_CONFIG_FILE": "x",
    }
    kept, reports = _run(env)
    assert kept == {
        "SAFE_VALUE": "ok",
        "PORT": "3000",
        "ENABLED": "true",
        "GITHUB_TOKEN": "g",
        "HTTP_PROXY": "http://p",
    }
    assert reports == ["NODE_OPTIONS", "LD_PRELOAD", "BASH_ENV", "ANSIBLE_CONFIG", "TF_CLI_CONFIG_FILE"]


def test_all_blocked_gives_an_empty_env_and_nothing_usable_gives_none() -> None:
    assert _run({"NODE_OPTIONS": "x", "BASH_ENV": "y"}) == ({}, ["NODE_OPTIONS", "BASH_ENV"])
    assert _run({}) == (None, [])
    assert _run({"A": None, "B": {"x": 1}}) == (None, ["A", "B"])
    assert _run({"A": None, "NODE_OPTIONS": "x"}) == ({}, ["A", "NODE_OPTIONS"])
    assert _run("not a map") == (None, [])


def test_keys_compare_case_and_whitespace_insensitively() -> None:
    kept, reports = _run({" NODE_OPTIONS ": "x", "": "e", "X Y": "z"})
    assert kept == {"": "e", "X Y": "z"}
    assert reports == [" NODE_OPTIONS "]
    for key in [
        "EDITOR",
        "PYTHONSTARTUP",
        "node_options",
        "Dyld_Insert_Libraries",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "BASH_FUNC_x%%",
    ]:
        assert is_blocked_env_key(key), key


def test_credential_and_override_keys_stay_allowed() -> None:
    for key in [
        "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_SECURITY_TOKEN",
        "AWS_REGION",
        "KUBECONFIG",
        "DOCKER_HOST",
        "HOME",
        "TF_VAR_x",
        "GIT_CONFIG_GLOBAL",
        "SSH_AUTH_SOCK",
        "PATH",
    ]:
        assert not is_blocked_env_key(key), key
