"""JavaScript semantics the reference (a Node.js program) relies on, each defined once: pure, synchronous,
standard library only. The domain imports it; nothing below the domain redefines it.

- :mod:`.text` — ``String.prototype.trim`` whitespace, line terminators, UTF-16 length, code units, ordering,
  truncation and surrogate handling
- :mod:`.numbers` — ``Number.MAX_SAFE_INTEGER``, ``Number.isSafeInteger`` and ``Number()``
- :mod:`.undefined` — the one ``undefined`` (a key left out of JSON)
- :mod:`.jsjson` — ``JSON.stringify`` (key order, number formatting, escapes), ``String()`` and ``Boolean()``
- :mod:`.paths` — Node's ``path.posix.normalize`` / ``resolve``
- :mod:`.jsonstrict` — ``JSON.parse`` with V8's error texts
- :mod:`.json5` — the ``json5`` package's parser (OpenClaw reads its config with it)
- :mod:`.urls` — the WHATWG URL parser and serializer (Node's ``new URL``, ``URL.canParse``)
"""
