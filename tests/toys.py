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


# A library whose later version calls one more function per op, which makes the extra copy: what
# compare --explain must name as the top mover.
CALLING_LIBRARY = '''
def encode(array):
    body = array.tobytes()
    for _ in range({extra}):
        body = padded(body)
    return body


def padded(body):
    return bytes(bytearray(body))
'''


def make_wheel(directory, version, extra_copies, source=LIBRARY):
    """toylib-VERSION-py3-none-any.whl, written by hand (a wheel is a zip with its metadata)."""
    path = directory / f"toylib-{version}-py3-none-any.whl"
    info = f"toylib-{version}.dist-info"
    files = {
        "toylib/__init__.py": textwrap.dedent(source.format(extra=extra_copies)),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: toylib\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
    return path


def repacked_wheel(distribution, directory):
    """A wheel of a distribution installed in this environment, zipped from its installed files (its
    RECORD lists them): pip installs it elsewhere with no index, as a downloaded wheel."""
    from importlib import metadata

    found = metadata.distribution(distribution)
    tag = next(line.split(":", 1)[1].strip() for line in found.read_text("WHEEL").splitlines()
               if line.startswith("Tag:"))
    path = directory / f"{found.metadata['Name'].replace('-', '_')}-{found.version}-{tag}.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as wheel:
        for file in found.files:
            if file.suffix != ".pyc" and not str(file).startswith("..") and file.locate().is_file():  # no scripts
                wheel.write(file.locate(), str(file))
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


# A library's git history (make_history_repo): toyser, built by an in-tree PEP 517 backend that
# needs nothing installed (a test builds offline). Like Cython's .c file, the backend generates a
# git-ignored module once and reuses it when present: a build that shared a checkout with another
# commit's would carry that commit's value.
BACKEND = '''
import os
import pathlib
import zipfile


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    {broken}
    version = pathlib.Path("VERSION").read_text().strip()
    generated = pathlib.Path("toyser", "_generated.py")
    if not generated.exists():
        generated.write_text(f"MADE_AT = {pathlib.Path('REVISION').read_text().strip()!r}\\n")
    name, info = f"toyser-{version}-py3-none-any.whl", f"toyser-{version}.dist-info"
    files = {str(path): path.read_bytes() for path in sorted(pathlib.Path("toyser").glob("*.py"))}
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\\nName: toyser\\nVersion: {version}\\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: toy\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    files[f"{info}/RECORD"] = "".join(f"{n},,\\n" for n in [*files, f"{info}/RECORD"]).encode()
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as wheel:
        for item, data in files.items():
            wheel.writestr(item, data)
    return name
'''
BROKEN = 'raise RuntimeError("toyser needs a C compiler: cc not found")'
TOYSER = LIBRARY  # the same encode, its copies per op at each commit
TOYSER_CASES = LIBRARY_CASES.replace("toylib", "toyser")  # lib/toyser and lib/plain
HISTORY = 20  # commits on the first-parent line
SLOW_AT, BROKEN_AT, MERGE_AT = 14, 9, 5  # the commit that adds three copies per op; one that does not build; a merge


def commit_all(repo, message, *extra):
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", message, *extra)
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def write_toyser(repo, index, extra, broken=False):
    (repo / "backend.py").write_text(textwrap.dedent(BACKEND).replace("{broken}", BROKEN if broken else "pass"))
    (repo / "toyser" / "__init__.py").write_text(textwrap.dedent(TOYSER.format(extra=extra)))
    (repo / "REVISION").write_text(f"{index}\n")


def make_history_repo(repo, folder=""):
    """toyser's history: HISTORY commits on main; the commit at SLOW_AT makes encode copy the
    tensor three more times per op, the one at BROKEN_AT does not build, the one at MERGE_AT merges
    a branch of two commits. With `folder` ('python/toy'), a monorepo: the package sits in that
    folder, files above it are not the package (a README, a server's code), every package commit
    touches one of them too, and a commit that touches only them follows each package commit.
    Returns the first-parent shas of the commits that change the package, oldest first."""
    package = repo / folder if folder else repo
    (package / "toyser").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (package / ".gitignore").write_text("toyser/_generated.py\n")
    (package / "VERSION").write_text("1.0\n")
    (package / "pyproject.toml").write_text('[build-system]\nrequires = []\nbuild-backend = "backend"\n'
                                            'backend-path = ["."]\n\n[project]\nname = "toyser"\nversion = "1.0"\n')
    if folder:
        (repo / "server").mkdir()
        (repo / "README.md").write_text("a monorepo: the Python package is in " + folder + "\n")
    shas = []
    for index in range(HISTORY):
        extra = 3 if index >= SLOW_AT else 0
        if index == MERGE_AT:
            git(repo, "checkout", "-q", "-b", "side")
            for step in range(2):
                (package / f"notes-{step}.txt").write_text(f"side {step}\n")
                commit_all(repo, f"side branch, note {step}")
            git(repo, "checkout", "-q", "main")
            git(repo, "-c", "user.name=test", "-c", "user.email=test@example.com", "merge", "-q", "--no-ff",
                "-m", f"revision {index}: merge the side branch", "side")
            shas.append(subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                                       check=True).stdout.strip())
            continue
        write_toyser(package, index, extra, broken=index == BROKEN_AT)
        if folder:
            (repo / "server" / "main.go").write_text(f"package main // {index}\n")
        subject = {SLOW_AT: "encode: copy the body three more times", BROKEN_AT: "build: needs a C compiler"}
        shas.append(commit_all(repo, f"revision {index}: {subject.get(index, 'tidy')}"))
        if folder:
            (repo / "server" / "notes.md").write_text(f"server notes {index}\n")
            commit_all(repo, f"server: notes {index}")
    return shas


