"""Import ``websockets`` without ``importlib.metadata`` (start-up cost of ``openclaw mcp serve``).

``websockets.version`` imports ``importlib.metadata`` at its top, to read its own version in a development
checkout only (``released = False``); a release never uses it. That import alone (``email``, ``csv``,
``zipfile``, ``pathlib``…) costs ~3 MiB of resident memory and ~10 ms of CPU, more than the rest of
``websockets`` — a third of what building the bridge's Gateway client costs. While ``websockets`` is first
imported, an empty placeholder stands in for ``importlib.metadata``; it is removed right after, so the rest
of the process imports the real module normally. Should the placeholder not do (a development build of
``websockets``), the package is imported again the ordinary way.
"""

from __future__ import annotations

import importlib
import sys
import types

__all__ = ["import_websockets"]

_METADATA = "importlib.metadata"


def import_websockets() -> None:
    """Import ``websockets.version`` (and the package) now, without ``importlib.metadata`` when it is not
    loaded yet; a no-op once either is loaded."""
    if "websockets" in sys.modules or _METADATA in sys.modules:
        return
    placeholder = types.ModuleType(_METADATA)
    sys.modules[_METADATA] = placeholder
    try:
        importlib.import_module("websockets.version")
    except Exception:  # a development build reads its version through importlib.metadata: import it normally
        for name in [name for name in sys.modules if name == "websockets" or name.startswith("websockets.")]:
            del sys.modules[name]
    finally:
        if sys.modules.get(_METADATA) is placeholder:
            del sys.modules[_METADATA]
    importlib.import_module("websockets")
