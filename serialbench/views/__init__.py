"""Layer 6, views: tables, summaries and plots of results and verdicts."""
