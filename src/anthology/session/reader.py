"""The reader's state of one open vault: what the window shows and keeps, without the
window.

- **Which entry to show** after the vault opens or the index is refreshed
  (:meth:`ReaderSession.entry_to_open`, :meth:`ReaderSession.after_refresh`): the saved tabs,
  an entry asked for by name (``anthology --entry``, or by its path: ``anthology NOTE.md``),
  one followed from the first look (the note read from disk before the index was built),
  the last one read, the home entry; the open one deleted on disk.
- **Tabs** saved and restored (:meth:`ReaderSession.restore_tabs`,
  :meth:`ReaderSession.save_tabs`): each one's :class:`~anthology.session.history.TabHistory`.
- **Bookmarks and recent entries**, written as changes to the user state (another window on
  the vault may have changed them meanwhile) and taken in when another window wrote.
- **The files to watch** (:func:`watch_set`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from anthology.session.changes import Changes
from anthology.session.history import TabHistory
from anthology.user_state import (
    BOOKMARKS,
    READER_TABS,
    RECENT,
    UserState,
    clean_id_list,
    clean_tabs,
)
from anthology.vault import VaultIndex

MAX_RECENT_ENTRIES = 30  # the quick switcher's recent entries, per vault
# inotify watches are a shared, limited resource: past this many files, poll instead.
MAX_WATCHED_FILES = 4000

# What the window does with the open entry after a refresh (see after_refresh).
AfterRefresh = Literal["moved", "deleted", "render", "keep"]


@dataclass
class WatchSet:
    """The paths to watch (every folder; every entry file while there are few enough) and
    whether the vault must be polled instead of its files watched."""

    paths: set[str] = field(default_factory=set)
    poll: bool = False


def watch_set(root: Path, entry_paths: Iterable[str], limit: int = MAX_WATCHED_FILES) -> WatchSet:
    """Every folder of ``entry_paths`` (vault-relative) and, while they are no more than
    ``limit``, the files themselves. Joined as text: a ``Path`` per entry took ~0.9 s of
    the GUI thread at 100,000 entries."""
    base = str(root)
    folders = {base}
    files = []
    for rel in entry_paths:
        folder = rel.rpartition("/")[0]
        folders.add(f"{base}/{folder}" if folder else base)
        files.append(f"{base}/{rel}")
    poll = len(files) > limit
    return WatchSet(folders if poll else folders | set(files), poll)


def vault_watch_set(index: VaultIndex, limit: int = MAX_WATCHED_FILES) -> WatchSet:
    """:func:`watch_set` of the index's entries, the files listed only when few enough to
    be watched (past ``limit`` the folders are asked for, not 100,000 paths)."""
    folders, count = index.entry_folders()
    if count <= limit:
        return watch_set(index.root, index.entry_paths(), limit)
    base = str(index.root)
    return WatchSet({base} | {f"{base}/{f}" if f else base for f in folders}, True)


@dataclass
class RestoredTabs:
    histories: list[TabHistory]  # each with a current visit
    active: int  # which of them is shown


class ReaderSession:
    """One open vault's reader state. ``state`` is the vault's user state (None: kept in
    memory only); ``entry`` an entry asked for by name; ``last`` the last one read."""

    def __init__(
        self, state: UserState | None = None, *, entry: str | None = None, last: str | None = None
    ) -> None:
        self.state = state
        self.explicit_entry = entry  # asked for by name: opens over the saved tabs
        self.pending_entry = entry or last  # to show once the index is ready
        self.first_look: str | None = None  # the path shown before the index was built
        self.tabs_restored = False  # the saved tabs were put back (so they may be saved)
        self.bookmarks: list[str] = self._id_list(BOOKMARKS)  # in the order they were added
        self.recent: list[str] = self._id_list(RECENT)  # opened last, latest first
        self._recent_new: list[str] = []  # of them, opened since they were last saved

    def _id_list(self, key: str) -> list[str]:
        return self.state.get(key, [], clean=clean_id_list) if self.state is not None else []

    # -- which entry to show -------------------------------------------------------------------
    def entry_to_open(self, index: VaultIndex) -> str | None:
        """The entry to show when none is shown yet: the one asked for (by id, or by path),
        or followed from the first look, else the entry the first look showed, else the home
        entry; None for a vault without entries. Asked once: what was pending is used up."""
        target = self.pending_entry
        self.pending_entry = None
        first_look, self.first_look = self.first_look, None
        if first_look and (not target or index.entry_ref(target) is None):
            # a link followed in the first look, named as it was written there (found among
            # that note's link rows); else the entry the first look showed, by its path (one
            # lookup: resolving the path as a link built the whole vault's name map, 0.3 s of
            # the GUI thread at 100,000 entries, as the build ended)
            found = index.entry_ref_at_path(first_look) if not target else None
            found = found or index.resolve(target or first_look, first_look)
            target = found.id if found else None
        if target and index.entry_ref(target) is None:
            named = index.entry_ref_at_path(target)  # `anthology NOTE.md`
            target = named.id if named else None
        return target or index.home_id()

    def after_refresh(self, changes: Changes, current: str, index: VaultIndex) -> AfterRefresh:
        """What becomes of the open entry: ``moved`` (renamed or moved on disk: follow it to
        ``changes.new_id(current)``), ``deleted`` on disk (show another), ``render`` again
        (it was edited), or ``keep`` it as it is."""
        if changes.new_id(current) is not None:
            return "moved"
        if current in changes.removed and index.entry_ref(current) is None:
            return "deleted"
        if changes.touches(current) and index.entry_ref(current) is not None:
            return "render"
        return "keep"

    # -- tabs ----------------------------------------------------------------------------------
    def restore_tabs(
        self, index: VaultIndex, document_exists: Callable[[str, str], bool] | None = None
    ) -> RestoredTabs | None:
        """The tabs saved in the user state, without visits of entries gone since (nor of
        other kinds of document unless ``document_exists(kind, id)``); None if there were
        none (or none is left). Asked once a vault: after it, tabs may be saved."""
        self.tabs_restored = True
        if self.state is None:
            return None
        data = self.state.get(READER_TABS, clean=clean_tabs)
        if data is None:
            return None
        histories = [TabHistory.from_json(t, lambda i: index.entry_ref(i) is not None,
                                          document_exists) for t in data["tabs"]]  # fmt: skip
        current = data.get("current")
        current = current if isinstance(current, int) else 0
        kept = [(i, h) for i, h in enumerate(histories) if h.current is not None]
        if not kept:
            return None
        active = min(range(len(kept)), key=lambda k: abs(kept[k][0] - current))
        return RestoredTabs([h for _i, h in kept], active)

    def save_tabs(self, histories: list[TabHistory], current: int) -> None:
        """Keep the open tabs (those with a document) and the recent entries in the user state;
        ``current`` is the active one's place in ``histories``."""
        if self.state is None or not self.tabs_restored:
            return  # before the saved ones were put back, saving would lose them
        tabs: list[dict[str, Any]] = []
        active = 0
        for n, history in enumerate(histories):
            if history.current is None:
                continue
            if n == current:
                active = len(tabs)
            tabs.append(history.to_json())
        self.state.put(READER_TABS, {"tabs": tabs, "current": active})
        self.save_recent()

    # -- recent entries ------------------------------------------------------------------------
    def visited(self, entry_id: str) -> None:
        """``entry_id`` was opened: first among the recent entries."""
        self.recent = [entry_id, *(i for i in self.recent if i != entry_id)][:MAX_RECENT_ENTRIES]
        self._recent_new = [entry_id, *(i for i in self._recent_new if i != entry_id)]

    def _merged_recent(self, saved: list[str]) -> list[str]:
        """The entries this window opened since it last saved, latest first, then the saved
        ones (other windows' too)."""
        new = self._recent_new
        return [*new, *(i for i in saved if i not in new)][:MAX_RECENT_ENTRIES]

    def save_recent(self) -> None:
        if self.state is None:
            return
        recent = self.state.update(RECENT, self._merged_recent, [], clean_id_list)
        if recent is not None:
            self._recent_new = []
            self.recent = recent

    # -- bookmarks -----------------------------------------------------------------------------
    def is_bookmarked(self, entry_id: str | None) -> bool:
        return entry_id is not None and entry_id in self.bookmarks

    def change_bookmarks(self, *, add: str | None = None, remove: str | None = None) -> None:
        """Add or remove one bookmark: a change applied to the list as it is in the user
        state now (another window on the vault may have changed it), not this window's copy
        written over it."""

        def change(ids: list[str]) -> list[str]:
            ids = [i for i in ids if i != remove]
            return ids if add is None or add in ids else [*ids, add]

        saved = self.state.update(BOOKMARKS, change, [], clean_id_list) if self.state else None
        self.bookmarks = saved if saved is not None else change(self.bookmarks)

    def follow_moves(self, moves: dict[str, str]) -> None:
        """Entries renamed or moved on disk (old id → new id): the bookmarks and the recent
        entries name the new ids (in the user state too, as changes to what it holds)."""
        if not moves:
            return

        def follow(ids: list[str]) -> list[str]:
            return list(dict.fromkeys(moves.get(i, i) for i in ids))

        if any(i in moves for i in self.bookmarks):
            saved = self.state.update(BOOKMARKS, follow, [], clean_id_list) if self.state else None
            self.bookmarks = saved if saved is not None else follow(self.bookmarks)
        if any(i in moves for i in self.recent):
            self._recent_new = follow(self._recent_new)
            self.recent = follow(self.recent)
            if self.state is not None:
                self.state.update(RECENT, follow, [], clean_id_list)

    def toggle_bookmark(self, entry_id: str) -> bool:
        """Bookmark ``entry_id`` or take its bookmark off; True if it is bookmarked now."""
        if entry_id in self.bookmarks:
            self.change_bookmarks(remove=entry_id)
            return False
        self.change_bookmarks(add=entry_id)
        return True

    def sync(self) -> tuple[bool, bool]:
        """Take in what another window on this vault saved since this one last looked:
        whether (the bookmarks, the recent entries) changed here."""
        if self.state is None or not self.state.changed_elsewhere():
            return False, False
        bookmarks = self._id_list(BOOKMARKS)
        marks = bookmarks != self.bookmarks
        self.bookmarks = bookmarks
        recent = self._merged_recent(self._id_list(RECENT))
        seen = recent != self.recent
        self.recent = recent
        return marks, seen
