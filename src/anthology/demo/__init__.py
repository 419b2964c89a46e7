"""Interactive demos that entries embed; the maths lives here, free of Qt.

``DEMOS`` is the one registry of them, read by the renderer (a ```` ```demo ```` block names
one: its button and description), by ``anthology demo`` (:mod:`anthology.demo.cli`) and by
the window (its View menu, and the dock a demo opens in). Each names its widget as
``"module:Class"``, imported only when the demo is opened
(:func:`anthology.ui.demo.demo_widget.create_demo_widget`), so importing this package imports
neither Qt nor torch (nor numpy).

A demo's widget class is a :class:`~anthology.ui.demo.demo_widget.DemoWidget`: it takes
``parent`` and has ``set_theme("light" | "dark")`` (the window connects it to its
``themeChanged``), ``shutdown()`` (no thread outlives it) and an ``entryLinkActivated(str)``
signal for the entries it links to.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Demo:
    name: str  # as a ```demo block and `anthology demo NAME` spell it
    title: str  # the window's menu item
    description: str  # one line under the entry's "Open the demo" button
    widget: str  # "module:Class" of its Qt widget
    # a Qt-free module with ``figure_svg(theme) -> str`` and ``figure_caption() -> str``: the
    # demo's result as a still figure, shown in the entry above its "Open the demo" control
    figure: str = ""


DEMOS: dict[str, Demo] = {
    demo.name: demo
    for demo in (
        Demo(
            name="attention-scaling",
            title="Attention-Scaling Demo",
            description=(
                "Watch the variance of q·k grow with dₖ, and the softmax saturate unless the "
                "scores are scaled by 1/√dₖ."
            ),
            widget="anthology.ui.demo.demo_widget:AttentionScalingDemo",
            figure="anthology.demo.figure",
        ),
    )
}

__all__ = ["DEMOS", "Demo"]
