"""The core's face: what the UI and the CLI use of the vault, with no Qt below it.

    from anthology.vault import VaultIndex, VaultError, vault_root

Names are loaded when first asked for (PEP 562), so importing the package costs nothing
and the parser's worker processes, which import :mod:`anthology.vault.stage`, start fast.

- The index: :class:`VaultIndex` (open, refresh, and every question: entries, backlinks,
  search, problems, graph, exports), :func:`default_db_path`, :class:`RefreshReport`,
  :class:`IndexFileError`, :func:`check_place`, :class:`QueryTooLarge` (a search too long).
- What it answers with (:mod:`.model`): :class:`Entry`, :class:`EntryRef`,
  :class:`Relation`, :class:`LinkRow`, :class:`SearchHit`, :class:`Problem`,
  :class:`BacklinksView`, :class:`GraphData`, and :data:`MATCH_START` / :data:`MATCH_END`.
- A vault before it is indexed (:mod:`.first_look`) and its files (:mod:`.files`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "VaultIndex": "index",
    "default_db_path": "index",
    "HOME_IDS": "entries",
    "RefreshReport": "indexer",
    "IndexFileError": "index_file",
    "check_place": "index_file",
    "VaultError": "scan",
    "vault_root": "scan",
    "note_vault": "scan",
    "Entry": "model",
    "EntryRef": "model",
    "display_labels": "model",
    "EntryLookup": "model",
    "Relation": "model",
    "LinkRow": "model",
    "SearchHit": "model",
    "Problem": "model",
    "MATCH_START": "model",
    "MATCH_END": "model",
    "BacklinksView": "backlinks",
    "GraphData": "graph_data",
    "hops_within": "graph_data",
    "DiskResolver": "first_look",
    "first_entry_path": "first_look",
    "read_first_entry": "first_look",
    "open_regular": "files",
    "rank": "fuzzy",
    "QueryTooLarge": "query",
}

__all__ = [
    "HOME_IDS",
    "MATCH_END",
    "MATCH_START",
    "BacklinksView",
    "DiskResolver",
    "Entry",
    "EntryLookup",
    "EntryRef",
    "GraphData",
    "IndexFileError",
    "LinkRow",
    "Problem",
    "QueryTooLarge",
    "RefreshReport",
    "Relation",
    "SearchHit",
    "VaultError",
    "VaultIndex",
    "check_place",
    "default_db_path",
    "display_labels",
    "first_entry_path",
    "hops_within",
    "note_vault",
    "open_regular",
    "rank",
    "read_first_entry",
    "vault_root",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'anthology.vault' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"anthology.vault.{where}"), name)
    globals()[name] = value  # asked once
    return value


if TYPE_CHECKING:
    from anthology.vault.backlinks import BacklinksView
    from anthology.vault.entries import HOME_IDS
    from anthology.vault.files import open_regular
    from anthology.vault.first_look import DiskResolver, first_entry_path, read_first_entry
    from anthology.vault.fuzzy import rank
    from anthology.vault.graph_data import GraphData, hops_within
    from anthology.vault.index import VaultIndex, default_db_path
    from anthology.vault.index_file import IndexFileError, check_place
    from anthology.vault.indexer import RefreshReport
    from anthology.vault.model import (
        MATCH_END,
        MATCH_START,
        Entry,
        EntryLookup,
        EntryRef,
        LinkRow,
        Problem,
        Relation,
        SearchHit,
        display_labels,
    )
    from anthology.vault.query import QueryTooLarge
    from anthology.vault.scan import VaultError, note_vault, vault_root
