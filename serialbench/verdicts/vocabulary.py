"""A verdict as it leaves the program: its words and its record.

The words are the product's: compare, sweep, bisect, calibrate, the two-file report and the site
say the same six, and the JSON files carry them; a word's index in WORDS is its code in the judge's
arrays (verdicts/judge.py). The statistics behind them are core/stats/evidence.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

FASTER, SLOWER, NO_CHANGE, TOO_NOISY, TWO_SPEEDS = "faster", "slower", "no change", "too noisy to tell", "two speeds"
AT_THRESHOLD = "at the threshold"
WORDS = (SLOWER, FASTER, NO_CHANGE, TOO_NOISY, TWO_SPEEDS, AT_THRESHOLD)  # a word's index is its code (judge.py)
ORDER = (SLOWER, FASTER, NO_CHANGE, AT_THRESHOLD, TOO_NOISY, TWO_SPEEDS)  # as the legend and the counts list them
MIN_EFFECT_HELP = ("a change smaller than this is never 'slower' or 'faster': a flag needs the estimate to reach "
                   "it and the whole interval to clear half of it, so that a change of half of it or less is "
                   "flagged in at most 5%% of tables; 'no change' means the interval lies within plus or minus it")


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """HEAD against BASE. Changes are fractions: +0.05 means HEAD takes 5% longer. Built by keyword
    only: a field added here is one keyword where a verdict is made, and one column where it is shown
    (views/verdict_table.py).

    [low, high] is the interval at `level`, the confidence the verdict used, so that the legend's rule
    explains the word from the row alone. p_value: the p behind the word (slower/faster/too noisy: the
    sequential p of the change test, before the correction across rows, to compare with the level;
    no change: TOST's p over its look's share)."""

    change: float
    low: float
    high: float
    level: float
    detectable: float | None  # the change flagged 4 times in 5 alone in the table; None: none could be
    word: str
    rounds: int  # the rounds of the look whose evidence the row shows
    p_value: float
    modes: tuple | None = None  # two speeds: (BASE's Modes or None, HEAD's Modes or None)
