"""Layer 5, measure: taking numbers: the session's data, the plan rule, the engine, the counts."""
