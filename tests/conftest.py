"""Shared fixtures: a realistic vault written to a temp folder, and an index beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sample_vault import REALISTIC_VAULT, write_vault

# GUI tests run without a display, in CI and here alike.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _user_state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test's user state (graph layouts, view settings) goes to its own temp folder,
    never to the real user data folder: a window opened without ``state_dir`` finds it
    through ``ANTHOLOGY_STATE_DIR`` (subprocesses inherit it)."""
    folder = tmp_path / "user-state"
    monkeypatch.setenv("ANTHOLOGY_STATE_DIR", str(folder))
    # and caches (a default index, the demo figure's sweep) never to the real cache folder
    monkeypatch.setenv("ANTHOLOGY_CACHE_DIR", str(tmp_path / "user-cache"))
    return folder


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A small vault with every link form, in a temp folder."""
    return write_vault(tmp_path / "vault", REALISTIC_VAULT)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """An index file in a folder of its own (made: ``--db`` never makes folders)."""
    (tmp_path / "cache").mkdir()
    return tmp_path / "cache" / "index.sqlite"


@pytest.fixture
def index(vault: Path, db_path: Path):
    from anthology.vault.index import VaultIndex

    with VaultIndex.open(vault, db_path) as idx:
        yield idx


OBSIDIAN_RULES = Path(__file__).resolve().parent / "vaults" / "obsidian-rules"


@pytest.fixture(scope="session")
def obsidian_index(tmp_path_factory: pytest.TempPathFactory):
    """One index of the fixture vault tests/vaults/obsidian-rules/ (read, never written:
    the app writes nothing into a vault) for the tests of its links, blocks and reports."""
    from anthology.vault.index import VaultIndex

    with VaultIndex.open(
        OBSIDIAN_RULES, tmp_path_factory.mktemp("obsidian-rules") / "i.sqlite"
    ) as ix:
        yield ix
