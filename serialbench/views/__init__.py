"""Layer 8, views: tables, summaries and plots of results and verdicts."""
