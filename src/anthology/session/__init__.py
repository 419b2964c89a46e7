"""The reader's state of one open vault, free of Qt: which entry to show after an open or
a refresh, the tabs and their histories, bookmarks and recent entries, the files to watch,
and what a refresh changed (:class:`Changes`, the report every panel is given)."""

from anthology.session.changes import Changes, same_graph
from anthology.session.history import TabHistory, Visit
from anthology.session.reader import ReaderSession, WatchSet, watch_set

__all__ = ["Changes", "ReaderSession", "TabHistory", "Visit", "WatchSet", "same_graph", "watch_set"]
