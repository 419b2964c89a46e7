"""The reader lent to work off the GUI thread: nothing closes it under a borrower, its
renders are cached as the window's index's, and its lock is not the index's."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from anthology.tasks import Cancelled
from anthology.vault import VaultIndex
from anthology.vault.render import render_entry
from anthology.vault.render.entry import cached_render, clear_render_cache, render_key
from anthology.vault.shared_reader import SharedReader
from sample_vault import REALISTIC_VAULT, write_vault


@pytest.fixture
def index(tmp_path: Path):
    vault = write_vault(tmp_path / "vault", REALISTIC_VAULT)
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as ix:
        yield ix


def test_the_owner_letting_go_never_closes_what_a_borrower_reads(index: VaultIndex) -> None:
    shared = SharedReader(index)
    key = render_key(index)
    with shared.borrow(key) as lookup:
        shared.close()  # the vault is switched while a render holds the reader
        index.close()  # and the window's own connection goes
        assert not shared.closed
        ref = lookup.resolve("SOTA-050", "papers/LIT-008.md")  # still answers
        assert ref is not None and ref.id == "SOTA-050"
        assert lookup.embed_body("SOTA-050")
    assert shared.closed  # the last borrower closed it as it gave it back
    with pytest.raises(sqlite3.ProgrammingError):
        lookup.resolve("SOTA-050", "papers/LIT-008.md")
    with pytest.raises(Cancelled), shared.borrow(key):  # work that starts after the vault
        pass  # closed does not run


def test_an_idle_reader_is_closed_at_once_and_one_never_opened_costs_nothing(
    index: VaultIndex,
) -> None:
    never = SharedReader(index)
    never.close()
    assert never.closed and never.borrowers == 0
    used = SharedReader(index)
    with used.borrow(render_key(index)) as lookup:
        assert lookup.resolve("LIT-008", "HOME.md") is not None
    assert not used.closed  # kept for the next render while the vault is open
    used.close()
    assert used.closed
    with pytest.raises(sqlite3.ProgrammingError):
        lookup.resolve("LIT-008", "HOME.md")


def test_a_render_made_with_the_reader_is_found_as_the_indexs(index: VaultIndex) -> None:
    """The pane looks a page up with the window's index on the GUI thread: a page its
    worker rendered through the reader is that page (no second render on a revisit)."""
    clear_render_cache()
    shared = SharedReader(index)
    entry = index.entry("LIT-008")
    assert entry is not None
    with shared.borrow(render_key(index)) as lookup:
        made = render_entry(entry, lookup, theme="dark")
    assert cached_render(entry, index, theme="dark") is made
    assert 'href="entry:SOTA-050"' in made.html  # its links were resolved by the reader
    shared.close()


def test_a_worker_holding_the_readers_lock_does_not_hold_the_indexs(index: VaultIndex) -> None:
    """The GUI thread asks the index while a worker is in the middle of a question of the
    reader (held there, as a long query would hold it)."""
    shared = SharedReader(index)
    inside, release, answered = threading.Event(), threading.Event(), threading.Event()

    def work() -> None:
        with shared.borrow(render_key(index)) as lookup:
            reader = lookup._reader
            with reader._lock:  # as _written holds it while it reads an entry's links
                inside.set()
                release.wait(30)
            answered.set()

    worker = threading.Thread(target=work)
    worker.start()
    try:
        assert inside.wait(30)
        entry = index.entry("LIT-008")  # the GUI thread's question
        assert entry is not None and entry.title == "Attention Is All You Need"
        assert not answered.is_set()  # answered while the worker still held its lock
    finally:
        release.set()
        worker.join()
        shared.close()
