"""Fixtures of the query engine's tests: the vault tests/vaults/bases/ (books, people,
genres, things, kepano's public bases and the help page's example base) and its index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from anthology.vault.index import VaultIndex

BASES_VAULT = Path(__file__).resolve().parents[1] / "vaults" / "bases"


@pytest.fixture(scope="session")
def bases_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VaultIndex]:
    """One index of tests/vaults/bases/ (read, never written)."""
    with VaultIndex.open(BASES_VAULT, tmp_path_factory.mktemp("bases") / "i.sqlite") as ix:
        yield ix
