"""The command contract: what every command of `python -m serialbench` is, and how it runs.

A command is a module of serialbench/commands/ with three names:
- `DESCRIPTION`: a sentence or two, the top of its --help;
- `arguments(cli)`: declares its arguments on `cli`, a `Parser` (argparse, whose errors are one
  line and exit status 2); a file the command writes is declared with `cli.add_output`
  (`cli.add_json`, `cli.add_markdown`), never as a plain argument;
- `run(args, out) -> int`: does the work and returns the exit status (0 done, 1 a failure or a
  gate, 130 interrupted), writing only through `out`, an `Output`.

`main(command, argv, stdout, stderr)` runs one in-process, as benchstat's main_test.go runs
benchstat: a whole-command test needs no subprocess. Before the command does any work it claims
every output file that was given: one policy, never overwritten, refused in one message
(`claim`). The Output owns what leaves the command: the answer on stdout, progress and notes on
stderr (`say`), and the files, each announced on stderr once written; an answer that is one document
(views/table.py's Document) is printed and written from it at once (`document`). A command is imported only
when used (`load`), so that `list` and the workers stay cheap. The processes that serialbench
starts itself are not commands: their hidden entry points are in serialbench/workers.py.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import IO

from serialbench.core.errors import UsageError
from serialbench.core.parsing import OneLineParser

# An output file's option -> what the line that announces it calls it
KINDS = {"json": "JSON", "markdown": "Markdown"}


def claim(path: str | os.PathLike, what: str, folder: bool = False) -> Path:
    """The never-overwrite policy, in one place: a file serialbench writes must not exist yet, and its
    directory must; a folder it fills (`folder`) may exist when it is empty. `what` names it in the
    message: the option (`--json`), or the file's role."""
    path = Path(path)
    if os.path.lexists(path) and not (folder and path.is_dir() and not any(path.iterdir())):
        raise UsageError(f"{what} {path} exists and is never overwritten; give a new name, or remove it first")
    directory = path.absolute().parent
    if not directory.is_dir():
        raise UsageError(f"{what} {path}: directory {directory} does not exist")
    return path


class Parser(OneLineParser):
    """An argparse parser whose errors are one line and exit status 2 (a UsageError, core/parsing.py), and
    which knows which of its options name files that the command writes."""

    def __init__(self, command: str, description: str, **kwargs):
        super().__init__(prog=f"python -m serialbench {command}".rstrip(), description=description, **kwargs)
        self.outputs: dict[str, str] = {}  # dest -> the option's flag, for the message
        self.folders: set[str] = set()  # the outputs that are folders (new, or empty)
        self.stdout: IO[str] | None = None  # where --help goes (the Output's stdout)

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        """--help and --version (argparse prints them to sys.stdout) go to the command's stdout."""
        if message:
            file = sys.stdout if file is None else file
            (self.stdout if self.stdout is not None and file is sys.stdout else file).write(message)

    def add_output(self, *flags: str, help: str, metavar: str = "FILE", dest: str | None = None,  # noqa: A002
                   folder: bool = False, group: argparse._ArgumentGroup | None = None):
        """An option that names a file (or, `folder`, a folder) the command writes: claimed before any
        work, never overwritten. `group`: the argument group --help lists it in."""
        action = (group or self).add_argument(*flags, metavar=metavar, dest=dest, help=help)
        self.outputs[action.dest] = flags[-1] if flags[-1].startswith("--") else flags[0]
        if folder:
            self.folders.add(action.dest)
        return action

    def add_json(self, what: str):
        return self.add_output("--json", help=f"also write {what} as JSON to FILE (a new file)")

    def add_markdown(self, what: str):
        return self.add_output("--markdown", help=f"also write {what} as Markdown to FILE (a new file)")


