"""``Record``: a base class whose subclasses behave as frozen dataclasses (type checkers treat them as such,
PEP 681) without ``dataclasses``' per-class code generation.

Creating a ``@dataclass(frozen=True)`` class compiles six generated methods (≈0.5 ms a class on Python
3.11); the CLI defines about twenty value classes and pays that at every start. A ``Record`` subclass
costs only reading its annotations. Fields are the nearest ``Record`` base's fields, then the subclass's own
annotations in order (a redeclared field keeps its place); a class attribute gives a field its default. A subclass
declared ``kw_only=True`` may add fields without a default after inherited ones with a default (type checkers then
require keywords for it, as for a ``kw_only`` dataclass). Instances are immutable, compare equal when of the same
class with equal fields, hash and print like dataclasses.

Pure standard library, in the domain so that use-case requests (``application``) can be ``Record`` s that the CLI's
typed options extend (``entrypoints.cli.options``).
"""

from __future__ import annotations

import inspect
from dataclasses import FrozenInstanceError
from typing import Any, ClassVar, dataclass_transform

__all__ = ["Record"]

_NO_DEFAULT: Any = object()


@dataclass_transform(frozen_default=True)
class Record:
    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[tuple[Any, ...]] = ()

    def __init_subclass__(cls, *, kw_only: bool = False) -> None:
        """``kw_only`` only informs type checkers (PEP 681); at run time every field is also positional."""
        base = next(klass for klass in cls.__mro__[1:] if issubclass(klass, Record))
        inherited = dict(zip(base._fields, base._defaults, strict=True))
        annotations = inspect.get_annotations(cls)  # the class's own, as strings (postponed evaluation)
        own = {
            name: cls.__dict__.get(name, _NO_DEFAULT)
            for name, kind in annotations.items()
            if "ClassVar" not in str(kind)
        }
        fields = (*inherited, *(name for name in own if name not in inherited))
        cls._fields = fields
        cls._defaults = tuple(own[name] if name in own else inherited[name] for name in fields)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes {len(fields)} arguments but {len(args)} were given")
        for index, name in enumerate(fields):
            if index < len(args):
                if name in kwargs:
                    raise TypeError(f"{type(self).__name__}() got multiple values for argument {name!r}")
                value = args[index]
            elif name in kwargs:
                value = kwargs.pop(name)
            elif self._defaults[index] is not _NO_DEFAULT:
                value = self._defaults[index]
            else:
                raise TypeError(f"{type(self).__name__}() missing argument {name!r}")
            object.__setattr__(self, name, value)
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {next(iter(kwargs))!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"
