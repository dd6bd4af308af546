"""Tests of the store: appending, reading and the Store API."""
