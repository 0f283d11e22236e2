"""Layer 1, core: helpers and statistics that import nothing of the project."""
