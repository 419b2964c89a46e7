"""Before the window starts on Linux: are the X11 libraries Qt's xcb platform needs there?

PySide6's wheel carries Qt but not the system's libxcb-* libraries its ``xcb`` plugin loads;
on a bare box (a fresh Debian or Ubuntu, a container) the app otherwise aborts with Qt's
"Could not load the Qt platform plugin "xcb" … This application failed to start". We try
to load each library the plugin needs (``dlopen``, as the plugin would) only when the
platform will be xcb and a display is set, and name the packages and the command that
installs them, in one line. Qt-free: nothing of Qt is loaded to find out.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

# soname → its Debian/Ubuntu package: what libqxcb.so links to beyond a desktop's basics
XCB_LIBRARIES: dict[str, str] = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
}


def will_use_xcb(env: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Qt will pick its xcb platform: Linux, an X display, and no other platform asked for
    (nor a Wayland session, which Qt prefers when it has one)."""
    if not platform.startswith("linux") or not env.get("DISPLAY"):
        return False
    asked = env.get("QT_QPA_PLATFORM", "").strip().lower()
    if asked:
        return asked.split(";")[0].startswith("xcb")
    return not env.get("WAYLAND_DISPLAY")


# Platforms that draw into no window on a screen: they need no display.
_HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc", "vkkhrdisplay", "linuxfb", "eglfs")


def display_problem(env: Mapping[str, str], platform: str = sys.platform) -> str | None:
    """One line when there is no screen for a window (an SSH session, a container, a CI
    job): on Linux, neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` is set and no headless Qt
    platform is asked for. Qt would otherwise abort (SIGABRT) saying the xcb plugin could
    not be loaded, naming libraries that are in fact installed."""
    if not platform.startswith("linux"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    asked = env.get("QT_QPA_PLATFORM", "").strip().lower().split(";")[0].split(":")[0]
    if asked in _HEADLESS_PLATFORMS:
        return None
    return (
        "anthology: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); "
        "the commands index, check, search, show, export and screenshot run without one "
        "(anthology --help)"
    )


def _loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def _qt_xcb_binaries() -> list[Path]:
    """The installed PySide6's xcb plugin and the Qt library behind it, found without
    importing PySide6 (importing it loads Qt)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return []
    qt = Path(next(iter(spec.submodule_search_locations))) / "Qt"
    found = [qt / "plugins" / "platforms" / "libqxcb.so"]
    found += sorted((qt / "lib").glob("libQt6XcbQpa.so*"))[:1]
    return [f for f in found if f.is_file()]


def needed_sonames(binaries: list[Path] | None = None) -> list[str]:
    """The libraries of :data:`XCB_LIBRARIES` that this Qt's xcb plugin links to: their
    names stand in its dynamic string table. Qt 6 dropped xinerama, so a fixed list named
    a package the app did not need and refused to start without it. Unreadable binaries:
    the whole list."""
    binaries = _qt_xcb_binaries() if binaries is None else binaries
    blob = b""
    for f in binaries:
        try:
            blob += f.read_bytes()
        except OSError:
            return list(XCB_LIBRARIES)
    if not blob:
        return list(XCB_LIBRARIES)
    return [soname for soname in XCB_LIBRARIES if soname.encode() in blob]


def missing_packages(
    loads: Callable[[str], bool] = _loads, needed: list[str] | None = None
) -> list[str]:
    """The packages of the needed xcb libraries that cannot be loaded, in a stable order."""
    needed = needed_sonames() if needed is None else needed
    return [XCB_LIBRARIES[s] for s in XCB_LIBRARIES if s in needed and not loads(s)]


def setup_problem(
    env: Mapping[str, str] | None = None,
    loads: Callable[[str], bool] | None = None,
    platform: str | None = None,
) -> str | None:
    """One line saying why no window can open here (no display; what to install), or None
    when nothing is missing (or xcb is not the platform to be used)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if no_display := display_problem(env, platform):
        return no_display
    if not will_use_xcb(env, platform):
        return None
    missing = missing_packages(loads or _loads)
    if not missing:
        return None
    names = " ".join(missing)
    return (
        f"anthology: Qt's X11 (xcb) platform needs libraries this system lacks ({names}); "
        f"install them with: sudo apt-get install {names}"
    )
