"""cache list / cache prune on a cache of hand-made overlays (manifests and files of known sizes)."""

import json
import os
import subprocess
import sys
import time

import pytest

from serialbench.sides import overlays
from tests.helpers import PROJECT_ROOT, assert_one_line_usage_error

DAY = 86400


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """Three overlays (used 30, 3 and 0 days ago, 3, 2 and 1 MB) and an install cut short."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    root = overlays.cache_root()
    now = time.time()
    for key, spec, days, megabytes in (("aaaa", "msgpack==1.0.8", 30, 3), ("bbbb", "orjson==3.9.15", 3, 2),
                                       ("cccc", "./msgpack-1.1.2", 0, 1)):
        directory = root / key
        directory.mkdir(parents=True)
        (directory / "blob.so").write_bytes(bytes(megabytes * 1_000_000))
        name, _, version = spec.partition("==")
        manifest = directory / overlays.MANIFEST
        manifest.write_text(json.dumps({"specs": [spec], "installed": [f"{name} {version or '1.1.2'}"],
                                        "python": "3.11.7"}))
        os.utime(manifest, (now - days * DAY, now - days * DAY))
    cut_short = root / "dddd-x1y2"
    cut_short.mkdir()
    os.utime(cut_short, (now - 2 * DAY, now - 2 * DAY))
    return root


def serialbench(*args, env):
    return subprocess.run([sys.executable, "-m", "serialbench", "cache", *args], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, env={**os.environ, **env})


@pytest.mark.slow
def test_list_shows_size_specs_and_last_use_most_recent_first(cache, tmp_path):
    done = serialbench("list", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["kind", "directory", "size", "last", "used", "python", "installed", "specs"]
    assert [line.split()[:2] for line in lines[1:5]] == [["overlay", name] for name in ("cccc", "dddd-x1y2", "bbbb",
                                                                                         "aaaa")]
    assert lines[4].split()[2:7] == ["3.00", "MB", "30", "days", "ago"]
    assert "an install cut short" in lines[2]
    assert lines[-1].startswith("4 overlays, 6.00 MB")


def test_prune_by_age_removes_the_unused_and_what_was_cut_short(cache):
    doomed = overlays.to_prune(overlays.cached_overlays(), keep_days=7, max_bytes=None)
    assert [item.directory.name for item in doomed] == ["aaaa", "dddd-x1y2"]


@pytest.mark.slow
def test_prune_to_a_size_removes_the_least_recently_used_first(cache, tmp_path):
    done = serialbench("prune", "--max-size", "3.5", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in cache.iterdir()) == ["bbbb", "cccc"]
    assert done.stdout.splitlines()[-1] == "2 of 4 overlays removed (3.00 MB); 3.00 MB kept"


@pytest.mark.slow
def test_a_dry_run_removes_nothing(cache, tmp_path):
    done = serialbench("prune", "--all", "--dry-run", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert done.stdout.count("would remove") == 4
    assert len(list(cache.iterdir())) == 4


@pytest.mark.slow
def test_an_overlay_in_use_is_touched_so_prune_keeps_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    key = overlays.overlay_key(["toylib==1.0"], overlays.interpreter_identity(sys.executable))
    directory = overlays.cache_root() / key
    directory.mkdir(parents=True)
    (directory / overlays.MANIFEST).write_text(json.dumps({"specs": ["toylib==1.0"], "installed": ["toylib 1.0"]}))
    os.utime(directory / overlays.MANIFEST, (0, 0))
    assert overlays.overlay(["toylib==1.0"], sys.executable, print)[2] is False  # cached: nothing installed
    assert overlays.to_prune(overlays.cached_overlays(), keep_days=1, max_bytes=None) == []


@pytest.mark.slow
@pytest.mark.parametrize("args", [["prune"], [], ["prune", "--keep-days", "x"], ["clean"]])
def test_prune_without_a_rule_and_bad_input_are_one_line(args):
    done = subprocess.run([sys.executable, "-m", "serialbench", "cache", *args], cwd=PROJECT_ROOT,
                          capture_output=True)
    assert_one_line_usage_error(done)
