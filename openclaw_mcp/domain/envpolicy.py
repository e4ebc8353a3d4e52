"""The stdio env safety policy (spec client-runtime §2): which ``env`` keys of a stdio MCP server are
dropped before the child is spawned. A pure function of the key; values are never inspected."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from openclaw_mcp.jscompat.jsjson import js_number

__all__ = [
    "BLOCKED_EVERYWHERE",
    "BLOCKED_INHERITED_ONLY",
    "BLOCKED_PREFIXES",
    "CREDENTIAL_ALLOWLIST",
    "filter_env",
    "is_blocked_env_key",
]

BLOCKED_EVERYWHERE: frozenset[str] = frozenset(
    (
        "ANT_OPTS",
        "BASHOPTS",
        "BASH_ENV",
        "BROWSER",
        "BZR_EDITOR",
        "BZR_PLUGIN_PATH",
        "BZR_SSH",
        "CARGO_BUILD_RUSTC",
        "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_RUSTC_WRAPPER",
        "CARGO_BUILD_RUSTDOC",
        "CATALINA_OPTS",
        "CC",
        "CMAKE_CXX_COMPILER",
        "CMAKE_C_COMPILER",
        "CMAKE_TOOLCHAIN_FILE",
        "CONFIG_SHELL",
        "CONFIG_SITE",
        "CORECLR_PROFILER",
        "CPP",
        "CXX",
        "CXXCPP",
        "DOTNET_ADDITIONAL_DEPS",
        "DOTNET_STARTUP_HOOKS",
        "ELIXIR_ERL_OPTIONS",
        "EMACSLOADPATH",
        "ENV",
        "ERL_AFLAGS",
        "ERL_FLAGS",
        "ERL_ZFLAGS",
        "EXINIT",
        "FPATH",
        "GCONV_PATH",
        "GIT_ALLOW_PROTOCOL",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_DIR",
        "GIT_EDITOR",
        "GIT_EXEC_PATH",
        "GIT_EXTERNAL_DIFF",
        "GIT_HOOK_PATH",
        "GIT_INDEX_FILE",
        "GIT_NAMESPACE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_PROTOCOL_FROM_USER",
        "GIT_SEQUENCE_EDITOR",
        "GIT_SSL_CAINFO",
        "GIT_SSL_CAPATH",
        "GIT_SSL_NO_VERIFY",
        "GIT_TEMPLATE_DIR",
        "GIT_WORK_TREE",
        "GLIBC_TUNABLES",
        "GRADLE_OPTS",
        "GVIMINIT",
        "HELM_PLUGINS",
        "HGEDITOR",
        "HGMERGE",
        "HGRCPATH",
        "HOSTALIASES",
        "IFS",
        "JAVA_OPTS",
        "JAVA_TOOL_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "JULIA_EDITOR",
        "KSH_ENV",
        "LUA_INIT",
        "LUA_INIT_5_1",
        "LUA_INIT_5_2",
        "LUA_INIT_5_3",
        "LUA_INIT_5_4",
        "MAKE",
        "MAKEFLAGS",
        "MAVEN_OPTS",
        "MFLAGS",
        "MYVIMRC",
        "NODE_OPTIONS",
        "NODE_PATH",
        "NODE_REDIRECT_WARNINGS",
        "NODE_REPL_EXTERNAL_MODULE",
        "NODE_REPL_HISTORY",
        "NODE_V8_COVERAGE",
        "PACKER_PLUGIN_PATH",
        "PERL5LIB",
        "PERL5OPT",
        "PS4",
        "PYTHONBREAKPOINT",
        "PYTHONHOME",
        "PYTHONPATH",
        "RUBYLIB",
        "RUBYOPT",
        "RUBYSHELL",
        "RUSTC",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_WRAPPER",
        "RUSTDOC",
        "R_ENVIRON",
        "R_ENVIRON_USER",
        "R_PROFILE",
        "R_PROFILE_USER",
        "SBT_OPTS",
        "SHELL",
        "SHELLOPTS",
        "SSLKEYLOGFILE",
        "SUDO_ASKPASS",
        "SVN_EDITOR",
        "SVN_SSH",
        "TCLLIBPATH",
        "VAGRANT_VAGRANTFILE",
        "VIMINIT",
        "_JAVA_OPTIONS",
    )
)

BLOCKED_INHERITED_ONLY: frozenset[str] = frozenset(
    (
        "ANSIBLE_CALLBACK_PLUGINS",
        "ANSIBLE_COLLECTIONS_PATH",
        "ANSIBLE_CONFIG",
        "ANSIBLE_CONNECTION_PLUGINS",
        "ANSIBLE_FILTER_PLUGINS",
        "ANSIBLE_INVENTORY_PLUGINS",
        "ANSIBLE_LIBRARY",
        "ANSIBLE_LOOKUP_PLUGINS",
        "ANSIBLE_MODULE_UTILS",
        "ANSIBLE_REMOTE_TEMP",
        "ANSIBLE_ROLES_PATH",
        "ANSIBLE_STRATEGY_PLUGINS",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "BUNDLE_GEMFILE",
        "BUN_CONFIG_REGISTRY",
        "CARGO_HOME",
        "CFLAGS",
        "CGO_CFLAGS",
        "CGO_LDFLAGS",
        "CLASSPATH",
        "COMPOSER_HOME",
        "CONDA_DEFAULT_ENV",
        "CONDA_PREFIX",
        "CORECLR_PROFILER_PATH",
        "CPATH",
        "CPLUS_INCLUDE_PATH",
        "CURL_HOME",
        "C_INCLUDE_PATH",
        "DENO_DIR",
        "EDITOR",
        "FCEDIT",
        "GEM_HOME",
        "GEM_PATH",
        "GIT_ASKPASS",
        "GIT_PROXY_COMMAND",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GOENV",
        "GOFLAGS",
        "GONOPROXY",
        "GONOSUMCHECK",
        "GONOSUMDB",
        "GOPATH",
        "GOPRIVATE",
        "GOPROXY",
        "HELM_HOME",
        "LDFLAGS",
        "LESSCLOSE",
        "LESSOPEN",
        "LIBRARY_PATH",
        "LUA_CPATH",
        "LUA_PATH",
        "OBJC_INCLUDE_PATH",
        "OPENSSL_CONF",
        "OPENSSL_ENGINES",
        "PERL5DB",
        "PERL5DBCMD",
        "PHPRC",
        "PHP_INI_SCAN_DIR",
        "PIP_CONFIG_FILE",
        "PIP_EXTRA_INDEX_URL",
        "PIP_FIND_LINKS",
        "PIP_INDEX_URL",
        "PIP_PYPI_URL",
        "PIP_TRUSTED_HOST",
        "PROMPT_COMMAND",
        "PYTHONSTARTUP",
        "PYTHONUSERBASE",
        "RUSTFLAGS",
        "R_LIBS_USER",
        "SSH_ASKPASS",
        "SUDO_EDITOR",
        "TF_CLI_CONFIG_FILE",
        "TF_PLUGIN_CACHE_DIR",
        "UV_DEFAULT_INDEX",
        "UV_EXTRA_INDEX_URL",
        "UV_INDEX",
        "UV_INDEX_URL",
        "UV_PYTHON",
        "VIRTUAL_ENV",
        "VISUAL",
        "WGETRC",
        "YARN_RC_FILENAME",
    )
)

CREDENTIAL_ALLOWLIST: frozenset[str] = frozenset(
    (
        "AMQP_URL",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SECURITY_TOKEN",
        "AWS_SESSION_TOKEN",
        "AZURE_CLIENT_ID",
        "AZURE_CLIENT_SECRET",
        "DATABASE_URL",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "GITLAB_TOKEN",
        "MONGODB_URI",
        "NODE_AUTH_TOKEN",
        "NPM_TOKEN",
        "REDIS_URL",
    )
)

BLOCKED_PREFIXES: tuple[str, ...] = ("DYLD_", "LD_", "BASH_FUNC_")


def is_blocked_env_key(key: str) -> bool:
    """True when ``key`` (case- and whitespace-insensitive) must not reach a stdio MCP child."""
    k = key.strip()
    if not k:
        return False
    u = k.upper()
    if u in BLOCKED_EVERYWHERE or u.startswith(BLOCKED_PREFIXES):
        return True
    if u in CREDENTIAL_ALLOWLIST:
        return False
    return u in BLOCKED_INHERITED_ONLY


def filter_env(raw_env: object, report: Callable[[str], None]) -> dict[str, str] | None:
    """The env a stdio child gets from its server definition (§2.7).

    ``report(key)`` is called for every dropped entry (blocked key, or a value that is not a string, number
    or boolean). Returns ``None`` when nothing usable remains and no key was dropped by policy, ``{}`` when
    every kept key was blocked, else the kept entries (original keys, values as JavaScript ``String``).
    """
    if not isinstance(raw_env, Mapping):
        return None
    kept: dict[str, str] = {}
    dropped_by_policy = False
    for key, value in raw_env.items():
        if is_blocked_env_key(key):
            dropped_by_policy = True
            report(key)
        elif isinstance(value, str):
            kept[key] = value
        elif isinstance(value, bool | int | float):
            kept[key] = js_number(value)
        else:
            report(key)
    if not kept:
        return {} if dropped_by_policy else None
    return kept
