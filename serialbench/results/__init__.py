"""Layer 4, results: result files: where they go, how they are read and written."""
