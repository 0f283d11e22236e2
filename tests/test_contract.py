"""The command contract (serialbench/commands/contract.py): every command is declared the same way,
every file it writes is claimed before any work, and the program runs as a function in this process."""

import importlib

import pytest

from serialbench.__main__ import COMMANDS
from serialbench.commands import contract
from tests.helpers import in_process

FILE_OPTIONS = ("--json", "--markdown", "--plot", "-o")


def parser_of(command: str):
    return contract.make_parser(command, importlib.import_module("serialbench.commands." + COMMANDS[command][0]))


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "run"])
def test_every_command_declares_its_arguments_and_runs_with_an_output(command):
    module = importlib.import_module("serialbench.commands." + COMMANDS[command][0])
    assert module.DESCRIPTION and callable(module.arguments) and callable(module.run)


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "run"])
def test_every_file_a_command_writes_is_a_declared_output(command):
    cli = parser_of(command)
    flags = {flag: action.dest for action in cli._actions for flag in action.option_strings}
    for flag in FILE_OPTIONS:
        if flag in flags:
            assert flags[flag] in cli.outputs, f"{command} {flag} is not declared with add_output"


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "run"])
def test_help_goes_to_the_commands_stdout(command):
    done = in_process(command, "--help")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith(f"usage: python -m serialbench {command}")


def test_an_existing_output_is_refused_before_the_command_runs(tmp_path, monkeypatch):
    taken = tmp_path / "taken.json"
    taken.write_text("kept")
    report = importlib.import_module("serialbench.commands.report")
    monkeypatch.setattr(report, "run", lambda args, out: pytest.fail("the command ran"))
    done = in_process("report", "no-such-file.json", "--json", taken)
    assert done.returncode == 2 and taken.read_text() == "kept"
    assert done.stderr == f"serialbench: error: --json {taken} exists and is never overwritten; give a new name, " \
                          "or remove it first\n"


def test_an_output_in_a_directory_that_does_not_exist_is_refused(tmp_path):
    done = in_process("verify", "--json", tmp_path / "nowhere" / "out.json")
    assert done.returncode == 2 and "does not exist" in done.stderr


def test_a_usage_error_is_one_line_and_exit_status_2():
    done = in_process("report", "a.json", "b.json", "c.json")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "serialbench: error: report takes one result file or two (BASE NEW), not 3\n"


def test_an_unknown_command_is_one_line():
    done = in_process("nope")
    assert done.returncode == 2 and done.stderr.startswith("serialbench: error: unknown command 'nope'; accepted: run,")


def test_an_output_is_written_only_when_asked_and_said_on_stderr(tmp_path):
    import io

    out = contract.Output(io.StringIO(), io.StringIO(), {"json": tmp_path / "a.json", "markdown": None})
    out.write("json", lambda: "{}\n")
    out.write("markdown", lambda: pytest.fail("built although not asked for"))
    assert (tmp_path / "a.json").read_text() == "{}\n"
    assert out.stderr.getvalue() == f"JSON: {tmp_path / 'a.json'}\n" and out.stdout.getvalue() == ""


def test_a_folder_output_may_exist_when_it_is_empty(tmp_path):
    assert contract.claim(tmp_path, "-o", folder=True) == tmp_path
    (tmp_path / "page.html").write_text("old")
    with pytest.raises(contract.UsageError, match="exists and is never overwritten"):
        contract.claim(tmp_path, "-o", folder=True)
    with pytest.raises(contract.UsageError, match="exists and is never overwritten"):
        contract.claim(tmp_path / "page.html", "-o", folder=True)
