"""Layer 9, commands: one module per command of `python -m serialbench`, their options in options.py."""
