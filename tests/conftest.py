"""Tests import the built-in cases as `serialbench.cases`, from this checkout's `cases/` folder."""

from serialbench.catalog.discovery import import_builtin_cases

import_builtin_cases()
