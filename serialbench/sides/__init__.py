"""Building and checking the sides of a session: revisions, overlays, releases, commits, interpreters."""
