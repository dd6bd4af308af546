"""Network blocked: every Python started with this folder on its path (the TypeAgent
database tests' ``convo`` and its TypeAgent child) fails any connection but to a local
socket or this machine (127.0.0.1, ::1, localhost), so an API call TypeAgent would make shows up as an error."""

import socket

_connect = socket.socket.connect


def _local_only(self, address):  # pragma: no cover - runs in the child processes
    if self.family == socket.AF_UNIX or address[0] in ("127.0.0.1", "::1", "localhost"):
        return _connect(self, address)
    raise OSError(f"network blocked in this test: {address!r}")


socket.socket.connect = _local_only  # type: ignore[method-assign]
_create_connection = socket.create_connection


def _local_connection(address, *args, **kwargs):  # pragma: no cover - as above
    """``socket.create_connection`` to this machine only (it returns the socket)."""
    if address[0] not in ("127.0.0.1", "::1", "localhost"):
        raise OSError(f"network blocked in this test: {address!r}")
    return _create_connection(address, *args, **kwargs)


socket.create_connection = _local_connection  # type: ignore[assignment]
