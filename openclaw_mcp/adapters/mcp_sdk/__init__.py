"""What every MCP connector built on the MCP Python SDK shares: the client session over an SDK stream pair
(``session``), the connection's async context manager (``context``) and the error texts and designed
diagnostic causes (``errors``).

A shared base of ``adapters.stdio``, ``adapters.http`` and ``adapters.memory``, which stay independent of
each other; this package imports none of them.
"""

__all__: list[str] = []
