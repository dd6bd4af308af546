"""cli/commands."""
