"""The reader's state of one open vault, without Qt: what the window's panels and tabs show
and keep (backlink groups and rows, page keys and the kept pages, …), tested without a
display. The widgets in :mod:`anthology.ui` only draw what these say."""
