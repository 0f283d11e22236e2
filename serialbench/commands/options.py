"""The options that several commands share: the selection, the overlays, the session, the minimum effect.

The same option means the same thing everywhere, declared once here (as asv's common_args.py);
the parser itself and the output files are the command contract's (commands/contract.py). The
session options import the statistics (scipy) and the session's data when used: `list` pays for
neither.
"""

from __future__ import annotations

import argparse
import importlib.util
import signal
from collections.abc import Sequence

from serialbench.core.errors import UsageError
from serialbench.core.parsing import parse_percent
from serialbench.verdicts import vocabulary

PAYLOAD_HELP = ("your own request (repeatable): NAME:DTYPE[D,...] tensors separated by commas, e.g. "
                "input_ids:int64[32,512],attention_mask:int64[32,512] (deterministic values), a .npz or .npy "
                "file, or a directory of files (a BYTES batch); NAME=... names it. Instead of the default "
                "inputs; its INPUT is a word from the spec or file name, its TIER its size in bytes")


def whole(least: int = 1, why: str = ""):
    """An argparse type: a whole number of `least` or more (`why` says why that many)."""
    return _checked(int, lambda value: value >= least, f"{least} or more", why)


def positive(unit: str):
    """An argparse type: a positive number of `unit` (seconds, minutes)."""
    return _checked(float, lambda value: value > 0, f"a positive number of {unit}")


