"""The composite action (action.yml) run as the runner runs it: its inputs' defaults and the `with:`
given, `${{ }}` expressions, each `run:` step in bash with GitHub's variables (GITHUB_STEP_SUMMARY,
GITHUB_OUTPUT, GITHUB_EVENT_PATH, ...) and the outputs one step gives the next, on a library whose
package sits in a folder of its repository (tests/toys.py), checked out as actions/checkout does: one
commit, the pull request's head, without its base, which the action fetches. Steps that `uses:` another
action (actions/cache) need the runner's services and are skipped, named. There is no network: the
comment goes to a fake `gh` on PATH that keeps the comments as GitHub's API would."""

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
import yaml

from tests.helpers import PROJECT_ROOT
from tests.toys import SLOW_AT, TOYSER_CASES, make_history_repo

pytestmark = pytest.mark.slow  # git, the action's bash steps, compare's workers
ACTION = yaml.safe_load((PROJECT_ROOT / "action.yml").read_text())
FOLDER = "python/toy"
BENCHMARK = "lib/toyser/float32/10K"
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}")

# gh api as the action calls it: list the pull request's comments (ids whose body holds the marker),
# add one, or edit one; each call logged, the comments kept in a JSON file.
FAKE_GH = '''#!{python}
import json, pathlib, sys
state = pathlib.Path({state!r})
comments = json.loads(state.read_text()) if state.exists() else {{}}
args = sys.argv[1:]
with open(state.with_suffix(".log"), "a") as log:
    log.write(" ".join(arg if not arg.startswith("body=@") else "body=@FILE" for arg in args) + "\\n")
if "--paginate" in args:
    marker = args[args.index("--jq") + 1].split('contains("')[1].split('")')[0]
    print("\\n".join(key for key, body in comments.items() if marker in body))
else:
    body = pathlib.Path(args[args.index("-F") + 1].removeprefix("body=@")).read_text()
    method, url = args[args.index("--method") + 1:args.index("--method") + 3]
    key = url.rsplit("/", 1)[1] if method == "PATCH" else str(1000 + len(comments))
    comments[key] = body
    state.write_text(json.dumps(comments))
'''


def evaluate(text, contexts):
    """`${{ a.b.c }}` replaced by its value; the action uses dotted names only, which this runner checks."""
    def value(match):
        words = match.group(1).strip()
        assert re.fullmatch(r"[\w.-]+", words), f"this test's runner evaluates dotted names only: {words}"
        found = contexts
        for word in words.split("."):
            found = found.get(word, "") if isinstance(found, dict) else ""
        return str(found)
    return EXPRESSION.sub(value, str(text))


def run_action(given, workspace, runner_temp, event, env):
    """Each step of action.yml as the runner would: (the log of each step, the step summary's text, the
    action's status)."""
    github = {"action_path": str(PROJECT_ROOT), "workspace": str(workspace), "token": "a-token",
              "event": event, "event_name": "pull_request", "repository": "owner/toylib"}
    inputs = {name: evaluate(spec.get("default", ""), {"github": github}) for name, spec in ACTION["inputs"].items()}
    assert not set(given) - set(inputs), "an input the action does not declare"
    inputs.update(given)
    event_path, summary = runner_temp / "event.json", runner_temp / "summary.md"
    event_path.write_text(json.dumps(event))
    base_env = {**env, "GITHUB_WORKSPACE": str(workspace), "GITHUB_ACTION_PATH": str(PROJECT_ROOT),
                "GITHUB_EVENT_PATH": str(event_path), "GITHUB_EVENT_NAME": "pull_request",
                "GITHUB_REPOSITORY": "owner/toylib", "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "feature", "RUNNER_TEMP": str(runner_temp),
                "RUNNER_OS": "Linux", "GITHUB_ACTIONS": "true", "CI": "true"}
    steps, logs = {}, []
    for index, step in enumerate(ACTION["runs"]["steps"]):
        if "uses" in step:
            logs.append((step["name"], f"skipped: {step['uses']} needs the runner's services"))
            continue
        assert "if" not in step, "a run step decides in its script: this runner evaluates no if:"
        contexts = {"inputs": inputs, "github": github, "steps": steps, "runner": {"temp": str(runner_temp)}}
        output = runner_temp / f"output-{index}"
        output.write_text("")
        script = runner_temp / f"step-{index}.sh"
        script.write_text(evaluate(step["run"], contexts))
        step_env = {**base_env, "GITHUB_OUTPUT": str(output),
                    **{name: evaluate(value, contexts) for name, value in step.get("env", {}).items()}}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                              env=step_env, capture_output=True, text=True, timeout=900)
        logs.append((step["name"], done.stdout + done.stderr))
        if "id" in step:
            steps[step["id"]] = {"outputs": dict(line.split("=", 1) for line in output.read_text().splitlines())}
        if done.returncode != 0:
            return logs, summary.read_text() if summary.exists() else "", done.returncode
    return logs, summary.read_text(), 0


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """toyser in python/toy of its repository; the workspace a clone of one commit, the head, as
    actions/checkout makes it; the base the commit before (the head copies the body three more times)."""
    root = tmp_path_factory.mktemp("action")
    shas = make_history_repo(root / "upstream", FOLDER)
    base, head = shas[SLOW_AT - 1], shas[SLOW_AT]
    workspace = root / "workspace"
    for command in (["init", "-q", str(workspace)], ["-C", str(workspace), "remote", "add", "origin",
                                                      f"file://{root / 'upstream'}"],
                    ["-C", str(workspace), "fetch", "-q", "--depth=1", "origin", head],
                    ["-C", str(workspace), "checkout", "-q", "--detach", "FETCH_HEAD"]):
        subprocess.run(["git", *command], check=True, capture_output=True)
    (root / "cases").mkdir()
    (root / "cases" / "lib.py").write_text(textwrap.dedent(TOYSER_CASES))
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH.format(python=sys.executable, state=str(root / "comments.json")))
    (bin_dir / "gh").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "XDG_CACHE_HOME": str(root / "cache"),
           "PIP_NO_INDEX": "1"}
    event = {"pull_request": {"number": 7, "base": {"sha": base, "ref": "main"}, "head": {"sha": head}}}
    return {"root": root, "workspace": workspace, "base": base, "head": head, "env": env, "event": event}


