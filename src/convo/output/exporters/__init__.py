"""output/exporters."""
