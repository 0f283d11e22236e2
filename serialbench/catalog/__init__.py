"""Layer 2, catalog: what can be measured: inputs, cases, benchmarks, and what round-trips."""
