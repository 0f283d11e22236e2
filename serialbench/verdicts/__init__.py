"""Layer 7, verdicts: from timings (a session, or two result files) to a verdict per benchmark."""
