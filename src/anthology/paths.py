"""Where the bundled anthology and the resources live, and how a vault's own files are named.

A wheel (``pip install .``) carries them inside the package as ``anthology/_bundled``;
an editable install or a source checkout finds them at the repository root.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _bundled(name: str) -> Path:
    inside = _PACKAGE / "_bundled" / name
    if inside.is_dir():
        return inside
    return _PACKAGE.parent.parent / name


def entries_dir() -> Path:
    """The bundled anthology (``entries/``): the vault opened when none is given."""
    return _bundled("entries")


def resources_dir() -> Path:
    """Stylesheets, icons and fonts: everything the app shows, offline."""
    return _bundled("resources")


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


CACHE_DIR_ENV = "ANTHOLOGY_CACHE_DIR"


def user_cache_dir() -> Path:
    """Anthology's cache folder (indexes, the demo figure's sweep): the platform's user cache
    folder, or ``$ANTHOLOGY_CACHE_DIR`` when set (the tests point it at a temp folder).
    Everything in it can be deleted: it is rebuilt from the vaults and the code."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("anthology"))


def vault_file_name(root: Path, suffix: str = ".sqlite") -> str:
    """The file name of a vault's own file in a per-user folder (its index in the cache
    folder, its user state in the data folder): the folder's name, readable, and a digest
    of its whole path, so two vaults called ``notes`` never share a file."""
    digest = hashlib.sha1(str(root).encode("utf-8")).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", root.name)[:40] or "vault"
    return f"{slug}-{digest}{suffix}"
