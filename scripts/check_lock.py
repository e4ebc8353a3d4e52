"""Fails when the virtualenv holds a distribution the lock does not pin at exactly that version (the project itself
aside): CI installs requirements/lock.txt and nothing else. Prints each difference, exit 1; else one line."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

LOCK = Path(__file__).resolve().parents[1] / "requirements" / "lock.txt"
PROJECT = "openclaw-mcp"


def _name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def main() -> int:
    pinned = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        match = re.match(r"([A-Za-z0-9_.-]+)==([^\s;]+)", line)
        if match:
            pinned[_name(match.group(1))] = match.group(2)
    problems = []
    for dist in metadata.distributions():
        name = _name(dist.metadata["Name"] or "")
        if name == PROJECT:
            continue
        if name not in pinned:
            problems.append(f"{name} {dist.version} is installed but not in {LOCK.name}")
        elif pinned[name] != dist.version:
            problems.append(f"{name} {dist.version} is installed, {LOCK.name} pins {pinned[name]}")
    for problem in sorted(problems):
        print(problem)
    if problems:
        return 1
    print(f"the virtualenv matches {LOCK.name} ({len(pinned)} pins)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
