"""The Relations dock: the entry's typed relations as a ladder (what it names under each of
its keys, "Introduced by → X"; what names it, "← Cited as “source” by Y, Z") and each
relation followed as a chain to its end (:meth:`anthology.vault.VaultIndex.ladder`, see
:mod:`anthology.vault.ladder`). A click opens an entry, Ctrl+click or a middle-click opens
it in a new tab. Beside the graph, in a dock of its own rather than in the backlinks
panel: the backlinks list one direction a page at a time, the ladder both directions and
the chains at a glance.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QTreeWidgetItem, QWidget

from anthology.ui.panels.entry_tree_panel import ROLE_ID, EntryTreePanel, children, top_items
from anthology.vault import EntryRef, display_labels
from anthology.vault.ladder import Chain, Ladder, Rung
from anthology.vault.render.safe_text import plain_text, tooltip_html

CHAINS = "Chains"
NO_RELATIONS = (
    "No typed relations: no front-matter key of this entry links to another entry, "
    "and no other entry's key links to it."
)


class LadderPanel(EntryTreePanel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Relations", "ladderPanel", parent)
        self.tree.setIndentation(14)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.shown: Ladder | None = None

    def show_ladder(self, ladder: Ladder | None, problem: str = "") -> None:
        """Show ``ladder`` (None: no entry, or ``problem`` says why it could not be read)."""
        self.shown = ladder
        self.tree.clear()
        if ladder is None:
            self.title.setText("Relations")
            self._say(problem)
            return
        self.title.setText(f"Relations of {plain_text(ladder.entry_id, 120)}")
        for rung in ladder.rungs:
            self._rung(rung)
        if ladder.chains:
            group = self._group(CHAINS)
            for chain in ladder.chains:
                self._chain(group, chain)
        self._say("" if ladder.rungs else NO_RELATIONS)

    def clear(self) -> None:
        self.show_ladder(None)

    def _group(self, text: str, parent: QTreeWidgetItem | None = None) -> QTreeWidgetItem:
        item = QTreeWidgetItem([plain_text(text, 300)])
        font = QFont(self.tree.font())
        font.setBold(parent is None)
        item.setFont(0, font)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        if parent is None:
            self.tree.addTopLevelItem(item)
        else:
            parent.addChild(item)
        item.setExpanded(True)
        return item

    def _entry(self, parent: QTreeWidgetItem, ref: EntryRef, label: str, prefix: str = "") -> None:
        item = QTreeWidgetItem([prefix + plain_text(label, 300)])
        item.setData(0, ROLE_ID, ref.id)
        item.setToolTip(0, tooltip_html(f"{ref.label}\n{ref.path}"))
        parent.addChild(item)

    def _muted(self, parent: QTreeWidgetItem, text: str) -> None:
        item = QTreeWidgetItem([text])
        item.setFlags(Qt.ItemFlag.NoItemFlags)  # drawn disabled: muted, not clickable
        parent.addChild(item)

    def _rung(self, rung: Rung) -> None:
        group = self._group(f"{rung.label} ({rung.total:,})")
        refs = [r.other for r in rung.items if r.other is not None]
        labels = iter(display_labels(refs))
        for rel in rung.items:
            if rel.other is None:  # a link to no entry: said as written
                self._muted(group, f"{plain_text(rel.text, 200)} (no such entry)")
            else:
                self._entry(group, rel.other, next(labels))
        if rung.total > len(rung.items):
            more = rung.total - len(rung.items)
            self._muted(group, f"… and {more:,} more, listed under Backlinks")

    def _chain(self, chains: QTreeWidgetItem, chain: Chain) -> None:
        group = self._group(f"{chain.label} … ({len(chain.steps)} steps)", chains)
        for n, (ref, label) in enumerate(
            zip(chain.steps, display_labels(list(chain.steps)), strict=True), start=1
        ):
            self._entry(group, ref, label, f"{n}. ")
        if chain.loops_to is not None:
            self._entry(group, chain.loops_to, f"↺ {chain.ends}")
        else:
            self._muted(group, f"■ {chain.ends}")

    # What a test or a screen reader asks.
    def lines(self) -> list[str]:
        """Every row as shown, indented by depth (two spaces a level)."""
        out: list[str] = []

        def walk(item: QTreeWidgetItem, depth: int) -> None:
            out.append("  " * depth + item.text(0))
            for child in children(item):
                walk(child, depth + 1)

        for item in top_items(self.tree):
            walk(item, 0)
        return out

    def item_for(self, entry_id: str) -> QTreeWidgetItem | None:
        found = self.tree.findItems("", Qt.MatchFlag.MatchContains | Qt.MatchFlag.MatchRecursive)
        return next((i for i in found if i.data(0, ROLE_ID) == entry_id), None)
