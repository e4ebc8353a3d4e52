"""Plugin sources (the ``PluginSource`` port): Python distributions' entry points."""
