"""The public API of a case module: `from serialbench.case import Case` (docs/guides/own-cases.md).

The record itself lives in serialbench/catalog/case.py; this path stays stable for users' modules.
"""

from serialbench.catalog.case import Case, Op

__all__ = ["Case", "Op"]
