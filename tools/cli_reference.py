"""The CLI reference (docs/reference/cli.md), written from the commands' own parsers, and the README's
table of commands, written from the command table (`COMMANDS` in serialbench/__main__.py).

`python tools/cli_reference.py` rewrites the page and the README's table (between its markers);
`--check` exits 1 when either differs from what the code says (tests/test_docs.py runs the same
comparisons). The page is built from the
parsers' actions, not from argparse's `--help` text, whose layout changes between Python versions and
terminal widths: what a page shows is then the same on every machine.

`parser_of(command)` is the one place that knows how a command's parser is obtained: the command
contract's (serialbench/commands/contract.py), on which every command declares its arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "reference" / "cli.md"
README = ROOT / "README.md"
# The README's table of commands sits between these two lines, which the README keeps.
TABLE_START = "<!-- commands-table: written by tools/cli_reference.py from serialbench/__main__.py; do not edit -->"
TABLE_END = "<!-- /commands-table -->"

@contextlib.contextmanager
def _machine_free():
    """Defaults that name this machine's paths read as the documented ones (cache's ~/.cache)."""
    with mock.patch.dict(os.environ, {"HOME": "~"}):
        os.environ.pop("XDG_CACHE_HOME", None)
        yield


def parser_of(command: str) -> argparse.ArgumentParser:
    """The argparse parser of `python -m serialbench COMMAND`, built as the command builds it."""
    from serialbench.__main__ import COMMANDS
    from serialbench.commands.contract import make_parser

    module = importlib.import_module("serialbench.commands." + COMMANDS[command][0])
    with _machine_free():
        return make_parser(command, module)


def _help(action: argparse.Action, prog: str) -> str:
    text = action.help or ""
    if "%" in text:  # argparse's own expansion: %(default)s, %%
        text = text % {**vars(action), "prog": prog}
    return _markdown_text(text)


def _markdown_text(text: str) -> str:
    """Help text as Markdown prints it: one line, no emphasis from a glob's '*' or a '_'."""
    text = " ".join(text.split())
    for char, escaped in (("\\", "\\\\"), ("|", "\\|"), ("*", "\\*"), ("_", "\\_"), ("<", "&lt;")):
        text = text.replace(char, escaped)
    return text


def _names(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    if action.nargs == 0:
        return ", ".join(f"`{option}`" for option in action.option_strings)
    metavar = action.metavar or action.dest.upper()
    if isinstance(metavar, tuple):
        metavar = " ".join(metavar)
    if action.choices and not action.metavar:
        metavar = "{" + ",".join(map(str, action.choices)) + "}"
    return ", ".join(f"`{option} {metavar}`" for option in action.option_strings)


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, [], "", argparse.SUPPRESS) or action.required:
        return ""
    return f"`{action.default}`"


def _synopsis(prog: str, actions: list[argparse.Action]) -> str:
    words = [prog]
    for action in actions:
        if action.option_strings:
            continue
        if isinstance(action, argparse._SubParsersAction):
            words.append("{" + ",".join(action.choices) + "} ...")
            continue
        name = action.metavar or action.dest
        words.append({"?": f"[{name}]", "*": f"[{name} ...]", "+": f"{name} [{name} ...]"}.get(action.nargs, name))
    return " ".join(words + ["[options]"])


def _table(parser: argparse.ArgumentParser, actions: list[argparse.Action]) -> list[str]:
    rows = [a for a in actions if a.help != argparse.SUPPRESS and not isinstance(a, argparse._SubParsersAction)
            and not isinstance(a, argparse._HelpAction)]
    if not rows:
        return []
    lines = ["| argument | what it does | default |", "|---|---|---|"]
    lines += [f"| {_names(a)} | {_help(a, parser.prog)} | {_default(a)} |" for a in rows]
    return lines + [""]


def _section(command: str, description: str) -> list[str]:
    """A command's synopsis, description and options (a sub-command's too)."""
    parser = parser_of(command)
    actions = list(parser._actions)
    lines = [f"## {command}", "", "```", _synopsis(parser.prog, actions), "```", ""]
    lines += [_markdown_text(parser.description or description), ""]
    lines += _table(parser, actions)
    for action in actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                lines += [f"### {command} {name}", "", "```",
                          _synopsis(sub.prog, sub._actions), "```", ""]
                lines += [_markdown_text(helps.get(name, "").capitalize()) + ".", ""]
                lines += _table(sub, list(sub._actions))
    if parser.epilog:
        lines += ["```", parser.epilog.rstrip(), "```", ""]
    return lines


def commands_table(page: str = "") -> list[str]:
    """Every command with its one line, from the command table in serialbench/__main__.py, each
    linked to its section of the CLI page (`page`: the page's path from the document, "" on it)."""
    from serialbench.__main__ import COMMANDS

    lines = ["| command | what it does |", "|---|---|"]
    return lines + [f"| [`{name}`]({page}#{name}) | {_markdown_text(description)} |"
                    for name, (_, description) in COMMANDS.items()]


def readme_table() -> str:
    """The README's table of commands, its markers included."""
    return "\n".join([TABLE_START, *commands_table("docs/reference/cli.md"), TABLE_END])


def readme_with_table(readme: str) -> str:
    """The README with the text between its markers replaced by the table the code gives."""
    start, end = readme.find(TABLE_START), readme.find(TABLE_END)
    if start < 0 or end < start:
        raise ValueError(f"README.md has no {TABLE_START!r} ... {TABLE_END!r}")
    return readme[:start] + readme_table() + readme[end + len(TABLE_END):]


def page() -> str:
    from serialbench.__main__ import COMMANDS

    lines = ["# Command line", "",
             "<!-- Written by tools/cli_reference.py from the commands' parsers; do not edit by hand:",
             "     run `python tools/cli_reference.py` after changing an option. -->", "",
             "`python -m serialbench [COMMAND] [options]`; without a command, `run`. "
             "`python -m serialbench COMMAND --help` prints the same options. A usage error is one line "
             "on stderr and exit status 2.", ""]
    lines += commands_table() + [""]
    for command, (_, description) in COMMANDS.items():
        lines += _section(command, description)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    written = {PAGE: page(), README: readme_with_table(README.read_text())}
    if argv == ["--check"]:
        stale = [path for path, text in written.items() if not path.exists() or path.read_text() != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)} differs from the code: run python tools/cli_reference.py",
                  file=sys.stderr)
        return 1 if stale else 0
    if argv:
        print("usage: python tools/cli_reference.py [--check]", file=sys.stderr)
        return 2
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    for path, text in written.items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # this tree's serialbench, as the tests import it
    sys.exit(main(sys.argv[1:]))
