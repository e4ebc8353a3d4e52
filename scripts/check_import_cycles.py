"""Fails when modules of the project import each other in a cycle (TYPE_CHECKING imports included).

import-linter's layer contracts forbid upward imports between packages; this check adds the module level:
no module may (directly or transitively) import itself. Prints each cycle found, exit 1; else one line, exit 0.
"""

from __future__ import annotations

import sys

import grimp

PACKAGES = ("openclaw_mcp",)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; returns the components with more than one module (or a self-import)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return found


def main() -> int:
    built = grimp.build_graph(*PACKAGES, cache_dir=None)
    graph = {module: set(built.find_modules_directly_imported_by(module)) for module in built.modules}
    # a package's __init__ importing its own submodules is not a cycle between modules
    for module, imported in graph.items():
        imported -= {other for other in imported if other.startswith(module + ".")}
    cycles = strongly_connected(graph)
    for cycle in cycles:
        print("import cycle: " + " <-> ".join(cycle))
    if cycles:
        return 1
    print(f"no import cycles among {len(graph)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
