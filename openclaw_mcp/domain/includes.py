"""``$include`` directives of the config file: the walk and the merge (spec cli-registry §1.2 item 4, D7).

An object holding a ``"$include"`` key is replaced by the content of the file(s) it names:

* a string names one file; an array of strings names several, whose contents are deep-merged in order
  (objects merge recursively, arrays concatenate, anything else: the later value wins);
* other keys next to ``"$include"`` ("siblings") are resolved themselves and deep-merged over the included
  content, which must then be an object;
* included files may include further files, relative to their own location, at most 10 levels deep;
  a file that includes one of its own includers is a cycle.

Deep merges drop the keys ``__proto__``, ``prototype`` and ``constructor`` from every object they copy, as
the reference's merge does. An object whose content comes straight from one file (no array, no siblings)
is taken as parsed.

This module does no I/O. The walk (:func:`include_walk`) is a generator that asks for what it needs, one
request at a time, in the reference's order: a :class:`ResolveInclude` is answered with the canonical path of a
directive's file, a :class:`LoadInclude` with that file's parsed content. Whoever drives it does the I/O: the
application over its include port (``application.config_includes``), or :func:`resolve_includes` over two
plain callables. A request that fails is answered by throwing the :class:`IncludeError` into the walk.
Every failure is an :class:`IncludeError` carrying the reference's message, which the config reader reports
as the single invalid-config issue ``<root>: <message>``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any, TypeVar

from openclaw_mcp.domain.record import Record

__all__ = [
    "INCLUDE_KEY",
    "MAX_INCLUDE_DEPTH",
    "IncludeError",
    "IncludeRequest",
    "IncludeResolution",
    "IncludeSite",
    "IncludeWalk",
    "LoadInclude",
    "PathPart",
    "ResolveInclude",
    "deep_merge",
    "dotted_path",
    "drive_walk",
    "has_include_directive",
    "include_walk",
    "resolve_includes",
]

INCLUDE_KEY = "$include"
MAX_INCLUDE_DEPTH = 10
_BLOCKED_KEYS = frozenset({"__proto__", "prototype", "constructor"})

PathPart = str | int
T = TypeVar("T")


class IncludeError(Exception):
    """An include could not be resolved; ``message`` is the reference's text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ResolveInclude(Record):
    """The walk asks for the canonical path of ``include_path`` as written in ``including_file`` (the config
    path, or a path answered earlier); relative paths are taken from the including file's directory.

    The answer is compared with the including chain to detect cycles, so equal files must give equal
    strings. Refused (path malformed, outside the permitted directories): ``IncludeError``.
    """

    include_path: str
    including_file: str


class LoadInclude(Record):
    """The walk asks for the parsed content (plain JSON data) of ``resolved_path``, the answer to a
    :class:`ResolveInclude` of ``include_path``. Unreadable, failing the file checks or not parsing:
    ``IncludeError``."""

    include_path: str
    resolved_path: str


IncludeRequest = ResolveInclude | LoadInclude


class IncludeSite(Record):
    """One resolved ``$include`` directive.

    ``path`` is where the directive sits in the resolved document (``()`` for the root object);
    ``targets`` the files it named, in order; ``value`` the included content before siblings were merged;
    ``has_siblings`` whether other keys stood next to the directive.
    """

    path: tuple[PathPart, ...]
    targets: tuple[str, ...]
    value: Any
    has_siblings: bool


