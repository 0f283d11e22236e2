"""The worker protocol's version and the side API: what the worker says in its hello, what it refuses,
and how it reads a side whose serialbench is older than the worker API (its one named adapter)."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from serialbench.inside import side_api
from serialbench.inside import worker as timing_worker
from tests.helpers import PROJECT_ROOT

# The module the worker loads by path: this serialbench's, a checkout's or the installed wheel's.
SIDE_API = Path(side_api.__file__)
# The newest revision before the worker API: its serialbench is the adapter's layout.
BEFORE_WORKER_API = "5954280"


def load_in(package_root: Path, then: str = "", isolated: bool = True) -> dict:
    """side_api.load() in a fresh interpreter whose serialbench is package_root's; its name or refusal.
    Isolated (-S: no site-packages), no editable install's import hook can lend it this serialbench's
    modules; a real revision needs site-packages for numpy and the cases' libraries."""
    script = textwrap.dedent(f"""
        import importlib.util, json
        spec = importlib.util.spec_from_file_location("side_api", {str(SIDE_API)!r})
        side_api = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(side_api)
        try:
            api = side_api.load()
            answer = {{"name": side_api.name(api)}}
            {then}
        except side_api.SideRefused as exc:
            answer = {{"refused": str(exc)}}
        print(json.dumps(answer))
    """)
    done = subprocess.run([sys.executable, "-P", *(["-S"] if isolated else []), "-c", script],
                          env={"PYTHONPATH": str(package_root)},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def old_layout(root: Path, prepare_signature: str, prepared_fields: str = "op, first_call") -> Path:
    """A serialbench package in the catalog layout, with registry.prepare of the given signature and a
    Prepared record of the given fields."""
    catalog = root / "serialbench" / "catalog"
    core = root / "serialbench" / "core"
    catalog.mkdir(parents=True)
    core.mkdir()
    for package in (root / "serialbench", catalog, core):
        (package / "__init__.py").write_text("")
    (core / "errors.py").write_text("class UsageError(Exception):\n    pass\n")
    (catalog / "inputs.py").write_text("TIERS = {'1K': 1000}\nINPUT_KINDS = ('float32',)\n")
    fields = "".join(f"\n            {field}: object" for field in prepared_fields.split(", "))
    (catalog / "registry.py").write_text(textwrap.dedent(f"""
        from dataclasses import dataclass

        @dataclass
        class Prepared:{fields}

        class CaseFailed(Exception):
            pass

        def select(case_dirs, patterns, tiers, inputs, warn, payloads=()):
            return [], []

        def select_named(case_dirs, names, payloads=()):
            return [], []

        def prepare({prepare_signature}):
            return "prepared"

        def benchmark_metadata(bench, prepared):
            return {{}}
    """))
    return root


def test_this_serialbench_speaks_the_worker_api_the_worker_speaks():
    from serialbench.catalog import worker_api

    assert worker_api.VERSION in side_api.SPOKEN
    assert side_api.name(side_api.load()) == f"worker API {worker_api.VERSION}"


@pytest.mark.slow
def test_a_side_from_just_before_the_worker_api_is_read_by_the_named_adapter(tmp_path):
    root = old_layout(tmp_path, "bench, cases, check=True, clock=None")
    found = load_in(root, then="answer['prepared'] = api.prepare(None, [], False, None)")
    assert found == {"name": side_api.ADAPTER, "prepared": "prepared"}


@pytest.mark.slow
def test_an_older_side_is_refused_in_one_line(tmp_path):
    no_clock = old_layout(tmp_path / "no-clock", "bench, cases, check=True", prepared_fields="op")
    refused = load_in(no_clock)["refused"]
    assert "predates the worker API" in refused and "clock" in refused and "\n" not in refused
    (tmp_path / "flat" / "serialbench").mkdir(parents=True)  # from before the package had layers
    (tmp_path / "flat" / "serialbench" / "__init__.py").write_text("")
    refused = load_in(tmp_path / "flat")["refused"]
    assert "has no worker API" in refused and "\n" not in refused


@pytest.mark.slow
def test_a_side_that_speaks_a_newer_worker_api_is_refused(tmp_path):
    root = old_layout(tmp_path, "bench, cases, check, clock")
    (root / "serialbench" / "catalog" / "worker_api.py").write_text("VERSION = 99\n")
    assert "speaks worker API 99" in load_in(root)["refused"]


@pytest.mark.slow
def test_the_adapter_reads_the_real_revision_before_the_worker_api(tmp_path):
    # The adapter's range starts at that layout: the project's own history holds a revision of it.
    found = subprocess.run(["git", "-C", str(PROJECT_ROOT), "archive", BEFORE_WORKER_API, "serialbench", "cases"],
                           capture_output=True)
    if found.returncode != 0:
        pytest.skip(f"the clone has no {BEFORE_WORKER_API} (a shallow clone): {found.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=found.stdout, check=True)
    then = ("b, c = api.select_named([], ['baseline/tobytes/float32/1K'], []); "
            "answer['loops'] = bool(api.prepare(b[0], c, True, lambda: 0.0).op); "
            "answer['metadata'] = api.metadata(b[0], api.prepare(b[0], c, False, None))['serialbench_tier']")
    assert load_in(tmp_path, then, isolated=False) == {"name": side_api.ADAPTER, "loops": True, "metadata": "1K"}


def test_the_hello_names_the_protocol_and_the_side_s_api():
    said = timing_worker.hello(side_api.load(), ["numpy"])
    assert said["protocol"] == side_api.PROTOCOL and said["side_api"].startswith("worker API ")
    assert said["versions"]["numpy"]


def test_a_request_must_name_every_key_of_the_protocol_and_no_other(tmp_path):
    worker = timing_worker.Worker([str(tmp_path)])
    missing = timing_worker.answer(worker, {"do": "prepare", "name": "x", "slot": 0})
    assert missing["error"].startswith(f"protocol {side_api.PROTOCOL}: 'prepare' takes name, slot, loops")
    unknown = timing_worker.answer(worker, {"do": "release", "rewarm": 1})
    assert "'release' takes nothing, not rewarm" in unknown["error"]
    assert "unknown request 'sample'" in timing_worker.answer(worker, {"do": "sample"})["error"]
    assert timing_worker.answer(worker, {"do": "release"}) == {}


def test_a_coordinator_refuses_a_worker_of_another_protocol_or_a_refused_side():
    from serialbench.core.errors import UsageError
    from serialbench.measure.process import check_hello
    from serialbench.sides.sides import Side

    side = Side("BASE", PROJECT_ROOT, own_serialbench=False)
    with pytest.raises(UsageError, match="speaks protocol 0"):
        check_hello(side, {"protocol": 0})
    with pytest.raises(UsageError, match="BASE .* cannot be timed: its serialbench has no worker API"):
        check_hello(side, {"protocol": side_api.PROTOCOL, "refused": "its serialbench has no worker API"})
