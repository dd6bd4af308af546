"""Tests that the README and docs/ say what the code does: examples run, lists match."""
