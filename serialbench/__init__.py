"""serialbench: what it costs, in Python, to prepare an ML inference request.

The package is in layers whose imports go one way (README, "Architecture"; tests/test_layers.py):
core -> catalog -> measure -> results -> verdicts -> views -> commands. The public API for case
modules is `serialbench.case.Case` and `serialbench.inputs`.
"""
