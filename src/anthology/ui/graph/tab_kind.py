"""The graph tab and the timeline tab as kinds of document, registered without importing the
graph's widgets: pyqtgraph costs ~0.7 s to import, and the window loads it once the first
entry is shown (a saved graph tab is put back before that). See
:mod:`anthology.ui.graph.graph_tab` and :mod:`anthology.ui.graph.timeline_tab`."""

from __future__ import annotations

from anthology.ui.common.document import DocumentKind, DocumentView, OpenVault, register
from anthology.ui.graph.tab_refs import AUTO, GLOBAL, GRAPH, LOCAL, TIMELINE

__all__ = ["AUTO", "GLOBAL", "GRAPH", "LOCAL", "TIMELINE", "graph_exists"]


def _make() -> DocumentView:
    from anthology.ui.graph.graph_tab import GraphTab

    return GraphTab()


def _make_timeline() -> DocumentView:
    from anthology.ui.graph.timeline_tab import TimelineTab

    return TimelineTab()


def graph_exists(vault: OpenVault, ref: str) -> bool:
    """Whether a saved graph tab can be put back: the global graph always; a local one
    while its entry is there."""
    if ref == GLOBAL:
        return True
    return ref.startswith(LOCAL) and vault.lookup.resolve(ref[len(LOCAL) :], "") is not None


def opens(rel: str) -> bool:
    return False  # no file opens as the graph


register(DocumentKind(GRAPH, _make, graph_exists, "Graph", opens=opens))
register(DocumentKind(TIMELINE, _make_timeline, lambda vault, ref: True, "Timeline", opens=opens))
