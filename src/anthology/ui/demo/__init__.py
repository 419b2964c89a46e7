"""The embedded demos' widgets (the maths is :mod:`anthology.demo`, Qt-free)."""
