"""`python -m serialbench dump NAME [-o FILE]`: the exact wire body of one benchmark.

The body goes to FILE or stdout; the HTTP headers it travels with go to stderr (a request's from the
client, a response's from the server), so `python -m serialbench dump NAME -o body.bin` plus those
headers replays it with curl. A decode case writes the body it reads, with its source's headers.
"""

from __future__ import annotations

from serialbench.catalog.registry import CaseFailed, find_case, prepare
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import add_cases_argument, add_payload_argument, one_named

DESCRIPTION = "Write the exact wire body of one benchmark (FORMAT/IMPL/INPUT/TIER)."


def arguments(cli: Parser) -> None:
    cli.add_argument("name", help="the benchmark's full name, e.g. triton-binary/join/float32/1K")
    cli.add_output("-o", "--output", help="write the body to FILE (a new file) instead of stdout")
    add_cases_argument(cli)
    add_payload_argument(cli)


def run(args, out: Output) -> int:
    bench, cases = one_named(args.name, "dump", args.case_dirs, args.payloads)
    try:
        prepared = prepare(bench, cases)
    except CaseFailed as exc:
        out.say(f"serialbench: {exc}")
        return 1
    wire = prepared.wire
    # A decode case reads its source's body: the headers are the ones that body travels with
    # (a response's Inference-Header-Content-Length is what the client needs to parse it).
    writer = find_case(cases, bench.case.format, bench.case.source) if bench.case.decodes else bench.case
    if writer.headers:
        for key, value in writer.headers(wire).items():
            out.say(f"{key}: {value}")
    if out.wants("output"):  # stderr holds the headers alone: the body's file is not announced
        out.write_file(out.path("output"), wire, announce=False)
    else:
        out.binary().write(wire)
        out.binary().flush()
    return 0
