"""Layer 3, measure: taking numbers: timed loops, workers, sides, sessions, counts."""
