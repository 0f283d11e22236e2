"""serialbench's built-in case modules: one per wire format (see serialbench/case.py)."""
