"""Reading settings: the body's size and family and the readable line width, app-wide.

Kept in QSettings (``reading/…``: they are the reader's, not a vault's), changed from the
View menu, the keys (Ctrl+= / Ctrl+- / Ctrl+0) and the preferences dialog (Ctrl+,), and
applied by the window to every tab's pane at once (:meth:`EntryPane.set_reading`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QSpinBox,
    QWidget,
)

from anthology.ui.reading.entry_pane import READING_WIDTH
from anthology.vault.render.reading import BASE_SIZE, MAX_SIZE, MIN_SIZE, ReadingStyle

MIN_WIDTH, MAX_WIDTH = 400, 2000  # px of the readable column
STEP = 1.0  # pt per Ctrl+= / Ctrl+-


def _float(value: object, default: float) -> float:
    try:
        return float(str(value))
    except (TypeError, ValueError):
        return default


def _bool(value: object, default: bool) -> bool:
    if value is None:
        return default
    return str(value).lower() in ("1", "true", "yes")


@dataclass(frozen=True)
class ReadingSettings:
    font_size: float = BASE_SIZE
    serif: bool = False
    readable: bool = True
    width: int = READING_WIDTH

    @property
    def style(self) -> ReadingStyle:
        return ReadingStyle(self.font_size, self.serif)

    def clamped(self) -> ReadingSettings:
        return ReadingSettings(
            min(MAX_SIZE, max(MIN_SIZE, self.font_size)),
            self.serif,
            self.readable,
            int(min(MAX_WIDTH, max(MIN_WIDTH, self.width))),
        )

    def bigger(self, steps: int) -> ReadingSettings:
        return replace(self, font_size=self.font_size + steps * STEP).clamped()

    @classmethod
    def load(cls, settings: QSettings) -> ReadingSettings:
        """What ``settings`` hold; the defaults for anything missing or unreadable."""
        d = cls()
        return cls(
            _float(settings.value("reading/fontSize"), d.font_size),
            _bool(settings.value("reading/serif"), d.serif),
            _bool(settings.value("reading/readableWidth"), d.readable),
            int(_float(settings.value("reading/width"), d.width)),
        ).clamped()

    def save(self, settings: QSettings) -> None:
        settings.setValue("reading/fontSize", self.font_size)
        settings.setValue("reading/serif", self.serif)
        settings.setValue("reading/readableWidth", self.readable)
        settings.setValue("reading/width", self.width)


class PreferencesDialog(QDialog):
    """Font size, body font, readable line width; each change is applied at once
    (``changed``), as a reader tries them on the page behind. (The boxes are ``*_box``:
    ``self.size`` and ``self.width`` hid QWidget's own ``size()`` and ``width()``.)"""

    changed = Signal(object)  # ReadingSettings

    def __init__(self, current: ReadingSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("preferencesDialog")
        self.setWindowTitle("Preferences")
        form = QFormLayout(self)
        self.size_box = QDoubleSpinBox()
        self.size_box.setRange(MIN_SIZE, MAX_SIZE)
        self.size_box.setSingleStep(STEP)
        self.size_box.setDecimals(1)
        self.size_box.setSuffix(" pt")
        self.family_box = QComboBox()
        self.family_box.addItems(["Sans serif", "Serif"])
        self.readable_box = QCheckBox("Readable line width (a centred column)")
        self.width_box = QSpinBox()
        self.width_box.setRange(MIN_WIDTH, MAX_WIDTH)
        self.width_box.setSingleStep(20)
        self.width_box.setSuffix(" px")
        form.addRow("Font size", self.size_box)
        form.addRow("Body font", self.family_box)
        form.addRow(self.readable_box)
        form.addRow("Line width", self.width_box)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.set_settings(current)
        self.size_box.valueChanged.connect(self._emit)
        self.family_box.currentIndexChanged.connect(self._emit)
        self.readable_box.toggled.connect(self._emit)
        self.width_box.valueChanged.connect(self._emit)

    def set_settings(self, s: ReadingSettings) -> None:
        """Show ``s`` (changed elsewhere, e.g. by Ctrl+=) without emitting."""
        for w in (self.size_box, self.family_box, self.readable_box, self.width_box):
            w.blockSignals(True)
        self.size_box.setValue(s.font_size)
        self.family_box.setCurrentIndex(1 if s.serif else 0)
        self.readable_box.setChecked(s.readable)
        self.width_box.setValue(s.width)
        self.width_box.setEnabled(s.readable)
        for w in (self.size_box, self.family_box, self.readable_box, self.width_box):
            w.blockSignals(False)

    def settings(self) -> ReadingSettings:
        return ReadingSettings(
            self.size_box.value(),
            self.family_box.currentIndex() == 1,
            self.readable_box.isChecked(),
            self.width_box.value(),
        ).clamped()

    def _emit(self, *_args: object) -> None:
        self.width_box.setEnabled(self.readable_box.isChecked())
        self.changed.emit(self.settings())
