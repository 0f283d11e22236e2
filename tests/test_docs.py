"""The README and the docs site say what the code does: their examples are checked, as pyperf's
test_examples.py and benchstat's doc_test.go check theirs.

- Every `python -m serialbench ...` line (in a code block or a code span) parses with the command's
  real parser; nothing is run. A synopsis (a line with `[-b GLOB]`-style brackets) names only options
  the command has.
- Every repository path they cite exists (`results/X.json.gz`, `serialbench/...`, `tests/...`), but
  the files their own example commands write (`-o`, `--json`, `--markdown`, `--plot`).
- Every figure quoted by name matches the committed result file it names. A figure is quoted by
  name when an HTML comment naming its source follows it, invisible on the page:
  38.7 us<!-- results/REFERENCE.json.gz tfserving-rest/json/png/10K -->
  16x<!-- results/REFERENCE.json.gz tfserving-rest/json/png/10K / tfserving-grpc/direct/png/10K -->
  58 us<!-- results/REFERENCE.json.gz triton-binary/struct-pack/int32x3/100K - triton-binary/join/int32x3/100K -->
  2.7x<!-- results/REFERENCE.json.gz triton-binary/join/float32/1M multiple -->
  A time is the benchmark's median (as `report` gives it); `A / B` a ratio of medians; `A - B` a
  difference; `A multiple` the paired multiple of the floor that the run's summary shows. The
  figure matches when it is the file's value rounded to the digits written (an integer's trailing
  zeros are not digits: 70,000x matches 69,744x).
- .ci/run runs the README's test command.
- The CLI reference (docs/reference/cli.md) is what tools/cli_reference.py writes from the parsers, and
  the README's table of commands what it writes from the command table: every command is in both.
- The site's nav names every page of docs/ (and `mkdocs build --strict` fails on one it omits).
- The CI guide's workflows are the files in examples/ci/, word for word.
- A few examples run end to end, at pyperf's smallest settings.
"""

from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path

import pyperf
import pytest

from serialbench.__main__ import COMMANDS
from serialbench.core.errors import UsageError
from tests.helpers import PROJECT_ROOT, SMALLEST, serialbench
from tools import cli_reference

DOCUMENTS = sorted([PROJECT_ROOT / "README.md", PROJECT_ROOT / "CHANGELOG.md", *(PROJECT_ROOT / "docs").rglob("*.md")])
PROGRAM = "python -m serialbench"


def relative(path: Path) -> str:
    return str(path.relative_to(PROJECT_ROOT))


# --- reading the documents ---------------------------------------------------------------------------

def code_blocks(text: str) -> list[str]:
    return re.findall(r"(?ms)^ *```[^\n]*\n(.*?)^ *```", text)


def logical_lines(block: str) -> list[str]:
    """A block's commands: shell continuations joined, and a YAML `run: >` folded into one line."""
    lines, current, folded_indent = [], "", None
    for raw in block.splitlines():
        if folded_indent is not None:
            if raw.strip() and len(raw) - len(raw.lstrip()) > folded_indent:
                current += " " + raw.strip()
                continue
            lines.append(current)
            current, folded_indent = "", None
        if re.search(r"\brun: >-?\s*$", raw):
            folded_indent = len(raw) - len(raw.lstrip())
            continue
        if raw.rstrip().endswith("\\"):
            current += raw.rstrip()[:-1] + " "
            continue
        lines.append(current + raw)
        current = ""
    if current:
        lines.append(current)
    return lines


def command_lines(text: str) -> list[str]:
    """Every `python -m serialbench ...` in the document's code blocks and code spans, from the program
    name to the end of the command (a comment, a pipe, `&&`, a redirection end it)."""
    found = []
    pieces = [line for block in code_blocks(text) for line in logical_lines(block)]
    prose = re.sub(r"(?ms)^ *```.*?^ *```", "", text)
    # A code span may wrap onto the next line of the paragraph.
    pieces += [span.replace("\n", " ") for span in re.findall(r"`([^`]*python -m serialbench[^`]*)`", prose)]
    for piece in pieces:
        for match in re.finditer(re.escape(PROGRAM) + r"(?![\w-])", piece):
            command = piece[match.start():].split("`")[0]
            command = re.sub(r"\$\{\{[^}]*\}\}", "1", command)  # a workflow's ${{ matrix.shard }}
            command = re.split(r"\s(?:#|&&|\|\|?|>>?|2>)\s|;\s", command + " ")[0]
            found.append(command.strip())
    return found


