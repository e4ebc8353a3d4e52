"""One composition root: adapters — their classes and their factory functions — are constructed in
``entrypoints/composition.py`` only (the container wires its factories and constructs nothing), no adapter takes the
environment mapping, and every entrypoint that starts a process takes its adapters from the container (static checks
over the source tree)."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "openclaw_mcp"
PACKAGES = ("jscompat", "domain", "application", "adapters", "entrypoints")
CONTAINER = "entrypoints/containers.py"
COMPOSITION = "entrypoints/composition.py"
"""The composition root: the registry CLI calls its factories directly (importing dependency-injector costs more
than the CLI's start-up budget), the container's providers call them too."""
REGISTRY_CLI = ("entrypoints/cli/",)
"""The registry CLI takes its adapters from :data:`COMPOSITION` instead of the container (same reason)."""


def _modules(*packages: str) -> Iterator[tuple[str, ast.Module]]:
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _is_exception(node: ast.ClassDef) -> bool:
    names = {base.id if isinstance(base, ast.Name) else getattr(base, "attr", "") for base in node.bases}
    return node.name.endswith(("Error", "Exception")) or any(name.endswith(("Error", "Exception")) for name in names)


def adapter_classes() -> set[str]:
    """The public non-exception classes defined in ``adapters/``."""
    return {
        node.name
        for _, tree in _modules("adapters")
        for node in tree.body
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_") and not _is_exception(node)
    }


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def adapter_factories(classes: set[str]) -> set[str]:
    """The public module-level functions of ``adapters/`` that return an adapter (their return annotation names
    an adapter class, e.g. ``AbstractAsyncContextManager[OAuthCallbackListener]``)."""
    return {
        node.name
        for _, tree in _modules("adapters")
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and not node.name.startswith("_")
        and node.returns is not None
        and any(isinstance(part, ast.Name) and part.id in classes for part in ast.walk(node.returns))
    }


def test_adapters_are_constructed_only_by_the_composition_root() -> None:
    classes = adapter_classes()
    assert {"SystemClock", "FileConfigStore", "WebsocketsGateway", "HttpMcpConnector"} <= classes
    factories = adapter_factories(classes)
    assert "oauth_callback_listener" in factories
    offenders = [
        f"{path}:{node.lineno}: {_called_name(node)}()"
        for path, tree in _modules(*PACKAGES)
        if not path.startswith("adapters/") and path != COMPOSITION
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called_name(node) in classes | factories
    ]
    assert offenders == []


_ENVIRONMENT_NAMES = frozenset({"env", "environ", "environment", "os_environ"})


def test_no_adapter_takes_the_environment_mapping() -> None:
    """Adapters receive paths and values (``entrypoints.settings.Settings`` resolves the environment once)."""
    classes = adapter_classes()
    offenders = []
    for path, tree in _modules("adapters"):
        for node in tree.body:
            functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
            if isinstance(node, ast.ClassDef) and node.name in classes:
                functions = [
                    item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"
                ]
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
                functions = [node]
            for function in functions:
                names = {arg.arg for arg in [*function.args.args, *function.args.kwonlyargs]}
                if names & _ENVIRONMENT_NAMES:
                    offenders.append(f"{path}:{function.lineno}: {getattr(node, 'name', '')}")
    assert offenders == []


def test_the_container_constructs_nothing_of_its_own() -> None:
    """Every provider of the container wires a factory of the composition root."""
    trees = dict(_modules("entrypoints"))
    classes = adapter_classes()
    container = trees[CONTAINER]
    calls = [node for node in ast.walk(container) if isinstance(node, ast.Call)]
    assert not [ast.unparse(call) for call in calls if _called_name(call) in classes]
    imported = {
        node.module
        for node in ast.walk(container)
        if isinstance(node, ast.ImportFrom) and node.module and ".adapters" in node.module
    }
    assert imported == set()


def _starts_a_process(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test) and "__main__" in ast.unparse(node.test):
            return True
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            return True
    return False


def _imports_container(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "openclaw_mcp.entrypoints.containers":
            return True
        if isinstance(node, ast.Import) and any(
            alias.name == "openclaw_mcp.entrypoints.containers" for alias in node.names
        ):
            return True
    return False


def _console_script_modules() -> set[str]:
    scripts = tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    return {
        target.partition(":")[0].removeprefix("openclaw_mcp.").replace(".", "/") + ".py" for target in scripts.values()
    }


def test_every_entrypoint_that_starts_a_process_takes_its_adapters_from_the_container() -> None:
    starters = {path for path, tree in _modules("entrypoints") if _starts_a_process(tree)}
    starters |= _console_script_modules()
    starters = {path for path in starters if not path.startswith(REGISTRY_CLI)}
    assert "entrypoints/serve/cli.py" in starters
    trees = dict(_modules("entrypoints"))
    assert sorted(path for path in starters if not _imports_container(trees[path])) == []


def test_one_wall_clock_class() -> None:
    clocks = [
        f"{path}: {node.name}"
        for path, tree in _modules(*PACKAGES)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(isinstance(item, ast.FunctionDef) and item.name == "now_ms" for item in node.body)
        and not path.startswith(("adapters/memory/", "application/ports/"))  # fakes, the port
    ]
    assert [clock for clock in clocks if not clock.startswith(REGISTRY_CLI)] == ["adapters/clock.py: SystemClock"]
