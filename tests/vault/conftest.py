"""Fixtures shared by the renderer tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_render_sample import FakeResolver, make_vault

from anthology.vault.render import clear_render_cache


@pytest.fixture
def resolver(tmp_path: Path) -> FakeResolver:
    """A small vault of real files on disk and a resolver over it; a cold render cache."""
    clear_render_cache()
    return make_vault(tmp_path)
