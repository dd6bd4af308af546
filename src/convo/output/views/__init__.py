"""Terminal views: the conversation (``show``), stats, knowledge and formats tables.

Views lay records out by their format's ``family`` (``convo.importers.registry``), never
by format names, so a third-party importer's records are shown like its family's.
"""
