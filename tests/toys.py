"""Throwaway things the tests build: a git repository of toy cases at two revisions, and a toy
library as local wheels at several versions. The fixtures that make them are in tests/conftest.py."""

import subprocess
import textwrap
import zipfile

# A case module at two revisions: HEAD~1 copies the array once per op, HEAD four times.
CASE_MODULE = '''
from serialbench.case import Case


def steady(payload):
    return payload.tensors[0].value.tobytes


def grows(payload):
    array = payload.tensors[0].value

    def op():
        {body}

    return op


CASES = [
    Case("toy", "steady", ("float32",), steady),
    Case("toy", "grows", ("float32",), grows),
]
'''
ONE_COPY = "return array.tobytes()"
FOUR_COPIES = "array.tobytes(); array.tobytes(); array.tobytes(); return array.tobytes()"


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def commit_cases(repo, body, message):
    (repo / "cases" / "toy.py").write_text(textwrap.dedent(CASE_MODULE).replace("{body}", body))
    git(repo, "add", "cases/toy.py")
    git(repo, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", message)


def make_toy_repo(repo):
    (repo / "cases").mkdir()
    git(repo, "init", "-q")
    commit_cases(repo, ONE_COPY, "one copy per op")
    commit_cases(repo, FOUR_COPIES, "four copies per op")
    return repo


# A library whose versions differ in how many extra copies its encode makes, and cases that use it.
LIBRARY = '''
def encode(array):
    body = array.tobytes()
    for _ in range({extra}):
        body = bytes(bytearray(body))
    return body
'''
LIBRARY_CASES = '''
from serialbench.case import Case


def encoded(payload):
    import toylib

    array = payload.tensors[0].value
    return lambda: toylib.encode(array)


def plain(payload):
    return payload.tensors[0].value.tobytes


CASES = [
    Case("lib", "toylib", ("float32",), encoded, requires=("toylib",), libraries=("toylib",)),
    Case("lib", "plain", ("float32",), plain),
]
'''
# The sweep's releases: v1 and v2 equal, v3 doing clearly more work, v4 equal to v3.
RELEASES = {"1.0": 0, "2.0": 0, "3.0": 3, "4.0": 3}  # extra copies of the tensor per op


def make_wheel(directory, version, extra_copies):
    """toylib-VERSION-py3-none-any.whl, written by hand (a wheel is a zip with its metadata)."""
    path = directory / f"toylib-{version}-py3-none-any.whl"
    info = f"toylib-{version}.dist-info"
    files = {
        "toylib/__init__.py": textwrap.dedent(LIBRARY.format(extra=extra_copies)),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: toylib\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
    return path


def broken_wheel(directory, version):
    """A release whose import fails as protobuf 4.25.9 fails under newer generated code."""
    path = make_wheel(directory, version, 0)
    rewritten = directory / "rewritten.whl"
    with zipfile.ZipFile(path) as old, zipfile.ZipFile(rewritten, "w") as new:
        for item in old.infolist():
            text = old.read(item.filename)
            new.writestr(item, b"from json import runtime_version\n" if item.filename == "toylib/__init__.py" else text)
    rewritten.replace(path)
    return path