def is_synopsis(argv: list[str]) -> bool:
    return any(word.startswith("[") or word.endswith("]") for word in argv)


# --- the parsers -------------------------------------------------------------------------------------

def split_command(command: str) -> tuple[str, list[str]]:
    """(the command, its arguments) of `python -m serialbench [COMMAND] ...`."""
    argv = shlex.split(command)[3:]
    if argv and argv[0] == "COMMAND":  # `python -m serialbench COMMAND --help`: any command
        return "COMMAND", argv[1:]
    if argv and not argv[0].startswith("-") and not argv[0].startswith("["):
        if argv[0] not in COMMANDS:
            raise UsageError(f"unknown command {argv[0]!r}")
        return argv[0], argv[1:]
    return "run", argv


def parse_error(command: str) -> str | None:
    """Why the command's parser refuses the line (None when it parses)."""
    try:
        name, argv = split_command(command)
        if name == "COMMAND":
            return next(filter(None, (parse_error(command.replace("COMMAND", other, 1)) for other in COMMANDS)), None)
        parser = cli_reference.parser_of(name)
        if is_synopsis(argv):
            options = {re.match(r"\[?(-[\w-]+)", word).group(1) for word in argv if re.match(r"\[?-[\w-]", word)}
            unknown = sorted(option for option in options if option not in parser._option_string_actions)
            return f"no option {', '.join(unknown)}" if unknown else None
        if "-h" in argv or "--help" in argv:
            return None
        parser.parse_args(argv)
    except UsageError as exc:
        return str(exc)
    except SystemExit as exc:  # a parser whose errors are argparse's own
        return f"argparse exited with status {exc.code}"
    return None


WORKFLOWS = sorted((PROJECT_ROOT / "examples/ci").glob("*.yml"))


def commands_of(path: Path) -> list[str]:
    """A document's command lines; a workflow file is read as one block of YAML."""
    text = path.read_text()
    return command_lines(f"```yaml\n{text}```\n" if path.suffix == ".yml" else text)


EXAMPLES = [(relative(path), command) for path in [*DOCUMENTS, *WORKFLOWS] for command in commands_of(path)]


def option_spans(text: str) -> list[tuple[str, str]]:
    """(command, option) of every code span in prose that gives a command an option without the
    program's name: `compare --instructions`, `check-harness --plain-worker NAME`."""
    prose = re.sub(r"(?ms)^ *```.*?^ *```", "", text)
    found = []
    for span in re.findall(r"`([^`]+)`", prose):
        words = span.split()
        if len(words) > 1 and words[0] in COMMANDS and words[1].startswith("-"):
            found += [(words[0], word.split("=")[0]) for word in words[1:]
                      if re.fullmatch(r"--?[a-z][\w-]*(=.*)?", word)]
    return found


OPTION_SPANS = [(relative(path), command, option) for path in DOCUMENTS
                for command, option in option_spans(path.read_text())]


def test_the_documents_have_examples():
    documents = {document for document, _ in EXAMPLES}
    assert {"README.md", "docs/guides/compare.md", "docs/getting-started.md"} <= documents
    assert len(EXAMPLES) > 60


@pytest.mark.parametrize(("document", "command"), EXAMPLES)
def test_every_example_parses_with_the_real_parser(document, command):
    error = parse_error(command)
    assert error is None, f"{document}: {command!r} does not parse: {error}"


def test_the_workflow_files_commands_are_among_the_examples():
    workflows = {document for document, _ in EXAMPLES if document.startswith("examples/ci/")}
    assert {"examples/ci/library-cost.yml", "examples/ci/patch.yml", "examples/ci/sweep.yml"} <= workflows


@pytest.mark.parametrize(("document", "command", "option"), OPTION_SPANS)
def test_every_option_a_document_gives_a_command_is_in_its_help(document, command, option):
    assert option in cli_reference.parser_of(command)._option_string_actions, \
        f"{document}: `{command} {option}`: {command} has no option {option}"


def test_an_option_span_is_read_from_prose_only():
    text = "`compare --instructions` and `check-harness\n--plain-worker X`, not `--fast`\n```sh\nrun --x\n```\n"
    assert option_spans(text) == [("compare", "--instructions"), ("check-harness", "--plain-worker")]


