"""GUI tests run offscreen: no display needed (tests/conftest.py sets it too)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import gc
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from anthology.ui.graph.graph_view import GraphView


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    """The window's Qt settings in a temp INI file: a second window on it is a restart."""
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture(autouse=True)
def _collect_qt_garbage():
    """Collect each test's garbage right after it, at a safe point. Left to run whenever it
    likes, the cycle collector once destroyed an old QObject while Qt held its connection
    lock (inside pyqtgraph's disconnect in ViewBox.addItem): ~QObject waited on that same lock,
    and the suite hung (seen in test_graph_view, 2026-12-03)."""
    yield
    gc.collect()


@pytest.fixture
def make_view(qtbot):
    """``make(width, height)`` opens a real GraphView; each is shut down after the test,
    its layout thread stopped."""
    views: list[GraphView] = []

    def make(width: int = 800, height: int = 600) -> GraphView:
        v = GraphView()
        qtbot.addWidget(v)
        v.resize(width, height)
        v.show()
        qtbot.waitExposed(v)
        views.append(v)
        return v

    yield make
    for v in views:
        v.shutdown()
        worker = v.worker()
        assert worker is None or not worker.isRunning()
