"""The one error of the results-doc generator: a doc that cannot be generated, said in one line."""

from __future__ import annotations


class DocsError(Exception):
    """A generated block cannot be made or checked: a bad marker, a missing report, table,
    column or claim. The message is one line; the command prints it after the file's name and
    exits with status 2, without a traceback."""
