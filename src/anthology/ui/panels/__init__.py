"""The panels around the reading: backlinks, files, search, tags, bookmarks, the quick
switcher, Find Path, problems."""
