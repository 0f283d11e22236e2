"""Numbers as every view prints them: times, bytes, counts, ratios, changes and durations.

One module, as pyperf has `_formatter.py`, so that the same number reads the same in `report`,
the run's summary, `profile`, `budget`, `compare`, `sweep` and `bisect`.
"""

from __future__ import annotations

TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9))


def format_time(seconds: float) -> str:
    """Three significant digits, trailing zeros kept so that a column of times lines up: 1.50 us."""
    if seconds <= 0:
        return "0"
    seconds = float(f"{seconds:.3g}")  # 999.7 us is 1.00 ms, 99.99 us is 100 us
    for unit, scale in TIME_UNITS[:-1]:
        if seconds >= scale:
            return f"{_three_digits(seconds / scale)} {unit}"
    return f"{_three_digits(seconds / 1e-9)} ns"


def format_tick(seconds: float) -> str:
    """A plot's axis label at a round value: 1 us, 20 ms (no trailing zeros, which ticks do not need)."""
    for unit, scale in TIME_UNITS:
        if seconds >= scale * 0.999:
            return f"{seconds / scale:g} {unit}"
    return f"{seconds:g} s"


def format_bytes(count: float) -> str:
    count = float(f"{count:.3g}")
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if count >= scale:
            return f"{_three_digits(count / scale)} {unit}"
    return f"{int(count)} B"


def format_count(count: float) -> str:
    """A count in a narrow cell: 9, 3,000, 30.0K, 3.00M."""
    if count < 9999.5:
        return f"{count:,.0f}"
    return format_bytes(count).replace(" KB", "K").replace(" MB", "M").replace(" GB", "G")


def format_ratio(ratio: float) -> str:
    """A multiple: 0.25x, 2.3x, 259x, 1,234x."""
    if ratio < 0.01:
        return "<0.01x"
    if ratio >= 10:
        return f"{ratio:,.0f}x"
    return f"{ratio:.1f}x" if ratio >= 1 else f"{ratio:.2f}x"


def format_throughput(mb_s: float) -> str:
    return f"{mb_s:,.0f} MB/s" if mb_s >= 99.5 else f"{_three_digits(float(f'{mb_s:.3g}'))} MB/s"


def format_change(fraction: float) -> str:
    """A relative change, NEW / BASE - 1: +12.5%, -3.0%; -100% at or below -1, +inf for infinity."""
    if fraction == float("inf"):
        return "+inf"
    if fraction <= -1:
        return "-100%"
    return f"{fraction * 100:+.1f}%"


def format_interval(change: float, low: float, high: float) -> str:
    """A change with its interval, '-51.0% [-52.1%, -49.8%]'; the change alone when the rounds could give
    no interval (low at or below -1)."""
    interval = f" [{format_change(low)}, {format_change(high)}]" if low > -1 else ""
    return format_change(change) + interval


def format_percent(fraction: float) -> str:
    """A share or a spread, unsigned: 2.5%, 13%."""
    percent = fraction * 100
    return f"{percent:.1f}%" if percent < 10 else f"{percent:.0f}%"


def format_machine(cpu: object = None, cpus: object = None, host: object = None, python: object = None) -> str:
    """Where a run was timed, in one phrase: 'host: Intel(R) Xeon(R), 2 CPUs, Python 3.12.1'; the parts
    that are known ('unknown machine' when neither the CPU nor the count is)."""
    if not cpu and not cpus and not host:
        return "unknown machine"
    text = f"{cpu or 'unknown CPU'}, {cpus or '?'} CPUs"
    return (f"{host}: " if host else "") + text + (f", Python {python}" if python else "")


def format_duration(seconds: float) -> str:
    """Wall time of a run: 40 s, 2.5 min."""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _three_digits(value: float) -> str:
    value = float(f"{value:.3g}")  # 1e-7 / 1e-9 is 99.99999999999999, not "100.0"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def last_line(text: str | None) -> str:
    """The last non-blank line of a program's output: what a failing subprocess says went wrong."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""