class IncludeResolution(Record):
    """A document with its includes resolved, and where they were (``sites`` inner directives first)."""

    document: Any
    sites: tuple[IncludeSite, ...] = ()
    files: tuple[str, ...] = ()  # every included file, each once, in the order first loaded

    def provided_by_include(self, path: Sequence[PathPart]) -> bool:
        """Whether an include supplies (all or part of) the value at ``path``: a directive sits at ``path``,
        or one above it includes content that has a value at the rest of ``path``."""
        target = tuple(path)
        for site in self.sites:
            depth = len(site.path)
            if target[:depth] == site.path and _has_value(site.value, target[depth:]):
                return True
        return False

    def has_directive_within(self, path: Sequence[PathPart]) -> bool:
        """Whether a directive sits at ``path`` or anywhere below it."""
        target = tuple(path)
        return any(site.path[: len(target)] == target for site in self.sites)

    def write_conflict(self, server: str) -> tuple[PathPart, ...] | None:
        """The first path a change of ``mcp.servers.<server>`` in the authored root document could not
        express (D7), or ``None`` when writing the root document is faithful.

        In order: ``mcp`` when a directive sits directly at it; ``mcp.servers`` when a directive sits
        directly at it or any include supplies part of it; ``mcp.servers.<server>`` when an include supplies
        it or a directive sits anywhere inside it. An include that only supplies other parts of ``mcp``
        (``mcp.apps`` from a root-level include) is no conflict: the root document still owns the map.
        """
        mcp: tuple[PathPart, ...] = ("mcp",)
        servers: tuple[PathPart, ...] = ("mcp", "servers")
        entry: tuple[PathPart, ...] = ("mcp", "servers", server)
        if any(site.path == mcp for site in self.sites):
            return mcp
        if self.provided_by_include(servers):
            return servers
        if self.provided_by_include(entry) or self.has_directive_within(entry):
            return entry
        return None


IncludeWalk = Generator[IncludeRequest, Any, IncludeResolution]
"""An include resolution in progress: yields requests, is sent their answers, returns the resolution."""


def dotted_path(path: Sequence[PathPart]) -> str:
    """``path`` joined with dots (``mcp.servers.docs``); the empty path is ``<root>``."""
    return ".".join(str(part) for part in path) if path else "<root>"


