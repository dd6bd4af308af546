"""Tests of the core: records, JSONL lines, timestamps, normalising text."""
