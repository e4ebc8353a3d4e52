"""Name collation as the reference's ``String.prototype.localeCompare`` (ICU root, tertiary strength).

Spec cli-registry D1: a UCA root collator with non-ignorable punctuation reproduces the reference's order;
``pyuca`` is the pure-Python UCA. Building its table costs ~0.1 s, so names made only of printable ASCII
(almost every server name) are keyed from a precomputed table of their DUCET weights — the same key
``pyuca`` computes (checked by ``tests/unit/test_collation.py``) — and ``pyuca`` is loaded only for other
names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

__all__ = ["UcaCollator"]

_KEY_CACHE_SIZE = 4096


class UcaCollator:
    """Collator port adapter: UCA root order, stable."""

    def __init__(self) -> None:
        self._pyuca: Any = None
        self._keys: dict[str, tuple[int, ...]] = {}

    def key(self, name: str) -> tuple[int, ...]:
        cached = self._keys.get(name)
        if cached is not None:
            return cached
        key = self._key(name)
        if len(self._keys) < _KEY_CACHE_SIZE:  # names repeat (the same servers and tools on every run)
            self._keys[name] = key
        return key

    def _key(self, name: str) -> tuple[int, ...]:
        weights = _ascii_elements(name)
        if weights is None:
            return self._slow_key(name)
        primaries = [p for p, _, _ in weights if p]
        secondaries = [s for _, s, _ in weights if s]
        tertiaries = [t for _, _, t in weights if t]
        return (*primaries, 0, *secondaries, 0, *tertiaries, 0)

    def sort(self, names: Sequence[str]) -> list[str]:
        return sorted(names, key=self.key)

    def _slow_key(self, name: str) -> tuple[int, ...]:
        if self._pyuca is None:
            import pyuca  # deferred: ~0.1 s to build its table

            self._pyuca = pyuca.Collator()
        key: tuple[int, ...] = self._pyuca.sort_key(name)
        return key


def _ascii_elements(name: str) -> list[tuple[int, int, int]] | None:
    try:
        return [_ASCII_WEIGHTS[ch] for ch in name]
    except KeyError:
        return None


# DUCET collation elements of printable ASCII (generated from pyuca's allkeys table).
_ASCII_WEIGHTS: dict[str, tuple[int, int, int]] = {
    " ": (521, 32, 2),
    "!": (608, 32, 2),
    '"': (780, 32, 2),
    "#": (920, 32, 2),
    "$": (7186, 32, 2),
    "%": (921, 32, 2),
    "&": (918, 32, 2),
    "'": (773, 32, 2),
    "(": (791, 32, 2),
    ")": (792, 32, 2),
    "*": (911, 32, 2),
    "+": (1558, 32, 2),
    ",": (546, 32, 2),
    "-": (525, 32, 2),
    ".": (631, 32, 2),
    "/": (916, 32, 2),
    "0": (7229, 32, 2),
    "1": (7230, 32, 2),
    "2": (7231, 32, 2),
    "3": (7232, 32, 2),
    "4": (7233, 32, 2),
    "5": (7234, 32, 2),
    "6": (7235, 32, 2),
    "7": (7236, 32, 2),
    "8": (7237, 32, 2),
    "9": (7238, 32, 2),
    ":": (569, 32, 2),
    ";": (564, 32, 2),
    "<": (1562, 32, 2),
    "=": (1563, 32, 2),
    ">": (1564, 32, 2),
    "?": (614, 32, 2),
    "@": (910, 32, 2),
    "A": (7239, 32, 8),
    "B": (7264, 32, 8),
    "C": (7290, 32, 8),
    "D": (7311, 32, 8),
    "E": (7338, 32, 8),
    "F": (7397, 32, 8),
    "G": (7412, 32, 8),
    "H": (7448, 32, 8),
    "I": (7474, 32, 8),
    "J": (7500, 32, 8),
    "K": (7525, 32, 8),
    "L": (7543, 32, 8),
    "M": (7594, 32, 8),
    "N": (7609, 32, 8),
    "O": (7645, 32, 8),
    "P": (7692, 32, 8),
    "Q": (7713, 32, 8),
    "R": (7731, 32, 8),
    "S": (7793, 32, 8),
    "T": (7829, 32, 8),
    "U": (7861, 32, 8),
    "V": (7907, 32, 8),
    "W": (7925, 32, 8),
    "X": (7935, 32, 8),
    "Y": (7947, 32, 8),
    "Z": (7969, 32, 8),
    "[": (793, 32, 2),
    "\\": (917, 32, 2),
    "]": (794, 32, 2),
    "^": (1157, 32, 2),
    "_": (523, 32, 2),
    "`": (1154, 32, 2),
    "a": (7239, 32, 2),
    "b": (7264, 32, 2),
    "c": (7290, 32, 2),
    "d": (7311, 32, 2),
    "e": (7338, 32, 2),
    "f": (7397, 32, 2),
    "g": (7412, 32, 2),
    "h": (7448, 32, 2),
    "i": (7474, 32, 2),
    "j": (7500, 32, 2),
    "k": (7525, 32, 2),
    "l": (7543, 32, 2),
    "m": (7594, 32, 2),
    "n": (7609, 32, 2),
    "o": (7645, 32, 2),
    "p": (7692, 32, 2),
    "q": (7713, 32, 2),
    "r": (7731, 32, 2),
    "s": (7793, 32, 2),
    "t": (7829, 32, 2),
    "u": (7861, 32, 2),
    "v": (7907, 32, 2),
    "w": (7925, 32, 2),
    "x": (7935, 32, 2),
    "y": (7947, 32, 2),
    "z": (7969, 32, 2),
    "{": (795, 32, 2),
    "|": (1566, 32, 2),
    "}": (796, 32, 2),
    "~": (1568, 32, 2),
}

if TYPE_CHECKING:
    from openclaw_mcp.application.ports.collation import Collator

    _: Collator = UcaCollator()
