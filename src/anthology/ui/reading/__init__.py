"""Reading: the entry pane and its tabs, the page preview, the outline, reading settings."""

from anthology.ui.reading import kinds as kinds  # registers the kinds of document, lazily
