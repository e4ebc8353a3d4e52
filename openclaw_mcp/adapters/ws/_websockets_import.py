"""Import ``websockets`` without ``importlib.metadata`` (start-up cost of ``openclaw mcp serve``).

``websockets.version`` imports ``importlib.metadata`` at its top, to read its own version in a development
checkout only (``released = False``); a release never uses it. That import alone (``email``, ``csv``,
``zipfile``, ``pathlib``…) costs ~3 MiB of resident memory and ~10 ms of CPU, more than the rest of
``websockets`` — a third of what building the bridge's Gateway client costs. While ``websockets`` is first
imported, an empty placeholder stands in for ``importlib.metadata``; it is removed right after, so the rest
of the process imports the real module normally. Should the placeholder not do (a development build of
``websockets``), the package is imported again the ordinary way.

``websockets.proxy`` (imported by ``websockets.asyncio.client``) imports ``urllib.request`` at its top, for
``get_proxy`` only: the system proxy settings, read only when a connection is opened with ``proxy=True``
(the Gateway client passes ``proxy=None``). ``urllib.request`` pulls in ``http.client``, ``email``,
``shutil``, ``bz2`` and ``lzma``: ~2 MiB resident. Unless already imported, a stand-in is therefore registered
in its place that imports it on its first attribute access, by whichever code uses it.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

__all__ = ["defer_urllib_request", "import_websockets"]

_METADATA = "importlib.metadata"
_URLLIB_REQUEST = "urllib.request"


def import_websockets() -> None:
    """Import ``websockets.version`` (and the package) now, without ``importlib.metadata`` when it is not
    loaded yet (a no-op once either is loaded); first :func:`defer_urllib_request`."""
    defer_urllib_request()
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


class _DeferredModule(types.ModuleType):
    """Stands in for a module not imported yet: its first attribute access imports the real module (which
    replaces the stand-in in ``sys.modules`` and on its package) and is answered by it, as is every later one.

    Not ``importlib.util.LazyLoader``: the import statement itself reads ``__spec__`` of a module found in
    ``sys.modules``, which would load a lazy module at once."""

    def __getattr__(self, name: str) -> Any:
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


def defer_urllib_request() -> None:
    """Let ``urllib.request`` be imported on its first use (see the module docstring) unless it is imported
    already."""
    if _URLLIB_REQUEST in sys.modules:
        return
    import urllib

    sys.modules[_URLLIB_REQUEST] = deferred = _DeferredModule(_URLLIB_REQUEST)
    urllib.request = deferred  # type: ignore[attr-defined]  # what an import sets on the package
