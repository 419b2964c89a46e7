"""Where the bundled anthology and the resources live, and how a vault's own files are named.

A wheel (``pip install .``) carries them inside the package as ``anthology/_bundled``;
an editable install or a source checkout finds them at the repository root.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
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


# cache folder that could not be written → (the temporary folder used instead, why)
_scratch: dict[Path, tuple[Path, str]] = {}


def index_dir() -> Path:
    """The folder of the vaults' indexes: ``<user cache folder>/indexes``, created.

    When it cannot be created or written (a read-only HOME, a file in the way), the
    indexes go to a private temporary folder of this process, removed at exit, and
    :func:`cache_problem` says why: the index is a cache, so the app still reads the vault
    (each run builds it anew) instead of refusing to start."""
    folder = user_cache_dir() / "indexes"
    if folder in _scratch:
        return _scratch[folder][0]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass  # writable: what access() cannot tell for root or a read-only mount
        return folder
    except OSError as exc:
        import atexit
        import shutil

        scratch = Path(tempfile.mkdtemp(prefix="anthology-indexes-"))
        atexit.register(shutil.rmtree, scratch, True)
        why = exc.strerror or exc
        _scratch[folder] = (
            scratch,
            f"the cache folder {folder} cannot be written ({why}); the index is kept in "
            f"{scratch} for this run only",
        )
        return scratch


def cache_problem() -> str | None:
    """Why the indexes live in a temporary folder this run (see :func:`index_dir`), for
    the CLI and the window to say; None when the cache folder is in use."""
    hit = _scratch.get(user_cache_dir() / "indexes")
    return hit[1] if hit else None


def vault_file_name(root: Path, suffix: str = ".sqlite") -> str:
    """The file name of a vault's own file in a per-user folder (its index in the cache
    folder, its user state in the data folder): the folder's name, readable, and a digest
    of its whole path, so two vaults called ``notes`` never share a file."""
    digest = hashlib.sha1(str(root).encode("utf-8")).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", root.name)[:40] or "vault"
    return f"{slug}-{digest}{suffix}"