def test_the_base_commit_is_not_in_the_checkout_before_the_action_runs(library):
    done = subprocess.run(["git", "-C", str(library["workspace"]), "cat-file", "-e", f"{library['base']}^{{commit}}"],
                          capture_output=True)
    assert done.returncode != 0


def given(library, **more):
    return {"benchmarks": BENCHMARK, "working-directory": FOLDER, "install": "false", "python": sys.executable,
            "max-time": "5", "args": f"--cases {library['root'] / 'cases'} --min-effect 10", **more}


@pytest.mark.skipif(subprocess.run(["which", "valgrind"], capture_output=True).returncode != 0,
                    reason="valgrind is not installed (apt-get install valgrind); the counts mode needs it")
def test_the_action_gates_on_counts_writes_the_summary_and_one_comment_edited_in_place(library, tmp_path):
    temp = tmp_path / "runner"
    temp.mkdir()
    logs, summary, status = run_action(given(library, comment="true"), library["workspace"], temp, library["event"],
                                       library["env"])
    print(summary)  # the job summary as the runner shows it (pytest -s)
    log = dict(logs)
    assert status == 1, logs  # the head counts more instructions: the gate fails the step
    assert log["cache valgrind's .deb files"].startswith("skipped: actions/cache")
    assert f"fetching {library['base']} from origin" in log["compare"]
    assert summary.startswith(f"### serialbench ({FOLDER}): base {library['base'][:8]} against head "
                              f"{library['head'][:8]}\n\n#### instructions per op")
    row = next(line for line in summary.splitlines() if BENCHMARK in line)
    assert "more instructions" in row
    assert "comment added on pull request #7" in log["compare"]
    comments = json.loads((library["root"] / "comments.json").read_text())
    assert list(comments) == ["1000"] and comments["1000"].startswith(f"<!-- serialbench: {FOLDER} -->\n")

    # Pushed again, both modes, warn only: the same comment edited, the builds taken from the cache, the
    # times beside the counts, and the counts' gate a warning.
    again = tmp_path / "again"
    again.mkdir()
    logs, summary, status = run_action(given(library, comment="true", mode="both", **{"warn-only": "true"}),
                                       library["workspace"], again, library["event"], library["env"])
    print(summary)
    log = dict(logs)
    assert status == 0, logs
    counts, times = summary.split("#### time per op")
    assert "more instructions" in counts and "slower" in next(line for line in times.splitlines() if BENCHMARK in line)
    assert f"::warning title=serialbench::slower: {BENCHMARK}" in log["compare"]
    assert "building" not in log["compare"] and "fetching" not in log["compare"]
    assert "comment updated on pull request #7" in log["compare"]
    assert list(json.loads((library["root"] / "comments.json").read_text())) == ["1000"]
    calls = (library["root"] / "comments.log").read_text().splitlines()
    assert [call.split()[:3] for call in calls if "--method" in call] == [
        ["api", "--method", "POST"], ["api", "--method", "PATCH"]]


def test_a_run_without_a_base_is_one_line_and_exit_2(library, tmp_path):
    logs, summary, status = run_action(given(library, base=""), library["workspace"], tmp_path, {},
                                       library["env"])
    assert status == 2 and summary == ""
    assert dict(logs)["compare"].strip() == ("::error title=serialbench::base: no commit to compare against; run on "
                                            "pull_request (the base is the pull request's base commit) or give base")
