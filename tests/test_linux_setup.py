"""The check made before the window starts on Linux: missing xcb libraries are named, with
the command that installs them, instead of Qt's abort."""

from __future__ import annotations

import pytest

from anthology import cli, linux_setup
from anthology.linux_setup import setup_problem, will_use_xcb

X11 = {"DISPLAY": ":0"}


def without(*missing: str):
    return lambda soname: soname not in missing


def test_a_missing_xcb_cursor_is_named_with_its_install_command() -> None:
    line = setup_problem(X11, without("libxcb-cursor.so.0"), platform="linux")
    assert line is not None and "\n" not in line
    assert "libxcb-cursor0" in line
    assert "sudo apt-get install libxcb-cursor0" in line
    assert "libxcb-icccm4" not in line  # only what is missing


def test_nothing_is_said_when_everything_loads_or_xcb_is_not_used() -> None:
    assert setup_problem(X11, without(), platform="linux") is None
    everything_missing = without(*linux_setup.XCB_LIBRARIES)
    offscreen = {**X11, "QT_QPA_PLATFORM": "offscreen"}
    assert setup_problem(offscreen, everything_missing, platform="linux") is None
    assert setup_problem(X11, everything_missing, platform="darwin") is None
    assert will_use_xcb({**X11, "QT_QPA_PLATFORM": "xcb"}, "linux")
    assert not will_use_xcb({**X11, "WAYLAND_DISPLAY": "wayland-0"}, "linux")


def test_the_gui_command_stops_with_the_message(monkeypatch, capsys) -> None:
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setattr(linux_setup.sys, "platform", "linux")
    monkeypatch.setattr(linux_setup, "_loads", without("libxcb-cursor.so.0", "libxcb-xkb.so.1"))
    status = cli.main([])
    err = capsys.readouterr().err
    assert status != 0
    assert "sudo apt-get install libxcb-cursor0 libxcb-xkb1" in err


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="Linux only")
def test_the_real_loader_finds_libc() -> None:
    assert linux_setup._loads("libc.so.6")


def test_only_what_this_qt_links_to_is_asked_for(tmp_path) -> None:
    """Qt 6's xcb plugin no longer links libxcb-xinerama: a machine without it runs the
    app, and the check must not refuse to start (it did, in the real window)."""
    plugin = tmp_path / "libqxcb.so"
    plugin.write_bytes(b"\x7fELF...libxcb-cursor.so.0\x00libxcb-xkb.so.1\x00libc.so.6\x00")
    assert linux_setup.needed_sonames([plugin]) == ["libxcb-cursor.so.0", "libxcb-xkb.so.1"]
    assert linux_setup.needed_sonames([tmp_path / "gone.so"]) == list(linux_setup.XCB_LIBRARIES)
    real = linux_setup.needed_sonames()
    assert "libxcb-cursor.so.0" in real  # what Qt 6.5+ needs and bare systems lack
    assert linux_setup.missing_packages(without("libxcb-xinerama.so.0", "libxcb-cursor.so.0"),
                                        ["libxcb-cursor.so.0"]) == ["libxcb-cursor0"]  # fmt: skip


def test_no_display_is_one_line_that_says_what_runs_without_one() -> None:
    """An SSH session or a container: Qt would abort (SIGABRT) blaming xcb libraries that
    are installed; instead one line names the real cause and the headless commands."""
    everything_loads = without()
    for env in ({}, {"QT_QPA_PLATFORM": "xcb"}, {"QT_QPA_PLATFORM": "wayland"}):
        line = setup_problem(env, everything_loads, platform="linux")
        assert line is not None and "\n" not in line
        assert "no display" in line and "screenshot" in line
    for env in ({"QT_QPA_PLATFORM": "offscreen"}, {"WAYLAND_DISPLAY": "wayland-0"}, X11):
        assert setup_problem(env, everything_loads, platform="linux") is None
    assert setup_problem({}, everything_loads, platform="darwin") is None  # macOS: no DISPLAY


def test_the_real_command_without_a_display_exits_with_one_line(tmp_path) -> None:
    """The installed `anthology` with no DISPLAY: exit 3, one line, no signal, no window."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}  # fmt: skip
    env["HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-m", "anthology"], env=env, capture_output=True,
                         text=True, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
    if not sys.platform.startswith("linux"):
        pytest.skip("a display is a Linux question here")
    assert out.returncode == 3, out.stderr
    assert out.stderr.count("\n") == 1 and "no display" in out.stderr
    assert "Traceback" not in out.stderr
