"""Tests of the query language and the filter tree."""