class Output:
    """Everything a command writes: its answer (stdout), progress and notes (stderr), and its files."""

    def __init__(self, stdout: IO[str] | None = None, stderr: IO[str] | None = None,
                 files: dict[str, Path | None] | None = None):
        self.stdout = sys.stdout if stdout is None else stdout
        self.stderr = sys.stderr if stderr is None else stderr
        self.files = dict(files or {})  # dest -> the claimed path, or None when the option was not given

    def print(self, text: str = "", end: str = "\n") -> None:
        """A line of the answer."""
        self.stdout.write(text + end)
        self.stdout.flush()

    def say(self, message: str) -> None:
        """A progress line or a note, on stderr at once: stdout stays the answer."""
        self.stderr.write(message + "\n")
        self.stderr.flush()

    def binary(self) -> IO[bytes]:
        """stdout for bytes (dump's body)."""
        self.stdout.flush()
        return self.stdout.buffer

    def wants(self, dest: str) -> bool:
        """Whether the output file `dest` (e.g. "json") was asked for."""
        return self.files.get(dest) is not None

    def path(self, dest: str) -> Path | None:
        return self.files.get(dest)

    def write(self, dest: str, content: str | bytes | Callable[[], str | bytes], what: str | None = None) -> None:
        """Write the output file `dest` when it was asked for (content may be a function, called only
        then), and say where it went."""
        path = self.files.get(dest)
        if path is not None:
            self.write_file(path, content() if callable(content) else content, what or KINDS.get(dest, dest))

    def document(self, document) -> None:
        """A command's answer drawn from one document (views/table.py's Document): its text printed (an
        empty one, nothing), its Markdown and JSON written to --markdown and --json where they were given, in
        the order the command declared them."""
        answer = document.text()
        if answer:
            self.print(answer)
        for dest in [dest for dest in self.files if dest in KINDS]:
            self.write(dest, getattr(document, dest))

    def claim(self, path: str | os.PathLike, what: str) -> Path:
        """A file the command writes that no option names (memory's companion): the same policy."""
        return claim(path, what)

    def write_file(self, path: Path, content: str | bytes, what: str = "", announce: bool = True) -> None:
        """Write a claimed file, and say where it went (unless stderr is itself an answer: dump's
        headers). Mode "x": a file that appeared since the claim is not overwritten either."""
        try:
            with open(path, "xb" if isinstance(content, bytes) else "x",
                      **({} if isinstance(content, bytes) else {"encoding": "utf-8"})) as file:
                file.write(content)
        except FileExistsError:
            raise UsageError(f"{path} appeared while the command ran; it is left as it was") from None
        if announce:
            self.say(f"{what}: {path}")


def load(command_module: str) -> ModuleType:
    """The command's module, imported now (a command's imports are paid only when it runs)."""
    name = "serialbench.commands." + command_module
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise UsageError(f"command {command_module!r} is not available in this version") from None


def make_parser(command: str, module: ModuleType) -> Parser:
    cli = Parser(command, module.DESCRIPTION, **getattr(module, "PARSER_OPTIONS", {}))
    module.arguments(cli)
    return cli


def parse(command: str, module: ModuleType, argv: list[str], out: Output):
    """The arguments, and the output files claimed: nothing is written over, and nothing has run."""
    cli = make_parser(command, module)
    cli.stdout = out.stdout
    args = cli.parse_args(argv)
    args.argv = list(argv)  # for a command that runs itself again (with --with's overlay)
    out.files = {dest: (claim(getattr(args, dest), flag, dest in getattr(cli, "folders", ()))
                        if getattr(args, dest, None) else None)
                 for dest, flag in cli.outputs.items()}
    return args


def main(command: str, module_name: str, argv: list[str], stdout: IO[str] | None = None,
         stderr: IO[str] | None = None) -> int:
    """Run one command in this process: its exit status, its usage errors as one line on stderr (2)."""
    out = Output(stdout, stderr)
    try:
        module = load(module_name)
        try:
            args = parse(command, module, argv, out)
        except SystemExit as exc:  # --help, or argparse's own exit
            return exc.code if isinstance(exc.code, int) else 0
        return module.run(args, out)
    except UsageError as exc:
        out.stderr.write(f"serialbench: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        out.stderr.write("serialbench: interrupted\n")
        return 130
