"""analysis/knowledge."""
