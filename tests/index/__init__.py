"""Tests of the SQLite index, search and store maintenance."""
