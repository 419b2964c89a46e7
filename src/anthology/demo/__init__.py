"""Interactive demos that entries embed; the maths lives here, free of Qt.

``DEMOS`` maps a demo's name to a one-line description; ``anthology.demo.cli`` adds the
``anthology demo`` subcommand and ``anthology.ui.demo_widget.create_demo_widget`` builds the
widget. Importing this package imports neither Qt nor torch (nor numpy).
"""

DEMOS: dict[str, str] = {
    "attention-scaling": (
        "Why attention logits are scaled by 1/√d_k: logit variance, softmax saturation and "
        "vanishing gradients against d_k for no scaling, 1/√d_k, 1/d_k and QK-norm"
    ),
}

__all__ = ["DEMOS"]