def has_include_directive(value: Any) -> bool:
    """Whether any object in ``value`` has a ``$include`` key."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            if INCLUDE_KEY in current:
                return True
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return False


def include_walk(document: Any, config_path: str) -> IncludeWalk:
    """Resolve every ``$include`` in ``document``, the parsed config at ``config_path``, asking for the files.

    A document without directives is returned as it is (same object, nothing asked). Otherwise the result
    is a new document; objects built by merging are in insertion order, so callers re-key it in JavaScript
    property order (``js_order``) as they do with parsed text. Raises :class:`IncludeError` (its own, or
    one thrown in as the answer to a request). The content answered to a :class:`LoadInclude` is never
    modified, so answers may be reused.
    """
    if not has_include_directive(document):
        return IncludeResolution(document)
    walker = _Walker()
    resolved = yield from walker.process(document, (), (config_path,), 0)
    return IncludeResolution(resolved, tuple(walker.sites), tuple(walker.files))


def resolve_includes(
    document: Any,
    config_path: str,
    resolve: Callable[[str, str], str],
    load: Callable[[str, str], Any],
) -> IncludeResolution:
    """:func:`include_walk` answered synchronously by ``resolve(include_path, including_file)`` and
    ``load(include_path, resolved_path)`` (each raising only ``IncludeError``)."""

    def answer(request: IncludeRequest) -> Any:
        if isinstance(request, ResolveInclude):
            return resolve(request.include_path, request.including_file)
        return load(request.include_path, request.resolved_path)

    return drive_walk(include_walk(document, config_path), answer)


def drive_walk(walk: Generator[IncludeRequest, Any, T], answer: Callable[[IncludeRequest], Any]) -> T:
    """Run ``walk`` (:func:`include_walk`, or a walk built on it) to its result, answering each request
    with ``answer(request)``; an ``IncludeError`` it raises is thrown into the walk."""
    reply: Any = None
    failure: IncludeError | None = None
    try:
        while True:
            request = walk.send(reply) if failure is None else walk.throw(failure)
            reply, failure = None, None
            try:
                reply = answer(request)
            except IncludeError as exc:
                failure = exc
    except StopIteration as done:
        result: T = done.value
        return result
    finally:
        walk.close()


def deep_merge(base: Any, override: Any) -> Any:
    """The reference's include merge: objects merge recursively (blocked keys dropped), arrays
    concatenate, otherwise ``override`` wins. Never mutates its arguments."""
    if isinstance(base, list) and isinstance(override, list):
        return [*base, *override]
    if not isinstance(base, dict) or not isinstance(override, dict):
        return override
    merged = _sanitized(base)
    for key, value in override.items():
        if key in _BLOCKED_KEYS:
            continue
        current = merged.get(key)
        if isinstance(value, dict):
            merged[key] = deep_merge(current, value) if isinstance(current, dict) else _sanitized(value)
        elif isinstance(current, list) and isinstance(value, list):
            merged[key] = [*current, *value]
        else:
            merged[key] = value
    return merged


def _sanitized(value: dict[str, Any]) -> dict[str, Any]:
    return {
        key: _sanitized(item) if isinstance(item, dict) else item
        for key, item in value.items()
        if key not in _BLOCKED_KEYS
    }


def _has_value(value: Any, path: Sequence[PathPart]) -> bool:
    current = value
    for part in path:
        if isinstance(current, dict) and isinstance(part, str) and part in current:
            current = current[part]
        elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            current = current[part]
        else:
            return False
    return True


def _js_typeof(value: Any) -> str:
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "object"


_Step = Generator[IncludeRequest, Any, Any]


class _Walker:
    """One resolution: the reference's traversal order, so the first failure is the same one."""

    def __init__(self) -> None:
        self.sites: list[IncludeSite] = []
        self.files: dict[str, None] = {}

    def process(self, value: Any, path: tuple[PathPart, ...], chain: tuple[str, ...], depth: int) -> _Step:
        if isinstance(value, list):
            items: list[Any] = []
            for index, item in enumerate(value):
                items.append((yield from self.process(item, (*path, index), chain, depth)))
            return items
        if not isinstance(value, dict):
            return value
        if INCLUDE_KEY not in value:
            return (yield from self._entries(value, list(value), path, chain, depth))
        return (yield from self._expand(value, path, chain, depth))

    def _entries(
        self, holder: dict[str, Any], keys: list[str], path: tuple[PathPart, ...], chain: tuple[str, ...], depth: int
    ) -> _Step:
        entries: dict[str, Any] = {}
        for key in keys:
            entries[key] = yield from self.process(holder[key], (*path, key), chain, depth)
        return entries

    def _expand(self, holder: dict[str, Any], path: tuple[PathPart, ...], chain: tuple[str, ...], depth: int) -> _Step:
        siblings = [key for key in holder if key != INCLUDE_KEY]
        included, targets = yield from self._included(holder[INCLUDE_KEY], path, chain, depth)
        self.sites.append(IncludeSite(path, targets, included, bool(siblings)))
        if not siblings:
            return included
        if not isinstance(included, dict):
            raise IncludeError("Sibling keys require included content to be an object")
        rest = yield from self._entries(holder, siblings, path, chain, depth)
        return deep_merge(included, rest)

    def _included(self, directive: Any, path: tuple[PathPart, ...], chain: tuple[str, ...], depth: int) -> _Step:
        if isinstance(directive, str):
            value, target = yield from self._load(directive, path, chain, depth)
            return value, (target,)
        if isinstance(directive, list):
            loaded: list[tuple[Any, str]] = []
            for item in directive:
                if not isinstance(item, str):
                    raise IncludeError(f"Invalid $include array item: expected string, got {_js_typeof(item)}")
                loaded.append((yield from self._load(item, path, chain, depth)))
            merged: Any = {}
            for value, _ in loaded:
                merged = deep_merge(merged, value)
            return merged, tuple(target for _, target in loaded)
        raise IncludeError(f"Invalid $include value: expected string or array of strings, got {_js_typeof(directive)}")

    def _load(self, include_path: str, path: tuple[PathPart, ...], chain: tuple[str, ...], depth: int) -> _Step:
        resolved: str = yield ResolveInclude(include_path, chain[-1])
        if resolved in chain:
            raise IncludeError(f"Circular include detected: {' -> '.join((*chain, resolved))}")
        if depth >= MAX_INCLUDE_DEPTH:
            raise IncludeError(f"Maximum include depth ({MAX_INCLUDE_DEPTH}) exceeded at: {include_path}")
        parsed = yield LoadInclude(include_path, resolved)
        self.files.setdefault(resolved, None)
        value = yield from self.process(parsed, path, (*chain, resolved), depth + 1)
        return value, resolved
