"""The email family: mbox, eml and Maildir."""

from convo.importers.email.readers import register

__all__ = ["register"]
