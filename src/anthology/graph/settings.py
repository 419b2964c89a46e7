"""The graph view's settings: their names, defaults, validation and migrations. Free of Qt.

One ``dict`` of plain values (:data:`DEFAULTS`) holds what the reader chose for the graph:
forces, display, filters, colour groups and the mode. The controls panel edits it, the scene
(:mod:`anthology.graph.scene`) reads it, and it persists per vault in the user state under
``graph.view``: :func:`clean_settings` drops what a saved copy holds that cannot be used,
:func:`migrate_settings` turns the settings of before ordered groups into groups, and
:func:`settings_from_store` makes the values a vault's graph opens with.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

__all__ = [
    "DEFAULTS",
    "FILTER_KEYS",
    "FORCE_KEYS",
    "MENTION",
    "RANGES",
    "clean_settings",
    "defaults",
    "migrate_settings",
    "settings_from_store",
]

MENTION = "mention"  # the filter/legend name of untyped body links (relation None)

DEFAULTS: dict[str, Any] = {
    # forces (→ ForceParams)
    "center": 0.05,  # ForceParams.gravity: the pull towards the centre
    "repel": -30.0,  # ForceParams.repel_strength
    "link_strength": None,  # None: the engine's default (1 / min degree); else a float
    "link_distance": 30.0,
    # display
    "node_size": 1.0,
    "link_width": 1.0,
    "text_fade": 1.3,  # zoom at which an unlinked node's label is fully shown; hubs earlier
    "arrows": False,
    "legend": True,
    "label_by": "title",  # "title" | "id" (long titles are elided)
    # filters
    "hidden_kinds": [],
    "tags": "",  # comma-separated: show only entries with one of these tags
    "hidden_relations": [],
    "orphans": True,
    "ghosts": False,
    # groups (anthology.graph.groups): a base colouring, then the ordered groups over it
    "color_by": "auto",  # "auto" (kind, else top folder) | "kind" | "folder" | "tag" |
    #                      "community" | "query" (the old ";"-separated group_query)
    "groups": [],  # [{"query": "folder:Daily", "color": "#e06c75"}, …]: first match wins
    "group_query": "",  # before "groups"; migrated into them when a vault's settings load
    # mode
    "local": False,
    "depth": 1,
    "controls_open": False,
}

# the numeric settings and the range the controls' sliders offer
RANGES: dict[str, tuple[float, float]] = {
    "center": (0.0, 0.5),
    "repel": (-300.0, 0.0),
    "link_strength": (0.0, 2.0),
    "link_distance": (5.0, 250.0),
    "node_size": (0.3, 3.0),
    "link_width": (0.3, 4.0),
    "text_fade": (0.1, 8.0),
}
FORCE_KEYS = frozenset({"center", "repel", "link_strength", "link_distance"})
FILTER_KEYS = frozenset({"hidden_kinds", "tags", "hidden_relations", "orphans", "ghosts"})


def defaults() -> dict[str, Any]:
    return copy.deepcopy(DEFAULTS)


def _usable(key: str, value: Any, default: Any) -> bool:
    """Whether ``value`` may stand for setting ``key`` (whose default is ``default``)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if key in RANGES:
        # finite, and within reach of the sliders (a huge one overflows their scale)
        return (value is None and default is None) or (number and abs(value) <= 1e6)
    if key == "depth":
        return number and isinstance(value, int) and 1 <= value <= 3
    if isinstance(default, bool | str):
        return type(value) is type(default)
    if key == "groups":
        return isinstance(value, list)
    if isinstance(default, list):
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return True


def clean_settings(stored: Any) -> dict[str, Any]:
    """The usable part of a saved ``graph.view`` (the ``clean`` of ``UserState.get``): each
    setting of the wrong type, not finite or out of range is dropped (its default stands),
    and so is each group row that is not ``{"query": str, "color": str}``. A value that is
    not a mapping at all raises ``TypeError``."""
    if not isinstance(stored, dict):
        raise TypeError(f"a mapping of settings, not {type(stored).__name__}")
    out = {k: v for k, v in stored.items() if k not in DEFAULTS or _usable(k, v, DEFAULTS[k])}
    if isinstance(out.get("groups"), list):
        out["groups"] = [
            g for g in out["groups"]
            if isinstance(g, dict) and isinstance(g.get("query"), str)
            and isinstance(g.get("color", ""), str | None)
        ]  # fmt: skip
    return out


def migrate_settings(stored: dict[str, Any], palette: Sequence[str]) -> dict[str, Any]:
    """Saved settings from before ordered groups: a ``group_query`` of ``;``-separated
    queries coloured by the palette becomes that many groups with those colours."""
    out = dict(stored)
    queries = [q.strip() for q in str(out.get("group_query") or "").split(";") if q.strip()]
    if queries and not out.get("groups"):
        out["groups"] = [
            {"query": q, "color": palette[j % len(palette)]} for j, q in enumerate(queries)
        ]
        out["group_query"] = ""
        if out.get("color_by") == "query":
            out["color_by"] = "auto"
    return out


def settings_from_store(stored: Any, palette: Sequence[str], first_open: bool) -> dict[str, Any]:
    """The settings a vault's graph opens with: the defaults, overridden by the known keys of
    ``stored`` (already cleaned; migrated here). ``first_open`` (a vault with a store but no
    saved settings) opens the local graph: the global graph of a big vault says little until
    it has been arranged."""
    values = defaults()
    if isinstance(stored, dict):
        stored = migrate_settings(stored, palette)
        values.update({k: v for k, v in stored.items() if k in values})
    elif first_open:
        values["local"] = True
    return values
