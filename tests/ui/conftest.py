"""GUI tests run offscreen: no display needed (tests/conftest.py sets it too)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
