"""The public API of a case module: `from serialbench.case import Case` (README, "Your own serializer").

The record itself lives in serialbench/catalog/case.py; this path stays stable for users' modules.
"""

from serialbench.catalog.case import Case, Op

__all__ = ["Case", "Op"]
