"""Which cached renders a refresh of the index leaves true.

A render (of an entry, or of a page preview) is cached under a key naming the index and its
state (:func:`~anthology.vault.render.entry.render_key`: the index and SQLite's
``data_version``), so a refresh that writes anything would otherwise send every page through
the renderer again, and the reader's revisits and previews after one edit would all be
slow. Each render records what it asked the index (``RenderedEntry.lookups``: the links
it resolved, the files it found, with their answers); :func:`carry_renders` moves the renders
whose every answer is still the same, and none of whose linked or embedded entries changed,
to the index's new state, and drops the others. The entry's own text, properties and
backlink counts are in its key already: an edited entry is rendered again by itself.
"""

from __future__ import annotations

from collections.abc import Hashable, Set

from ..lru import LockedLru
from ..model import EntryLookup
from .context import file_signature
from .entry import RenderedEntry, render_cache, render_key
from .previews import preview_cache

# A render that asked more than this is dropped rather than checked: checking costs a
# look-up per answer, on the GUI thread; rendering it again happens only if it is opened.
MAX_CHECKED_LOOKUPS = 5_000
_KEY_STATE = 5  # where a render cache key holds render_key(resolver) (entry.py, previews.py)


def still_current(rendered: RenderedEntry, resolver: EntryLookup, changed: Set[str]) -> bool:
    """Whether ``rendered`` shows what a render now would: its entry is not among
    ``changed`` (the ids a refresh edited, removed or renamed), every link and file it
    asked for resolves as it did, and no entry it resolved to changed."""
    if rendered.entry_id in changed or len(rendered.lookups) > MAX_CHECKED_LOOKUPS:
        return False
    for (what, target, source), answer in rendered.lookups.items():
        if what == "entry":
            if answer is not None and answer in changed:
                return False  # its title, text (an embed) or existence may differ now
            try:
                ref = resolver.resolve(target, source)
            except Exception:
                return False
            if (ref.id if ref is not None else None) != answer:
                return False
        elif what == "file":
            try:
                now = file_signature(resolver.attachment(target, source))
            except Exception:
                return False
            if now != answer:
                return False
        else:  # a question this module does not know how to ask again
            return False
    return True


def carry(cache: LockedLru[RenderedEntry], resolver: EntryLookup, changed: Set[str]) -> None:
    """Move the renders of ``cache`` made against ``resolver`` (in any state) that are
    :func:`still_current` to its state now; drop the other renders of it. Renders made
    against another index are left alone."""
    state = render_key(resolver)
    index = state[0] if isinstance(state, tuple) and state else None

    def new_key(key: Hashable, rendered: RenderedEntry) -> Hashable | None:
        if not isinstance(key, tuple) or len(key) <= _KEY_STATE:
            return key
        old = key[_KEY_STATE]
        # (a render keyed with the state now is checked too: SQLite's data_version does
        # not change when the index's own connection wrote)
        if not (isinstance(old, tuple) and old and old[0] == index):
            return key  # another index's render
        if not still_current(rendered, resolver, changed):
            return None
        return (*key[:_KEY_STATE], state, *key[_KEY_STATE + 1 :])

    cache.rekey(new_key)


def carry_renders(resolver: EntryLookup, changed: Set[str]) -> None:
    """After a refresh of ``resolver``'s index that edited, removed or renamed the entries
    ``changed``: keep the cached entry pages and page previews it leaves true, drop the
    rest (see the module's doc)."""
    carry(render_cache(), resolver, changed)
    carry(preview_cache(), resolver, changed)
