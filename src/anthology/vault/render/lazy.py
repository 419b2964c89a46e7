"""A renderer named by its module, imported when first asked: the registries of fenced blocks
and embedded files list every kind, but a start-up must not pay for the query engine, the
drawing or canvas models when the first page holds none (they cost ~70 ms to import)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy(module: str, name: str) -> Callable[..., Any]:
    """``name`` of ``anthology.vault.render.<module>``, imported at its first call."""
    found: list[Callable[..., Any]] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not found:
            found.append(getattr(importlib.import_module(f"anthology.vault.render.{module}"), name))
        return found[0](*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call
