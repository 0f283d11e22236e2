"""serialbench's built-in case modules, installed as `serialbench.cases`: one per wire format
(see serialbench/catalog/case.py)."""
