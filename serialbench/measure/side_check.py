"""Before any timing: can this side run each selected benchmark, and which library versions does it import?

Started by measure/side_setup.py as `PYTHON -P side_check.py CONFIG` in a side's environment (its
overlay and its serialbench first on PYTHONPATH), like compare's lockstep worker, whose helpers
it loads by path so that it reads a side's serialbench in either layout. For each selected case
and input it prepares the benchmark once at the smallest tier: that imports the case's libraries
and its generated code (where a protobuf too old or too new for the gencode fails), builds the op
and checks the round trip, as the first round would, in milliseconds. It prints one JSON line:
{"failed": {name: cause}, "libraries": [the selected cases' distributions], "versions": {distribution:
version}, "python": version}.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path


def load_worker():
    path = Path(__file__).with_name("lockstep_worker.py")
    spec = importlib.util.spec_from_file_location("serialbench_lockstep", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cause(exc: BaseException, name: str) -> str:
    """The error's first line without the benchmark's name that CaseFailed puts in front."""
    text = f"{type(exc).__name__}: {exc}".splitlines()[0]
    if type(exc).__name__ == "CaseFailed":
        text = str(exc).splitlines()[0]
    prefix = name.rsplit("/", 1)[0] + "/"
    if text.startswith(prefix):  # "fmt/impl/input/1K: ImportError: ..." -> "ImportError: ..."
        text = text.split(": ", 1)[-1]
    return text


def check(names, case_dirs, worker_module, payloads=()) -> tuple[dict[str, str], list[str]]:
    """The cause of each benchmark that fails to prepare, and the selected cases' distributions.
    A payload's benchmark is prepared at its own size: it has no other."""
    registry, _, inputs = worker_module.side_api()
    worker = worker_module.Worker(case_dirs, payloads=payloads)
    smallest = list(inputs.TIERS)[0]
    failed: dict[str, str] = {}
    libraries: dict[str, None] = {}
    tried: dict[str, str | None] = {}  # FORMAT/IMPL/INPUT -> its cause, or None when it prepares
    for name in names:
        group = name.rsplit("/", 1)[0]
        libraries.update(dict.fromkeys(getattr(worker.find(name)[0].case, "libraries", ())))
        if group not in tried:
            try:
                kind = name.split("/")[2]
                bench, cases = worker.find(f"{group}/{smallest}" if kind in inputs.INPUT_KINDS else name)
                worker_module.prepare_benchmark(registry, bench, cases, True)
                tried[group] = None
            except Exception as exc:  # noqa: BLE001 - every failure is a cause to report, not fatal
                tried[group] = cause(exc, name)
        if tried[group] is not None:
            failed[name] = tried[group]
    return failed, list(libraries)


def main() -> None:
    config = json.loads(sys.argv[1])
    reply = os.fdopen(os.dup(1), "w")  # what a case prints goes to stderr; the answer to stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    worker_module = load_worker()
    failed, libraries = check(config["names"], config["case_dirs"], worker_module, config.get("payloads", ()))
    versions = worker_module.distribution_versions(dict.fromkeys([*config["distributions"], *libraries]))
    reply.write(json.dumps({"failed": failed, "libraries": libraries, "versions": versions,
                            "python": sys.version.split()[0]}) + "\n")
    reply.flush()
    sys.stderr.flush()
    os._exit(0)  # no teardown (TensorFlow's takes a third of a second)


if __name__ == "__main__":
    main()
