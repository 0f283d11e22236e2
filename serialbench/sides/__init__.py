"""Layer 4, sides: what to time in: revisions, overlays, releases, commits, interpreters; building and
checking them before a session (beside the engine: measure/ imports a Side, the sides nothing of measure/)."""
