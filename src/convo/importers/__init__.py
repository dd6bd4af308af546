"""The importers: one package per family, one module per format, and the registry."""
