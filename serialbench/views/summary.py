"""The answer at the end of a run: `report`'s timing tables, brief, for the benchmarks that just ran.

Each cell keeps the median time per op and its multiple of the memcpy floor (the run always times
the floor, registry.select(floor=True)), with the half-width of its interval where that is wider
than the precision the run asked for; the fastest of each format is starred where a test separates
it from the next, and a tie is shown where none does (views/timing.py); throughput and size stay in
`report`. The tables are `report`'s own, so the numbers are the same. When the file has a
memory companion (`python -m serialbench memory`), B/op and allocs/op follow as `go test -benchmem`
prints them (views/benchmem.py).
"""

from __future__ import annotations

import textwrap
from collections.abc import Collection

from serialbench.core.formatting import format_percent
from serialbench.results.files import ResultFile
from serialbench.views.answer import ROUNDTRIP_HEAD, answer_lines, roundtrip_answer
from serialbench.views.benchmem import benchmem
from serialbench.views.roundtrip_table import LEGEND, roundtrip_tables
from serialbench.views.table import render_text
from serialbench.views.timing import precision_asked, timing_tables

TERMINAL_WIDTH = 80


def summary(results: ResultFile, names: Collection[str], width: int = TERMINAL_WIDTH) -> str:
    """The tables of `names` in `results`, each cell on one line if every table fits in `width`
    columns, else the multiple under the time (narrower); '' when none of them is in the file."""
    selected = [result for result in results.results if result.name in names]
    if not selected:
        return ""
    for stacked in (False, True):
        text = "\n".join(render_text(table, legend=False)
                         for table in timing_tables(results, selected, brief=True, stacked=stacked))
        if max(len(line) for line in text.splitlines()) <= width:
            break
    target = precision_asked(results)
    trips = roundtrip_tables(selected)  # when a protocol's four halves ran: the whole inference
    if trips:
        text += "\n" + textwrap.fill(LEGEND, width, break_on_hyphens=False) + "\n\n" \
            + "\n".join(render_text(table, legend=False) for table in trips)
    legend = ("Median time per op" + (", under it" if stacked else " and") + " its multiple of "
              "baseline/tobytes, the memcpy floor (one copy of the same input at the same tier; 'no copy' for an "
              "op that copies no tensor)"
              + (", each with its interval's half-width (95%) where wider than the run's +-"
                 f"{format_percent(target)}" if target is not None else "")
              + "; * the fastest of its format, separated from the next by a paired test; = the fastest and the "
              "next, a tie; ~ two speeds, below the table. "
              f"Throughput and payload size: python -m serialbench report {results.path}")
    memory = benchmem(selected)  # with a memory companion file: B/op and allocs/op, as go test -benchmem
    answer = answer_lines(selected)
    trip_answer = roundtrip_answer(trips)
    if trip_answer:
        answer = (answer or [ROUNDTRIP_HEAD]) + trip_answer
    return ("\n".join(textwrap.wrap(legend, width, break_on_hyphens=False, break_long_words=False)) + "\n\n" + text
            + ("\n" + memory if memory else "") + ("\n" + "\n".join(answer) + "\n" if answer else ""))
