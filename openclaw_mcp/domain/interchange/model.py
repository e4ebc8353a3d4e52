"""Result types of the export and import mappings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Exported", "Imported", "ImportedServer", "Variable"]


@dataclass(frozen=True, slots=True)
class Variable:
    """An environment variable the exported file refers to: ``field`` is ``env``, ``header <H>`` or ``url``."""

    name: str
    server: str
    field: str

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "server": self.server, "field": self.field}


@dataclass(slots=True)
class Exported:
    """What one export maps: the client entries by server name (in export order), the variables they
    reference, warnings (one line each) and notes (informative lines)."""

    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    variables: list[Variable] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    inputs: list[dict[str, Any]] = field(default_factory=list)
    """VS Code only: ``inputs`` definitions the entries need (none are generated today)."""

    def add_variable(self, variable: Variable) -> None:
        if variable not in self.variables:
            self.variables.append(variable)


@dataclass(frozen=True, slots=True)
class ImportedServer:
    """One foreign entry mapped to an ``mcp.servers`` definition (not canonicalised or validated yet).

    ``where`` is ``<file>: <key path>`` for messages; ``source`` the human label of where it came from."""

    name: str
    server: dict[str, Any]
    where: str
    source: str


@dataclass(slots=True)
class Imported:
    """What one foreign document maps to: servers, problems (bad input: the import must not write),
    warnings (imported with a loss) and manual-review lines (Hermes features OpenClaw cannot express)."""

    servers: list[ImportedServer] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    manual: list[str] = field(default_factory=list)
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    """(name, reason) of entries skipped because of a name conflict."""

    def extend(self, other: Imported) -> None:
        self.servers += other.servers
        self.conflicts += other.conflicts
        self.problems += other.problems
        self.warnings += other.warnings
        self.manual += other.manual
