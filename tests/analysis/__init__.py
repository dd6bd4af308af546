"""Tests of convo.analysis (stats counted on raw bytes, knowledge shortcuts)."""
