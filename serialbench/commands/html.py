"""`python -m serialbench html [FILE|DIR ...] -o DIR`: a static site of result files (views/site/).

The default input is ./results; inputs that hold no result file at all are bad input. The site opens
from file:// with no server and no network. A file that cannot be read, or is no serialbench result,
is named on stderr in one line and left out; the rest is built. The output folder is new or empty: a
site never mixes with older pages, and, as every output of every command (commands/contract.py),
nothing is written over.
"""

from __future__ import annotations

import time

from serialbench.commands.contract import Output, Parser
from serialbench.core.formatting import format_bytes, format_duration
from serialbench.results.paths import RESULTS

DESCRIPTION = ("A static site of result files (runs, compares, sweeps, bisections, check-harness panels) that opens "
               "from file:// with no server and no network.")


def arguments(cli: Parser) -> None:
    cli.add_argument("inputs", nargs="*", metavar="FILE|DIR", help=f"result files, or folders of them "
                                                                   f"(default: ./{RESULTS})")
    cli.add_output("-o", "--output", metavar="DIR", folder=True, help="the site's folder (new or empty)")


def run(args, out: Output) -> int:
    from serialbench.core.errors import UsageError
    from serialbench.results import kinds
    from serialbench.views.site import build_site

    folder = out.path("output")
    if folder is None:
        raise UsageError("give the site's folder: -o DIR (new or empty)")
    inputs = args.inputs or [RESULTS]
    if not kinds.find(inputs):
        raise UsageError(f"no result files in {', '.join(map(str, inputs))}: give result files (.json or "
                         ".json.gz) or folders that hold them")
    started = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)
    pages = build_site(inputs, folder, out.say)
    size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    out.print(f"{folder / 'index.html'}: {len(pages)} pages, {format_bytes(size)}, "
              f"in {format_duration(time.monotonic() - started)}")
    return 0 if pages else 1
