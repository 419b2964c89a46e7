"""Reading: the entry pane and its tabs, the page preview, the outline, reading settings."""