def test_the_actions_compare_line_parses_with_the_real_parser(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("action_script", PROJECT_ROOT / "action/compare_pull_request.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    env = {"SERIALBENCH_BENCHMARKS": "msgpack/* triton-binary/join/*", "SERIALBENCH_ARGS": "--tier 1K,1M",
           "SERIALBENCH_MODE": "both", "SERIALBENCH_FAIL_ON": "changed"}
    for kind in ("counts", "time"):
        argv = script.compare_argv(env, tmp_path, "a" * 40, "b" * 40, kind, tmp_path / "t.md", tmp_path / "t.json")
        assert argv[1:4] == ["-m", "serialbench", "compare"]
        command = shlex.join(["python", *argv[1:]])
        assert parse_error(command) is None, command
        assert ("--instructions" in argv, "--fail-on" in argv) == ((True, True) if kind == "counts" else (False, False))


def test_a_wrong_option_fails_to_parse():
    assert parse_error("python -m serialbench compare main --fail-on sometimes") is not None
    assert parse_error("python -m serialbench list --tiers 1K") is not None
    assert parse_error("python -m serialbench report FILE [--markdwon FILE]") == "no option --markdwon"
    assert parse_error("python -m serialbench frobnicate") == "unknown command 'frobnicate'"


def test_command_lines_are_read_as_a_shell_and_a_workflow_would():
    text = ("```sh\npython -m serialbench list -b 'x/*' \\\n    --tier 1K   # a comment\n```\n"
            "```yaml\n      - run: >\n          python -m serialbench sweep a\n"
            "          --shard ${{ matrix.shard }}/4\n"
            "      - run: cat x\n```\n")
    assert command_lines(text) == ["python -m serialbench list -b 'x/*'      --tier 1K",
                                   "python -m serialbench sweep a --shard 1/4"]


# --- paths -------------------------------------------------------------------------------------------

# A repository path (results/ holds the committed files; a markdown link is docs/'s own, relative).
PATH = re.compile(r"(?<![\w./~:-])(?<!\]\()((?:serialbench|cases|tests|docs|tools|examples|results|\.ci)/[\w.@/-]*\w)")
OUTPUT_OPTIONS = ("-o", "--output", "--json", "--markdown", "--plot", "--append")


def written_by_examples(text: str) -> set[str]:
    """The files the document's own example commands write: they need not exist."""
    written = set()
    for command in command_lines(text):
        argv = shlex.split(command)
        written |= {argv[i + 1] for i, word in enumerate(argv[:-1]) if word in OUTPUT_OPTIONS}
    return written


def cited_paths(text: str) -> set[str]:
    paths = set()
    for match in PATH.finditer(text):
        path = match.group(1)
        end = text[match.end():match.end() + 1]
        if end in "<*" or "..." in path or text[match.end():].startswith(("-<", "...", "-...")):
            continue  # a pattern (results/sweep-...-<release>.json), not a file
        paths.add(path)
    return paths - written_by_examples(text)


@pytest.mark.source_tree  # the paths are the repository's, serialbench/ and cases/ among them
@pytest.mark.parametrize("document", [relative(path) for path in DOCUMENTS])
def test_every_cited_path_exists(document):
    text = (PROJECT_ROOT / document).read_text()
    missing = sorted(path for path in cited_paths(text) if not (PROJECT_ROOT / path).exists())
    assert not missing, f"{document} cites paths that do not exist: {', '.join(missing)}"


def test_a_pattern_and_an_example_output_are_not_cited_paths():
    text = ("results/sweep-...-<release>.json and results/REFERENCE.json.gz, once abc1234:docs/x.json\n"
            "```sh\npython -m serialbench -b 'x/*' -o docs/mine.json\n"
            "python -m serialbench memory docs/mine.json\n```\n")
    assert cited_paths(text) == {"results/REFERENCE.json.gz"}


# --- figures quoted by name --------------------------------------------------------------------------

QUOTE = re.compile(r"(?P<figure>\d[\d,]*(?:\.\d+)?) ?(?P<unit>ns|us|ms|s|x)\s*"
                   r"<!-- (?P<file>results/[\w.-]+\.json\.gz) (?P<what>[^>]+?) -->")
UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


@functools.cache
def medians(path: str) -> dict[str, float]:
    from serialbench.results.files import load

    return {result.name: result.median for result in load(PROJECT_ROOT / path).results}


@functools.cache
def multiples(path: str) -> dict[str, float]:
    """Each benchmark's multiple of the memcpy floor, the one every view prints (verdicts/timings.floor_multiple:
    paired over its rounds where the run took them); none for an op that copies no tensor."""
    from serialbench.results.files import load
    from serialbench.verdicts.timings import floor_multiple, timing

    results = load(PROJECT_ROOT / path)
    found = {}
    for result in results.results:
        multiple = floor_multiple(results, result, timing(result.benchmark))
        if multiple is not None:
            found[result.name] = multiple.value
    return found


def quoted_value(file: str, what: str) -> float:
    """The value a quote names: a benchmark's median, two joined by '/' or '-', or `NAME multiple`, its
    paired multiple of the floor."""
    parts = what.split()
    if len(parts) == 2 and parts[1] == "multiple":
        if parts[0] not in multiples(file):
            raise KeyError(f"{file} has no paired multiple of the floor for {parts[0]}")
        return multiples(file)[parts[0]]
    values = medians(file)
    missing = [name for name in parts[::2] if name not in values]
    if missing:
        raise KeyError(f"{file} has no benchmark {', '.join(missing)}")
    if len(parts) == 1:
        return values[parts[0]]
    if len(parts) == 3 and parts[1] in "/-":
        a, b = values[parts[0]], values[parts[2]]
        return a / b if parts[1] == "/" else a - b
    raise ValueError(f"a quote names NAME, NAME / NAME or NAME - NAME, not {what!r}")


def quote_error(match: re.Match) -> str | None:
    """Why a quoted figure does not match its file (None when it does): the file's value, rounded to
    the digits the figure is written with, must be the figure."""
    figure, unit = match["figure"].replace(",", ""), match["unit"]
    value = quoted_value(match["file"], match["what"])
    if unit != "x":
        value /= UNITS[unit]
    decimals = len(figure.partition(".")[2])
    if not decimals:  # an integer's trailing zeros are not significant: 70,000x is two digits
        decimals = -(len(figure) - len(figure.rstrip("0")))
    if abs(value - float(figure)) > 0.5 * 10 ** -decimals * (1 + 1e-9):
        return f"{match['figure']} {unit} quoted, the file gives {value:.{max(decimals, 0) + 2}f} {unit}"
    return None


QUOTES = [(relative(path), match) for path in DOCUMENTS for match in QUOTE.finditer(path.read_text())]


def test_the_documents_quote_figures_by_name():
    assert len(QUOTES) >= 20
    assert "<!-- results/" not in QUOTE.sub("", "\n".join(p.read_text() for p in DOCUMENTS)), \
        "a quote comment that follows no figure: write the figure and its unit right before it"


@pytest.mark.parametrize(("document", "quote"), QUOTES, ids=[f"{d}:{m['what']}" for d, m in QUOTES])
def test_every_figure_quoted_by_name_matches_its_file(document, quote):
    error = quote_error(quote)
    assert error is None, f"{document}: {quote['what']} in {quote['file']}: {error}"


def test_a_figure_is_checked_to_the_digits_written():
    def check(text: str) -> str | None:
        return quote_error(QUOTE.search(text))

    name = "tfserving-rest/json/png/10K"  # 38.72 us in the reference run
    assert check(f"38.7 us<!-- results/REFERENCE.json.gz {name} -->") is None
    assert check(f"39 us<!-- results/REFERENCE.json.gz {name} -->") is None
    assert check(f"38.8 us<!-- results/REFERENCE.json.gz {name} -->") == \
        "38.8 us quoted, the file gives 38.720 us"
    assert check(f"696 us<!-- results/REFERENCE.json.gz {name} -->") == \
        "696 us quoted, the file gives 38.72 us"


# --- the CLI reference -------------------------------------------------------------------------------

def test_the_cli_reference_is_what_the_parsers_say():
    assert (PROJECT_ROOT / "docs/reference/cli.md").read_text() == cli_reference.page(), \
        "docs/reference/cli.md is stale: run python tools/cli_reference.py"


def test_the_readme_table_of_commands_is_what_the_command_table_says():
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert cli_reference.readme_table() in readme, \
        "README.md's table of commands is stale: run python tools/cli_reference.py"
    table = readme[readme.index(cli_reference.TABLE_START):readme.index(cli_reference.TABLE_END)]
    assert re.findall(r"^\| \[`([\w-]+)`\]", table, re.M) == list(COMMANDS)


def test_a_stale_readme_table_is_replaced_between_its_markers():
    stale = f"# x\n\n{cli_reference.TABLE_START}\n| [`frobnicate`](#) | gone |\n{cli_reference.TABLE_END}\n\nafter\n"
    fresh = cli_reference.readme_with_table(stale)
    assert "frobnicate" not in fresh and "| [`budget`](docs/reference/cli.md#budget) |" in fresh
    assert fresh.startswith("# x\n\n") and fresh.endswith("\n\nafter\n")


def test_the_cli_reference_has_every_command_and_option():
    page = cli_reference.page()
    for command in COMMANDS:
        assert f"\n## {command}\n" in page
    assert "`--fail-on {slower,changed}`" in page
    assert "| `--keep-days N` |" in page  # cache prune's, a sub-command's option


def test_the_mkdocs_nav_names_pages_that_exist():
    import yaml

    def pages(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for item in node:
                yield from pages(item)
        elif isinstance(node, dict):
            for value in node.values():
                yield from pages(value)

    config = yaml.safe_load((PROJECT_ROOT / "mkdocs.yml").read_text())
    named = list(pages(config["nav"]))
    assert "reference/cli.md" in named and "findings/index.md" in named
    assert all((PROJECT_ROOT / "docs" / page).exists() for page in named)
    on_disk = sorted(str(path.relative_to(PROJECT_ROOT / "docs")) for path in (PROJECT_ROOT / "docs").rglob("*.md"))
    assert sorted(named) == on_disk, "every page of docs/ is in mkdocs.yml's nav, once"
    assert config["validation"]["nav"]["omitted_files"] == "warn"  # so that --strict fails on one


@pytest.mark.parametrize("document", [relative(path) for path in DOCUMENTS if relative(path).startswith("docs/")])
def test_no_fenced_block_is_indented_into_a_list(document):
    # MkDocs' fenced_code reads a fence only at the margin: an indented one renders as inline code.
    indented = re.findall(r"(?m)^ +```.*$", (PROJECT_ROOT / document).read_text())
    assert not indented, f"{document}: a fenced block inside a list item: {indented[0].strip()}"


def test_ci_runs_the_readme_test_command():
    """.ci/run runs the README's test command (pip quietly): the README's set-up stays true."""
    readme = (PROJECT_ROOT / "README.md").read_text()
    command = re.search(r"Run the tests:\n\n```sh\n(.*)\n```", readme)[1]
    ci = (PROJECT_ROOT / ".ci/run").read_text().split("# The README's test command:\n", 1)[1].splitlines()[0]
    assert ci.replace("pip install -q ", "pip install ") == command


# --- the CI guide's workflows --------------------------------------------------------------------------

WORKFLOW = re.compile(r"(?ms)^```yaml\n(# (examples/ci/[\w.-]+\.yml)\b.*?)^```")


def test_the_ci_guide_shows_the_workflow_files_as_they_are():
    text = (PROJECT_ROOT / "docs/guides/ci.md").read_text()
    shown = {match[2]: match[1] for match in WORKFLOW.finditer(text)}
    files = {relative(path): path.read_text() for path in (PROJECT_ROOT / "examples/ci").glob("*.yml")}
    assert len(files) >= 3 and sorted(shown) == sorted(files)
    for path, content in files.items():
        assert shown[path] == content, f"docs/guides/ci.md shows {path} other than it is"


@pytest.mark.parametrize("path", sorted(relative(path) for path in (PROJECT_ROOT / "examples/ci").glob("*.yml")))
def test_every_workflow_file_is_yaml_with_jobs(path):
    import yaml

    assert yaml.safe_load((PROJECT_ROOT / path).read_text())["jobs"]


# --- a few examples end to end -----------------------------------------------------------------------

def documented(document: str, command: str) -> list[str]:
    """The arguments of a command the document shows, word for word (the test fails when the docs change)."""
    assert command in command_lines((PROJECT_ROOT / document).read_text()), f"{document} no longer shows {command}"
    return shlex.split(command)[3:]


@pytest.mark.slow
def test_the_list_example_runs(tmp_path):
    argv = documented("docs/reference/formats.md", "python -m serialbench list -b 'kserve-grpc/*response*/float32/1K'")
    done = serialbench(*argv, check=True)
    assert done.stdout.decode().split() == ["kserve-grpc/response-kserve/float32/1K",
                                            "kserve-grpc/response-raw/float32/1K",
                                            "kserve-grpc/decode-response-tritonclient/float32/1K",
                                            "kserve-grpc/decode-response-raw/float32/1K"]


@pytest.mark.slow
def test_the_own_cases_example_runs_and_reports(tmp_path):
    text = (PROJECT_ROOT / "docs/guides/own-cases.md").read_text()
    code = re.search(r"```python\n(# mycases/npy.py.*?)```", text, re.S).group(1)
    (tmp_path / "mycases").mkdir()
    (tmp_path / "mycases" / "npy.py").write_text(code)
    argv = documented("docs/guides/own-cases.md", "python -m serialbench --cases mycases -b 'npy/*' "
                                                  "-b 'triton-binary/join' --input float32 --fast")
    argv = [str(tmp_path / "mycases") if word == "mycases" else word for word in argv]
    out = tmp_path / "run.json"
    done = serialbench(*argv, *SMALLEST, "--tier", "1K", "-o", out)
    assert done.returncode == 0, done.stderr.decode()
    assert "npy/save/float32/1K" in pyperf.BenchmarkSuite.load(str(out)).get_benchmark_names()
    report = documented("docs/getting-started.md", "python -m serialbench report FILE")
    done = serialbench(*[str(out) if word == "FILE" else word for word in report])
    assert done.returncode == 0, done.stderr.decode()
    assert "npy/save" in done.stdout.decode()


@pytest.mark.slow
def test_the_own_cases_decoder_and_refusal_run_as_the_guide_says(tmp_path):
    text = (PROJECT_ROOT / "docs/guides/own-cases.md").read_text()
    code = "".join(re.findall(r"```python\n(# mycases/npy.py.*?)```", text, re.S))
    assert "decode-load" in code
    (tmp_path / "mycases").mkdir()
    (tmp_path / "mycases" / "npy.py").write_text(code)
    argv = documented("docs/guides/own-cases.md", "python -m serialbench list --cases mycases -b 'npy/*' "
                                                  "--payload 'x:bfloat16[4,8]'")
    done = serialbench(*[str(tmp_path / "mycases") if word == "mycases" else word for word in argv])
    assert done.returncode == 2, done.stderr.decode()  # every selected case refuses: nothing to list
    assert "npy/*: no bfloat16-4x8: bfloat16: np.save writes numpy's dtype.str" in done.stderr.decode()
    done = serialbench("verify", "--cases", tmp_path / "mycases", "-b", "npy/*", "--no-edge", "--tier", "1K")
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    assert "npy/decode-load  float32/1K  lossless" in done.stdout.decode()


@pytest.mark.slow
def test_the_verify_example_runs():
    argv = documented("docs/guides/choosing-a-protocol.md",
                      "python -m serialbench verify -b 'kserve-json/*' --no-edge --tier 1M --input float64")
    done = serialbench(*argv, "--tier", "1K")  # the last --tier wins: the example's smallest size
    assert done.returncode == 0, done.stderr.decode()
    assert "kserve-json/orjson" in done.stdout.decode()


def test_getting_started_points_to_the_readme_commands_instead_of_repeating_them():
    readme = (PROJECT_ROOT / "README.md").read_text()
    commands = re.findall(r"(?m)^python3 -m venv .*$", readme)
    assert len(commands) == 2  # the README keeps exactly two set-up commands
    page = (PROJECT_ROOT / "docs/getting-started.md").read_text()
    assert not [command for command in commands if command in page]
    assert "`README.md`" in page


def test_the_readme_quotes_the_answer_that_the_fast_run_s_file_gives():
    """The README's fast run ends with its answer, at most 15 lines, as the run prints it from its file."""
    from serialbench.results.files import load
    from serialbench.views.answer import answer_lines

    block = (PROJECT_ROOT / "README.md").read_text().split("<!-- fast-run-output -->")[1]
    quoted = block.split("The answer:", 1)[1].split("```")[0].rstrip("\n").splitlines()
    results = load(PROJECT_ROOT / "results" / "fast-triton-binary.json.gz")
    answer = answer_lines(results.results)
    assert ["The answer:" + quoted[0], *quoted[1:]] == answer and len(answer) <= 15
