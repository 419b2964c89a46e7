"""The reader's state of one open vault, free of Qt, tested without a display: which entry to
show after an open or a refresh, the tabs and their histories, bookmarks and recent entries,
the files to watch, what a refresh changed (:class:`Changes`, the report every panel is
given), backlink groups and rows (:mod:`.backlinks`), page keys and the kept pages
(:mod:`.pages`). The widgets in :mod:`anthology.ui` only draw what these say."""

from anthology.session.changes import Changes
from anthology.session.history import TabHistory, Visit
from anthology.session.reader import ReaderSession, WatchSet, vault_watch_set, watch_set

__all__ = [
    "Changes",
    "ReaderSession",
    "TabHistory",
    "Visit",
    "WatchSet",
    "vault_watch_set",
    "watch_set",
]