def _checked(kind, accepts, accepted: str, why: str = ""):
    """A type whose refusal the Parser makes the one-line usage error, exit status 2: argparse names the
    option, this says what is accepted and what was given, before any work."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not accepts(value):
            raise argparse.ArgumentTypeError(f"give {accepted}, not {text}" + (f" ({why})" if why else ""))
        return value

    return parse


def require_extra(option: str, module: str, extra: str) -> None:
    """One line, before any work, when an option needs a module that only an extra installs."""
    if importlib.util.find_spec(module) is None:
        raise UsageError(f"{option}: {module} is not installed; pip install 'serialbench[{extra}]' brings it")


def add_filter_arguments(cli, cases: bool = True, payloads: bool = True) -> None:
    """The selection: -b GLOB, --tier, --input (and --payload, --cases DIR where the command takes them)."""
    cli.add_argument("-b", "--benchmark", dest="patterns", action="append", default=[], metavar="GLOB",
                     help="benchmarks whose FORMAT/IMPL/INPUT/TIER name matches (repeatable); "
                          "'triton-binary/*' covers every input and tier")
    cli.add_argument("--tier", metavar="T[,T]", help="tiers: 1K, 10K, 100K, 1M (default: all)")
    cli.add_argument("--input", metavar="I[,I]", help="input kinds (default: float32, png, int32x3)")
    if payloads:
        add_payload_argument(cli)
    if cases:
        add_cases_argument(cli)


def add_cases_argument(cli, help: str = "also load case modules from DIR (repeatable)") -> None:  # noqa: A002
    cli.add_argument("--cases", dest="case_dirs", action="append", default=[], metavar="DIR", help=help)


def one_named(name: str, command: str, case_dirs: Sequence[str], payloads: Sequence[str] = ()):
    """The one benchmark of a full name, FORMAT/IMPL/INPUT/TIER (dump and profile take one), and the cases;
    a --payload whose word is its INPUT stands for that input."""
    from serialbench.catalog.registry import select_named

    if name.count("/") != 3 or any(ch in name for ch in "*?["):
        raise UsageError(f"{command} takes one full name FORMAT/IMPL/INPUT/TIER, not {name!r}; "
                         "see 'python -m serialbench list'")
    benchmarks, cases = select_named(case_dirs, [name], payloads)
    return benchmarks[0], cases


def add_payload_argument(cli) -> None:
    cli.add_argument("--payload", dest="payloads", action="append", default=[], metavar="SPEC|FILE|DIR",
                     help=PAYLOAD_HELP)


def payload_arguments(payloads: Sequence[str]) -> tuple[str, ...]:
    """The --payload arguments with a file's or directory's path made absolute: another process
    (a worker, a side's `list`) may run in another directory."""
    from serialbench.catalog.payloads import absolute

    return tuple(absolute(argument) for argument in payloads)


def selected_inputs(args) -> str | None:
    """--input and the INPUT words of the --payload arguments: a result file's benchmarks to show (report's,
    memory's)."""
    from serialbench.catalog.payloads import parse_payload

    words = [parse_payload(payload).word for payload in args.payloads]
    return ",".join([*([args.input] if args.input else []), *words]) or None


def filters(patterns: Sequence[str], tier: str | None, inputs: str | None) -> dict:
    """The selection options, for a side to select by in its own process (sides/checks.check_side;
    a side's payloads travel with the side, sides/sides.py)."""
    return {"patterns": list(patterns), "tiers": tier, "inputs": inputs}


def add_with_argument(cli, who: str = "this command") -> None:
    """--with SPEC: libraries installed into an overlay first on sys.path (sides/overlays.py)."""
    from serialbench.sides.overlays import SPEC_HELP

    cli.add_argument("--with", dest="with_specs", action="append", default=[], metavar="SPEC",
                     help=f"install SPEC into an overlay first on sys.path for {who} (repeatable): {SPEC_HELP}")


def add_build_arguments(cli) -> None:
    """What a commit's build (PATH@REV, sides/commits.py) gets besides what the commit declares."""
    cli.add_argument("--build-with", dest="build_tools", action="append", default=[], metavar="SPEC",
                     help="a build tool every commit's build needs and may not declare (repeatable, e.g. cython): "
                          "the build then runs in an environment of its own with the commit's build requirements "
                          "and these")
    cli.add_argument("--build-requirements", metavar="FILE",
                     help="a requirements file in each commit's own tree (e.g. requirements.txt), installed into its "
                          "build environment: the tools it pinned at that commit")
    cli.add_argument("--build-step", dest="build_steps", action="append", default=[], metavar="CMD",
                     help="a shell command run in each commit's clean tree before pip builds it (repeatable, e.g. "
                          "'cython msgpack/_cmsgpack.pyx'), with the --build-with tools on PATH")


def build_from(args):
    from serialbench.sides.commits import Build

    return Build(tuple(args.build_tools), tuple(args.build_steps), args.build_requirements or "")


def add_index_arguments(cli) -> None:
    """Where a range of releases is looked up and installed from (pip's own settings otherwise)."""
    cli.add_argument("--index-url", metavar="URL", help="package index to list and install releases from "
                                                        "(default: pip's, e.g. PIP_INDEX_URL)")
    cli.add_argument("--find-links", action="append", default=[], metavar="DIR",
                     help="also look for releases in DIR (a directory of wheels or sdists; repeatable)")


EXPLAIN_TOP = 5


def add_explain_arguments(cli, what: str, counts: bool = False) -> None:
    """--explain (after the verdicts, profile each decided `what` on its two sides and diff them) and
    --explain-top; `counts`: the command also counts (--instructions, --cycles), explained from callgrind."""
    counted = "; with --instructions or --cycles, callgrind's per-function counts" if counts else ""
    cli.add_argument("--explain", action="store_true",
                     help=f"after the verdicts, profile each faster or slower {what} on both sides (cProfile"
                          f"{counted}) and show the functions whose cost per op moved most")
    cli.add_argument("--explain-top", type=whole(), default=EXPLAIN_TOP, metavar="K",
                     help=f"functions to show under each explained {what} (default {EXPLAIN_TOP})")


def add_min_effect(cli) -> None:
    from serialbench.core import stats

    cli.add_argument("--min-effect", metavar="PCT",
                     help=f"the smallest change that counts (default {stats.MIN_EFFECT * 100:g}%%): "
                          + vocabulary.MIN_EFFECT_HELP)


def min_effect(args, default: float | None = None) -> float:
    from serialbench.core import stats

    return parse_percent(args.min_effect, stats.MIN_EFFECT if default is None else default, "--min-effect")


def add_session_arguments(cli, max_time_help: str | None = None, budget: bool = True) -> None:
    """How long an interleaved session (compare, calibrate, sweep, bisect) may run; bisect's --max-time
    bounds its whole search (max_time_help says so), and its one benchmark has no budget of its own."""
    from serialbench.measure.session import BUDGET_SECONDS, COMPARE, LOOKS, MAX_MINUTES, MIN_TIME

    cli.add_argument("--max-rounds", type=whole(LOOKS[0], "the first look"), default=LOOKS[-1],
                     help=f"rounds for the benchmarks still undecided at the last look (default {LOOKS[-1]}); "
                          f"undecided benchmarks are looked at after {', '.join(map(str, LOOKS))} rounds")
    cli.add_argument("--max-time", type=positive("minutes"), default=MAX_MINUTES, metavar="MIN",
                     help=(max_time_help or "stop after this many minutes, judging what is left on its rounds")
                     + f" (default {MAX_MINUTES:g})")
    if budget:
        cli.add_argument("--benchmark-budget", type=positive("seconds"), default=BUDGET_SECONDS, metavar="SEC",
                         help="seconds of calls a benchmark may take on each side: one whose rounds would take "
                              "more is judged at the last look that fits (at least the first), its interval saying "
                              f"what is known of it (default {BUDGET_SECONDS:g}: an op of 1 s a call is judged at 16 "
                              "rounds; a cheap op never reaches it)")
    cli.add_argument("--rounds", type=whole(1, "6 or more for a verdict"),
                     help="exactly this many rounds for every benchmark (no adaptive stopping)")
    cli.add_argument("--min-time", type=positive("seconds"), default=MIN_TIME,
                     help=f"seconds per value (default {MIN_TIME})")
    add_cpus_argument(cli, COMPARE.cpus)
    add_min_effect(cli)


def add_cpus_argument(cli, default: int) -> None:
    cli.add_argument("--cpus", type=whole(), default=default, metavar="N",
                     help=f"run N rounds at once, each on a CPU of its own with its own processes; a "
                          f"benchmark's values in a round always share one CPU (default {default}; at most the "
                          "CPUs this process may use)")


def settings_from(args):
    """The session's Settings (measure/session.py) from add_session_arguments' options, checked as parsed."""
    from serialbench.measure.session import session_settings

    return session_settings(args.max_rounds, args.max_time, args.min_time, args.cpus,
                            getattr(args, "benchmark_budget", None), args.rounds)


def interrupt_on_sigterm() -> None:
    """A terminated session still removes its worktrees and judges its rounds, as on Ctrl-C."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
