"""A commit that does not build (sides/commits.py): the cause in the build's own words, a remembered
failure that says it is remembered and how to build again, and a failure that the environment may
have caused (tritonclient's setup.py raises unless VERSION is set) built again once it changes."""

import subprocess
import sys
import textwrap

import pytest

from serialbench.sides import commits

# pip's output for a package whose setup.py raises, built through its pyproject.toml (PEP 517), as
# pip 24 prints it: pip's framing names the step that failed, the traceback's last line the cause.
PEP517_FAILURE = textwrap.dedent("""\
    Processing ./library
      Installing build dependencies: started
      Installing build dependencies: finished with status 'done'
      Getting requirements to build wheel: started
      Getting requirements to build wheel: finished with status 'error'
      error: subprocess-exited-with-error

      × Getting requirements to build wheel did not run successfully.
      │ exit code: 1
      ╰─> [19 lines of output]
          Traceback (most recent call last):
            File "/venv/lib/python3.11/site-packages/pip/_vendor/pyproject_hooks/_in_process/_in_process.py", line 353
              main()
            File "/tmp/pip-build-env-x/overlay/lib/python3.11/site-packages/setuptools/build_meta.py", line 317
              exec(code, locals())  # noqa: S102 # exec is intentional here
              ^^^^^^^^^^^^^^^^^^^^
            File "<string>", line 4, in <module>
          Exception: envvar VERSION must be specified
          [end of output]

      note: This error originates from a subprocess, and is likely not a problem with pip.
    error: subprocess-exited-with-error

    × Getting requirements to build wheel did not run successfully.
    │ exit code: 1
    ╰─> See above for output.

    note: This error originates from a subprocess, and is likely not a problem with pip.
    Getting requirements to build wheel: finished with status 'error'
    """)

SETUP = textwrap.dedent("""\
    import os

    from setuptools import setup

    if "VERSION" not in os.environ:  # as tritonclient's src/python/library/setup.py
        raise Exception("envvar VERSION must be specified")
    setup(name="toyver", version=os.environ["VERSION"], py_modules=["toyver"])
    """)


def test_the_cause_is_the_exception_the_build_raised_not_the_step_pip_names():
    assert commits.cause(PEP517_FAILURE) == "Exception: envvar VERSION must be specified"


def test_a_compiler_error_still_comes_before_the_exception_that_reports_it():
    output = ("x.c:3:10: fatal error: Python.h: No such file or directory\n"
              "error: command '/usr/bin/gcc' failed with exit code 1\n"
              "subprocess.CalledProcessError: Command 'gcc' returned non-zero exit status 1.\n")
    assert commits.cause(output) == "x.c:3:10: fatal error: Python.h: No such file or directory"


def test_the_environments_fingerprint_follows_its_variables_not_the_shells_own(monkeypatch):
    before = commits.environment_fingerprint()
    monkeypatch.setenv("PWD", "/somewhere/else")
    monkeypatch.setenv("SHLVL", "7")
    assert commits.environment_fingerprint() == before
    monkeypatch.setenv("VERSION", "2.50.0")
    assert commits.environment_fingerprint() != before


@pytest.fixture
def toyver(tmp_path, monkeypatch):
    """A commit of a library whose package, in a folder of its repository, builds only with VERSION set."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.delenv("VERSION", raising=False)
    library = tmp_path / "client" / "src" / "python" / "library"
    library.mkdir(parents=True)
    (library / "setup.py").write_text(SETUP)
    (library / "toyver.py").write_text("X = 1\n")
    for command in (["init", "-q"], ["add", "."],
                    ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "toyver"]):
        subprocess.run(["git", "-C", str(tmp_path / "client"), *command], check=True)
    return commits.commit_of(f"{library}@HEAD")


@pytest.mark.slow
def test_a_failure_says_why_is_remembered_as_such_and_is_built_again_once_the_environment_changes(toyver,
                                                                                                  monkeypatch):
    said = []
    with pytest.raises(commits.BuildFailed) as first:
        commits.wheel(toyver, sys.executable, commits.DECLARED_ONLY, said.append)
    assert first.value.why == "does not build: Exception: envvar VERSION must be specified"
    assert len(said) == 1 and said[0].startswith("building ")

    with pytest.raises(commits.BuildFailed) as again:
        commits.wheel(toyver, sys.executable, commits.DECLARED_ONLY, said.append)
    assert len(said) == 1  # nothing built: the failure is remembered, and says so
    assert again.value.why == first.value.why  # what a result file records
    assert str(again.value).startswith(f"commit {toyver.label} does not build: Exception: envvar VERSION must be "
                                       "specified (remembered: it failed so in this environment at ")
    (entry,) = (commits.builds_root()).iterdir()
    assert str(again.value).endswith(f"; remove {entry} to build it again)")

    monkeypatch.setenv("VERSION", "2.50.0")
    made = commits.wheel(toyver, sys.executable, commits.DECLARED_ONLY, said.append)
    assert made.name == "toyver-2.50.0-py3-none-any.whl"
    assert said[1] == (f"{toyver.label}: building again, the environment's variables changed since it failed "
                       "(does not build: Exception: envvar VERSION must be specified)")
    assert commits.wheel(toyver, sys.executable, commits.DECLARED_ONLY, said.append) == made  # cached
