"""Reading: the entry pane and its tabs, the page preview, the outline, reading settings."""

from anthology.ui.reading import drawing_view as drawing_view  # registers the drawing tab
from anthology.ui.reading import pdf_view as _pdf_view  # noqa: F401 - registers the PDF kind
