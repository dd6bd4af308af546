"""Transcripts: WebVTT, SRT and SBV."""

from convo.importers.transcripts.readers import register

__all__ = ["register"]
