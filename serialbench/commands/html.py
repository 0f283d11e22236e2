"""`python -m serialbench html [FILE|DIR ...] -o DIR`: a static site of result files (views/site/).

The default input is ./results. The site opens from file:// with no server and no network. A file
that cannot be read, or is no serialbench result, is named on stderr in one line and left out; the
rest is built. The output folder is new or empty (a site never mixes with older pages), or --force.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from serialbench.commands.options import parser
from serialbench.core.errors import UsageError
from serialbench.core.formatting import format_bytes, format_duration
from serialbench.results.paths import RESULTS


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(argv: list[str]) -> int:
    cli = parser("html", "A static site of result files (runs, compares, sweeps, bisections, check-harness "
                         "panels) that opens from file:// with no server and no network.")
    cli.add_argument("inputs", nargs="*", metavar="FILE|DIR", help=f"result files, or folders of them "
                                                                   f"(default: ./{RESULTS})")
    cli.add_argument("-o", "--output", required=True, metavar="DIR", help="the site's folder (new or empty)")
    cli.add_argument("--force", action="store_true", help="write into a folder that is not empty")
    args = cli.parse_args(argv)
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o {out} is a file; give a folder for the site")
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise UsageError(f"-o {out} is not empty; give a new folder, or --force to write the site into it")
    inputs = args.inputs or [RESULTS]
    started = time.monotonic()
    from serialbench.views.site import build_site

    out.mkdir(parents=True, exist_ok=True)
    pages = build_site(inputs, out, say)
    size = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    print(f"{out / 'index.html'}: {len(pages)} pages, {format_bytes(size)}, "
          f"in {format_duration(time.monotonic() - started)}")
    return 0 if pages else 1
