"""Where one vault's graph settings and camera persist: :class:`GraphStore`.

The settings (:mod:`anthology.graph.settings`) and where the view looked, per mode, live
in the vault's user state (a :class:`~anthology.user_state.UserState`, handed over by the
window) under :data:`~anthology.user_state.GRAPH_VIEW` and
:data:`~anthology.user_state.GRAPH_CAMERA`; without a store they last as long as the view.
Saves are gathered: a drag of a slider or a pan writes once, 400 ms after it stops.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer

from anthology.graph.settings import clean_settings, settings_from_store
from anthology.user_state import GRAPH_CAMERA, GRAPH_VIEW, clean_camera

__all__ = ["GraphStore", "SettingsStore"]

SAVE_MS = 400


class SettingsStore(Protocol):
    """Where the view's settings persist (a vault's :class:`~anthology.user_state.UserState`)."""

    def get(
        self, key: str, default: Any = None, *, clean: Callable[[Any], Any] | None = None
    ) -> Any: ...

    def put(self, key: str, value: Any) -> None: ...


class GraphStore:
    """One vault's store, its camera views per mode, and the gathered save.

    ``settings()`` gives the settings to write, ``camera_state()`` where the view looks now
    (None: nothing to keep) and ``mode()`` the mode it looks at; both are the view's."""

    def __init__(
        self,
        parent: QObject,
        settings: Callable[[], dict[str, Any]],
        camera_state: Callable[[], Any],
        mode: Callable[[], str],
    ) -> None:
        self._settings, self._camera_state, self._mode = settings, camera_state, mode
        self.store: SettingsStore | None = None
        self.vault_key: str | None = None
        # where the view looked, per mode ("global" / "local"); the first rebuild after a
        # vault opens shows the stored view instead of a fit
        self.views: dict[str, Any] = {}
        self.restore_pending = False
        self.shut = False
        self.timer = QTimer(parent)
        self.timer.setSingleShot(True)
        self.timer.setInterval(SAVE_MS)
        self.timer.timeout.connect(self.save)

    def open(self, vault_key: str, store: SettingsStore | None, palette: Sequence[str]) -> dict:
        """Another vault: the old one's settings saved, the new one's read (the settings it
        opens with are returned) and its camera views waiting for the first rebuild."""
        if self.vault_key is not None:
            self.save()
        self.vault_key, self.store = vault_key, store
        stored = store.get(GRAPH_VIEW, clean=clean_settings) if store is not None else None
        values = settings_from_store(stored, palette, first_open=store is not None)
        cams = store.get(GRAPH_CAMERA, clean=clean_camera) if store is not None else None
        self.views = dict(cams) if isinstance(cams, dict) else {}
        self.restore_pending = True
        return values

    def schedule(self) -> None:
        if not self.shut:
            self.timer.start()

    def save(self) -> None:
        if self.vault_key is not None and self.store is not None:
            self.store.put(GRAPH_VIEW, self._settings())
            self.remember()
            self.store.put(GRAPH_CAMERA, dict(self.views))

    def detach(self) -> None:
        """Save into the store and let go of it (it is being closed)."""
        self.timer.stop()
        self.save()
        self.store = None

    def close(self) -> None:
        """The view shuts: the last save, none after."""
        with contextlib.suppress(RuntimeError):  # the C++ timer may be gone at exit
            self.timer.stop()
        if self.vault_key is not None:
            self.save()
        self.shut = True

    def remember(self) -> None:
        """Keep where the current mode looks (not while a restore is still to come, nor
        when ``camera_state()`` says None: an empty graph's is not a view the reader chose)."""
        if self.restore_pending:
            return
        state = self._camera_state()
        if state is not None:
            self.views[self._mode()] = state

    def take_restore(self, ready: bool) -> Any:
        """The stored view of the current mode, once, when the first rebuild is ``ready``
        for it (None: fit instead)."""
        if not (self.restore_pending and ready):
            return None
        self.restore_pending = False
        return self.views.get(self._mode())
