"""Where the bundled anthology and the resources live.

A wheel (``pip install .``) carries them inside the package as ``anthology/_bundled``;
an editable install or a source checkout finds them at the repository root.
"""

from __future__ import annotations

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
