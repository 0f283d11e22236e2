"""`python -m serialbench dump NAME [-o FILE]`: the exact wire body of one benchmark.

The body goes to FILE or stdout; the HTTP headers it travels with go to stderr (a request's from the
client, a response's from the server), so `python -m serialbench dump NAME -o body.bin` plus those
headers replays it with curl. A decode case writes the body it reads, with its source's headers.
"""

from __future__ import annotations

import os
import sys

from serialbench.catalog.payloads import parse_payload
from serialbench.catalog.registry import CaseFailed, find_case, prepare, select
from serialbench.commands.options import add_payload_argument, parser
from serialbench.core.errors import UsageError


def run(argv: list[str]) -> int:
    cli = parser("dump", "Write the exact wire body of one benchmark (FORMAT/IMPL/INPUT/TIER).")
    cli.add_argument("name", help="the benchmark's full name, e.g. triton-binary/join/float32/1K")
    cli.add_argument("-o", "--output", metavar="FILE", help="write the body here instead of stdout")
    cli.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    cli.add_argument("--cases", dest="case_dirs", action="append", default=[], metavar="DIR")
    add_payload_argument(cli)
    args = cli.parse_args(argv)
    if args.name.count("/") != 3 or any(ch in args.name for ch in "*?["):
        raise UsageError(f"dump takes one full name FORMAT/IMPL/INPUT/TIER, not {args.name!r}; "
                         "see 'python -m serialbench list'")
    words = args.name.split("/")
    payloads = [payload for payload in args.payloads if parse_payload(payload).word == words[2]]
    benchmarks, cases = select(args.case_dirs, [args.name], tiers=None if payloads else words[3],
                               inputs=None if payloads else words[2], payloads=payloads)
    bench = benchmarks[0]
    if args.output and os.path.exists(args.output) and not args.force:
        raise UsageError(f"{args.output} exists; pass --force to overwrite it")
    try:
        prepared = prepare(bench, cases)
    except CaseFailed as exc:
        print(f"serialbench: {exc}", file=sys.stderr)
        return 1
    wire = prepared.wire
    # A decode case reads its source's body: the headers are the ones that body travels with
    # (a response's Inference-Header-Content-Length is what the client needs to parse it).
    writer = find_case(cases, bench.case.format, bench.case.source) if bench.case.decodes else bench.case
    if writer.headers:
        for key, value in writer.headers(wire).items():
            print(f"{key}: {value}", file=sys.stderr)
    if args.output:
        with open(args.output, "wb") as out:
            out.write(wire)
    else:
        sys.stdout.buffer.write(wire)
        sys.stdout.flush()
    return 0
