"""Layer 1, core: helpers and statistics that import nothing of the project: errors, the user's
words, number formatting, the text and Markdown table layouts, git facts, the statistics (stats/)."""
