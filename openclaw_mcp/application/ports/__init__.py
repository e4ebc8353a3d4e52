"""Ports: what the use cases need from the world, as ``typing.Protocol`` classes, one module per port family.

Each port states its error contract (the exceptions its adapters raise); adapters implement the ports
structurally and translate library exceptions into those errors. Every port has one contract suite in
``tests/contract/`` that each adapter passes.

- :mod:`.config` — the config file (``ConfigStore``/``ConfigEdit``) and server references (``ServerRefs``)
- :mod:`.clock` — ``Clock``;  :mod:`.collation` — ``Collator``;  :mod:`.host_files` — ``HostFiles``
- :mod:`.leases` — cross-process leases (``LeaseStore``, ``LeaseTable``)
- :mod:`.oauth` — OAuth credential store, status reader and the OAuth wire protocol
- :mod:`.mcp` — MCP server connections (``McpConnector``)
- :mod:`.gateway` — the OpenClaw Gateway client and device identity
- :mod:`.bridge` — what the serve bridge needs from its MCP side
- :mod:`.approvals` — plugin approvals (``PluginApprovals``);  :mod:`.plugins` — Python plugins (``PluginSource``)
- :mod:`.gateway_health` — the Gateway ``/healthz`` probe (``GatewayHealthProbe``)
- :mod:`.telemetry` — spans (``Telemetry``; the no-op ``NO_TELEMETRY`` is the default, docs/telemetry.md)
"""
