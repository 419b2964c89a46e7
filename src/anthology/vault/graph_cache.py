"""The graph's link pairs kept beside the index, under the index's revision.

At 100,000 entries and 1.5 million links, the pairs the graph draws take ~0.8 s to ask of
the index (every link as one text, parsed, sorted into link order and made unique by numpy):
at every start, although the index had not changed since the last. They are kept in
``<index>.graph.npz`` with the revision of the index they were asked of
(:meth:`~anthology.vault.reports.ReportQueries.revision`, a new random text after every
refresh that changed anything); a start that finds its own revision there loads them in a
few milliseconds. A cache like the index itself: deleting it loses nothing, and a file that
is torn, foreign, of another revision or not the shape it says is asked again and replaced.
Only numbers and JSON text are stored (``allow_pickle=False``): loading it runs no code.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT = 1  # of the file: a change makes older files "another revision"
SUFFIX = ".graph.npz"  # beside the index (index_file removes it with the index)


@dataclass(frozen=True)
class LinkPairs:
    """The resolved links between two entries, each (source, target) pair once, as node
    indices (the entries in id order), and which relation each pair is drawn as."""

    pairs: np.ndarray  # (m, 2) int64
    codes: np.ndarray  # (m,) int64: the relation's index in ``names``, -1 an untyped mention
    names: list[str]

    def relations(self) -> list[str | None]:
        """Each pair's relation, None for a mention (GraphData.relations)."""
        table = np.array([*self.names, None], dtype=object)  # code -1: the last, None
        return table[self.codes].tolist()


def cache_path(db_path: Path) -> Path:
    return Path(f"{db_path}{SUFFIX}")


def _key(revision: str, nodes: int) -> str:
    return json.dumps({"format": FORMAT, "revision": revision, "nodes": nodes})


def load(path: Path, revision: str, nodes: int) -> LinkPairs | None:
    """The pairs kept at ``path`` for ``revision`` of an index of ``nodes`` entries, or None
    (no file, another revision, or not a file this module wrote whole)."""
    try:
        # the file opened here, not by np.load: what it is given by name it can leave open
        # when the file is not an archive
        with open(path, "rb") as fh:
            z = np.load(fh, allow_pickle=False)
            if not isinstance(z, np.lib.npyio.NpzFile):  # one array (.npy): not ours
                return None
            with z:
                if str(z["key"]) != _key(revision, nodes):
                    return None
                pairs = z["pairs"].astype(np.int64)
                codes = z["codes"].astype(np.int64)
                names = json.loads(str(z["names"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if (
        pairs.ndim != 2
        or pairs.shape[1] != 2
        or codes.shape != (len(pairs),)
        or not isinstance(names, list)
        or not all(isinstance(n, str) for n in names)
    ):
        return None
    if len(pairs) and not (
        pairs.min() >= 0 and pairs.max() < nodes and codes.min() >= -1 and codes.max() < len(names)
    ):
        return None
    return LinkPairs(pairs, codes, names)


def save(path: Path, revision: str, nodes: int, links: LinkPairs) -> None:
    """Keep ``links`` at ``path`` for ``revision``: written aside, then renamed into place,
    so a reader (another window) never sees half a file. A place that cannot be written (a
    read-only index, a full disk) keeps nothing: the pairs are asked again next time."""
    small = np.int32 if nodes < 2**31 else np.int64
    try:
        fd, aside = tempfile.mkstemp(prefix=path.name, suffix=".part", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(
                fh,
                key=np.array(_key(revision, nodes)),
                pairs=links.pairs.astype(small),
                codes=links.codes.astype(np.int16 if len(links.names) < 2**15 else np.int64),
                names=np.array(json.dumps(links.names)),
            )
        os.replace(aside, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(aside)
