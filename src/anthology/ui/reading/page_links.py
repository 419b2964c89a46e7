"""The entry page's links, as a layer of the pane (:class:`PageLinks`, under
:class:`~anthology.ui.reading.entry_pane.EntryPane`): what a click, a Ctrl+click, a
middle-click or the pointer on a link of the page does — an entry, a tag, a demo, a web
link (the system's browser; the status bar says where it leads), a vault file (a kind of
document's tab, or the system after the usual question), a code block's Copy, a
breadcrumb's folder, a fold — each turned into a signal the window wires."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from PySide6.QtCore import QPoint, Qt, QUrl, Signal
from PySide6.QtGui import QCursor, QDesktopServices, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QTextBrowser, QToolTip, QWidget

from anthology.ui.common.document import kind_for_file
from anthology.vault import Entry
from anthology.vault.attachments import describe, open_policy
from anthology.vault.render import RenderedEntry
from anthology.vault.render.safe_text import plain_text

_EXTERNAL = ("http", "https", "mailto")


def split_href(url: QUrl) -> tuple[str, str, str]:
    """(scheme, decoded path, decoded fragment) of an href as the renderer wrote it."""
    raw = bytes(url.toEncoded().data()).decode("ascii", "replace")
    scheme, sep, rest = raw.partition(":")
    if not sep or "/" in scheme or "#" in scheme:
        scheme, rest = "", raw
    path, _, frag = rest.partition("#")
    return scheme.lower(), unquote(path), unquote(frag)


def ask_attachment(parent: QWidget, rel_path: str, kind: str) -> bool:
    """Ask before handing a file the system might run; True means "Show in folder"."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Open attachment?")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(
        f"“{rel_path}” is {kind}. Opening it with the system could run it as a program, "
        "so Anthology does not open it. You can show it in its folder instead."
    )
    show = box.addButton("Show in folder", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is show


class PageLinks(QTextBrowser):
    """The links of a page shown in a text browser (see the module's doc)."""

    entryLinkActivated = Signal(str, str)  # entry id, heading ("" for none; "^id" for a block)
    entryLinkActivatedNewTab = Signal(str, str)  # the same, Ctrl+clicked or middle-clicked
    tagActivated = Signal(str)
    demoRequested = Signal(str)
    unresolvedLinkActivated = Signal(str)
    # a link to a vault file a kind of document opens (ui/common/document.py): kind, the
    # file's vault-relative path, whether in a new tab (Ctrl+click, middle click)
    documentRequested = Signal(str, str, bool)
    # a line for the window's status bar (the URL of a web link pointed at; "Copied";
    # a link nothing on this system opens), and for how long in ms (0: until replaced)
    statusMessage = Signal(str, int)
    folderActivated = Signal(str)  # a breadcrumb's folder clicked: its vault-relative path
    # the pointer came onto an entry link (id, heading or "^block", Ctrl held) or left it
    linkHovered = Signal(str, str, bool)
    linkLeft = Signal()

    # what the pane that uses this layer holds and answers
    _entry: Entry | None
    _rendered: RenderedEntry | None
    _vault_root: Path | None
    _hovered_link: tuple[str, str] | None  # the entry link under the pointer
    _showing_url: bool  # the status bar shows the web link pointed at
    _preview: Callable[[str], str | None] | None
    open_external: Callable[[QUrl], object]
    ask_attachment: Callable[[QWidget, str, str], bool]

    if TYPE_CHECKING:

        def point_at(self, entry_id: str) -> None: ...

        def toggle_fold(self, number: str) -> None: ...

        def show_query_page(self, where: str) -> None: ...

        def scroll_to_heading(self, text: str) -> bool: ...

        def _vault_path(self, rel: str) -> Path | None: ...

    def _links_start(self) -> None:
        """Wire the browser's link signals (the pane calls this once it is made)."""
        self.open_external = QDesktopServices.openUrl
        self.ask_attachment = ask_attachment
        self._hovered_link = None
        self._showing_url = False
        self.anchorClicked.connect(self._on_anchor_clicked)
        self.highlighted.connect(self._on_highlighted)

    def _on_anchor_clicked(self, url: QUrl) -> None:
        scheme, path, frag = split_href(url)
        if scheme == "entry":
            self.entryLinkActivated.emit(path, frag)
        elif scheme == "tag":
            self.tagActivated.emit(path)
        elif scheme == "demo":
            self.demoRequested.emit(path)
        elif scheme == "unresolved":
            self.unresolvedLinkActivated.emit(path)
        elif scheme in _EXTERNAL:
            if self.open_external(url) is False:  # no browser, no mail program…
                self.statusMessage.emit(
                    f"Nothing on this system opens {plain_text(url.toString(), 200)}", 10000
                )
        elif scheme == "copy":
            self.copy_code(path)
        elif scheme == "folder":
            self.folderActivated.emit(path)
        elif scheme == "vault":
            if (kind := kind_for_file(path)) is not None:  # "doc.pdf#page=3" keeps its page
                self.documentRequested.emit(kind.name, path + (f"#{frag}" if frag else ""), False)
            else:
                self.open_attachment(path)
        elif scheme == "fold":
            self.toggle_fold(path)
        elif scheme == "dataview-page":
            self.show_query_page(path)
        elif scheme == "" and frag and not self.scroll_to_heading(frag):
            self.scrollToAnchor(frag)
        # anything else (javascript:, file:, …) cannot come from the renderer: ignored

    # Ctrl+click and middle-click on an entry link: "open in a new tab", taken here, before
    # the browser's own handling (which would also follow the link, or select text).
    def _new_tab_link(self, event: QMouseEvent) -> tuple[str, str] | None:
        button = event.button()
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if button != Qt.MouseButton.MiddleButton and not (button == Qt.MouseButton.LeftButton
                                                          and ctrl):  # fmt: skip
            return None
        scheme, path, frag = split_href(QUrl(self.anchorAt(event.position().toPoint())))
        if scheme == "vault" and path and kind_for_file(path) is not None:
            return (f"vault:{path}", frag)  # a document a tab opens (a PDF, a canvas…)
        return (path, frag) if scheme == "entry" and path else None

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Ctrl pressed over a link: its preview at once, as a Ctrl+hover would
        if event.key() == Qt.Key.Key_Control and self._hovered_link is not None:
            self.linkHovered.emit(*self._hovered_link, True)
        super().keyPressEvent(event)

    def leaveEvent(self, event) -> None:
        if self._hovered_link is not None:  # out of the pane: off the link too
            self._hovered_link = None
            self.point_at("")
            self.linkLeft.emit()
        super().leaveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self._new_tab_link(event) is None:
            super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        link = self._new_tab_link(event)
        if link is None:
            super().mouseReleaseEvent(event)
        elif link[0].startswith("vault:"):
            rel = link[0][len("vault:") :]
            if (kind := kind_for_file(rel)) is not None:
                self.documentRequested.emit(
                    kind.name, rel + (f"#{link[1]}" if link[1] else ""), True
                )
        else:
            self.entryLinkActivatedNewTab.emit(*link)

    def open_attachment(self, rel: str) -> None:
        """Open an attachment the allow-list trusts; ask about anything else.

        The decision looks at the real file (after resolving symlinks), never at the link
        text; the question names its vault-relative path and offers only "Show in folder".
        """
        target = self._vault_path(rel)
        if target is None or not target.is_file() or self._vault_root is None:
            return
        shown = target.relative_to(self._vault_root).as_posix()
        if open_policy(target) == "open":
            self.open_external(QUrl.fromLocalFile(str(target)))
        elif self.ask_attachment(self, shown, describe(target)):
            self.open_external(QUrl.fromLocalFile(str(target.parent)))

    def copy_code(self, number: str) -> bool:
        """A code block's "Copy": its text (as written, not as highlighted) to the
        clipboard."""
        blocks = self._rendered.code_blocks if self._rendered is not None else []
        if not number.isdigit() or int(number) >= len(blocks):
            return False
        QApplication.clipboard().setText(blocks[int(number)])
        self.statusMessage.emit("Copied the code", 3000)
        return True

    def _on_highlighted(self, url: QUrl) -> None:
        scheme, path, frag = split_href(url)
        # a web link pointed at: where it leads, in the status bar (as a browser says it)
        if scheme in _EXTERNAL:
            self.statusMessage.emit(plain_text(url.toString(), 300), 0)
            self._showing_url = True
        elif self._showing_url:
            self.statusMessage.emit("", 0)
            self._showing_url = False
        if scheme == "entry" and path:
            self._hovered_link = (path, frag)
            self.point_at(path)
            ctrl = bool(QApplication.keyboardModifiers() & Qt.KeyboardModifier.ControlModifier)
            self.linkHovered.emit(path, frag, ctrl)
        elif self._hovered_link is not None:
            self._hovered_link = None
            self.point_at("")
            self.linkLeft.emit()
        if scheme != "entry" or self._preview is None or not path:
            QToolTip.hideText()
            return
        try:
            tip = self._preview(path)
        except Exception:  # a provider bug must not take the pane down
            tip = None
        if tip:
            QToolTip.showText(QCursor.pos() + QPoint(12, 16), tip, self.viewport())
        else:
            QToolTip.hideText()
