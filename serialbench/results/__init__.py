"""Layer 6, results: result files: where they go, how they are read and written."""
