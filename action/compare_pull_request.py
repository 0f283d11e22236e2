"""The serialbench action's work (action.yml runs it): a pull request's base commit against its head,
for the library's package in its repository; the job summary; one pull-request comment, kept up to
date in place.

The inputs come as environment variables (action.yml sets them from its inputs): SERIALBENCH_BENCHMARKS
(-b globs, one a line or separated by spaces), SERIALBENCH_DIRECTORY (the package's folder in the
repository), SERIALBENCH_MODE (counts, time, or both: counts gate and times inform), SERIALBENCH_FAIL_ON
(slower, changed), SERIALBENCH_WARN_ONLY, SERIALBENCH_MAX_TIME (minutes a compare may take),
SERIALBENCH_COMMENT, SERIALBENCH_ARGS (more compare options), SERIALBENCH_BASE, SERIALBENCH_HEAD,
SERIALBENCH_PYTHON; and GitHub's own: GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT,
GITHUB_EVENT_PATH, GITHUB_REPOSITORY, RUNNER_TEMP.

Both sides are commits of the library (`compare --base-with PACKAGE@BASE --head-with PACKAGE@HEAD`),
each built into a wheel from a clean export of its folder and cached (~/.cache/serialbench/builds,
which action.yml keeps between runs), so the base is built once per base commit. Only the standard
library: it runs in the runner's Python before and beside serialbench's venv.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

MODES = {"counts": ["counts"], "time": ["time"], "both": ["counts", "time"]}
TITLES = {"counts": "instructions per op (callgrind: the same on every run of a commit)", "time": "time per op"}
BESIDE = " (information beside the counts, not a gate: a hosted runner's speed moves)"


class Refused(Exception):
    """Bad input or a missing base: one line, exit status 2, as serialbench's own usage errors."""


def git(directory: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(["git", "-C", str(directory), *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise Refused(f"git {' '.join(args)}: {last_line(done.stderr)}")
    return done


def commit_here(directory: Path, revision: str) -> str:
    """The commit's full sha, fetched from origin first when the checkout does not hold it (actions/checkout
    fetches one commit: the pull request's merge commit, not its base)."""
    if git(directory, "cat-file", "-e", f"{revision}^{{commit}}", check=False).returncode != 0:
        print(f"fetching {revision} from origin (git fetch --depth=1)", flush=True)
        git(directory, "fetch", "--quiet", "--no-tags", "--depth=1", "origin", revision)
    return git(directory, "rev-parse", "--verify", f"{revision}^{{commit}}").stdout.strip()


def compare_argv(env: dict, package: Path, base: str, head: str, mode: str, markdown: Path, result: Path) -> list:
    benchmarks = env.get("SERIALBENCH_BENCHMARKS", "").split()
    if not benchmarks:
        raise Refused("benchmarks: give at least one -b glob (e.g. 'msgpack/*')")
    argv = [env.get("SERIALBENCH_PYTHON") or sys.executable, "-m", "serialbench", "compare",
            "--base-with", f"{package}@{base}", "--head-with", f"{package}@{head}",
            *(word for glob in benchmarks for word in ("-b", glob)),
            "--max-time", env.get("SERIALBENCH_MAX_TIME") or "10", "--markdown", str(markdown), "--json", str(result),
            *shlex.split(env.get("SERIALBENCH_ARGS", ""))]
    if mode == "counts":
        argv.append("--instructions")
    if mode == "counts" or env.get("SERIALBENCH_MODE") == "time":  # the gate: the counts', or the times' alone
        argv += ["--fail-on", env.get("SERIALBENCH_FAIL_ON") or "slower"]
    return argv


def pull_request_number(env: dict) -> int | None:
    try:
        event = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text())
    except (KeyError, OSError, ValueError):
        return None
    return (event.get("pull_request") or {}).get("number")


def comment(env: dict, marker: str, body: Path) -> str:
    """Write the pull request's one serialbench comment for this package: edit the comment that holds
    the marker, or add it. Returns what was done, for the log."""
    number = pull_request_number(env)
    if number is None:
        return "no comment: the event is not a pull request"
    repository = env.get("GITHUB_REPOSITORY", "")
    listed = subprocess.run(["gh", "api", "--paginate", f"repos/{repository}/issues/{number}/comments",
                             "--jq", f'.[] | select(.body | contains("{marker}")) | .id'],
                            capture_output=True, text=True)
    if listed.returncode != 0:
        return f"no comment: gh api could not list the comments ({last_line(listed.stderr)})"
    ids = listed.stdout.split()
    if ids:
        call = ["--method", "PATCH", f"repos/{repository}/issues/comments/{ids[0]}"]
    else:
        call = ["--method", "POST", f"repos/{repository}/issues/{number}/comments"]
    done = subprocess.run(["gh", "api", *call, "-F", f"body=@{body}"], capture_output=True, text=True)
    if done.returncode != 0:  # a pull request from a fork gets a read-only token
        return f"no comment: gh api could not write it ({last_line(done.stderr)})"
    return f"comment {'updated' if ids else 'added'} on pull request #{number}"


def last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else "no output"


def main(env: dict) -> int:
    mode = env.get("SERIALBENCH_MODE") or "counts"
    if mode not in MODES:
        raise Refused(f"mode: {mode!r}; give counts, time or both")
    if env.get("SERIALBENCH_FAIL_ON", "slower") not in ("slower", "changed", ""):
        raise Refused(f"fail-on: {env['SERIALBENCH_FAIL_ON']!r}; give slower or changed")
    workspace = Path(env.get("GITHUB_WORKSPACE") or ".")
    folder = env.get("SERIALBENCH_DIRECTORY") or "."
    package = (workspace / folder).resolve()
    if not package.is_dir():
        raise Refused(f"working-directory: {folder} is not a folder of {workspace}")
    if not env.get("SERIALBENCH_BASE"):
        raise Refused("base: no commit to compare against; run on pull_request (the base is the pull request's "
                      "base commit) or give base")
    base = commit_here(package, env["SERIALBENCH_BASE"])
    head = commit_here(package, env.get("SERIALBENCH_HEAD") or "HEAD")
    work = Path(env.get("RUNNER_TEMP") or "/tmp") / "serialbench"
    work.mkdir(parents=True, exist_ok=True)
    runs = []
    for kind in MODES[mode]:
        markdown, result = work / f"{kind}-{head[:8]}.md", work / f"{kind}-{head[:8]}.json"
        for path in (markdown, result):  # compare never overwrites a file: a re-run of the job starts afresh
            path.unlink(missing_ok=True)
        argv = compare_argv(env, package, base, head, kind, markdown, result)
        print(f"::group::serialbench {kind}: {shlex.join(argv[1:])}", flush=True)
        status = subprocess.run(argv, cwd=work).returncode
        print("::endgroup::", flush=True)
        runs.append((kind, status, markdown, result))

    marker = f"<!-- serialbench: {folder} -->"
    where = "" if folder == "." else f" ({folder})"
    parts = [marker, f"### serialbench{where}: base {base[:8]} against head {head[:8]}", ""]
    for kind, status, markdown, _ in runs:
        parts += [f"#### {TITLES[kind]}{BESIDE if mode == 'both' and kind == 'time' else ''}", ""]
        parts += [markdown.read_text().strip() if markdown.exists() else f"compare stopped with status {status}: "
                  "see the job's log", ""]
    body = work / "comment.md"
    body.write_text("\n".join(parts))
    if env.get("GITHUB_STEP_SUMMARY"):
        with open(env["GITHUB_STEP_SUMMARY"], "a") as summary:
            summary.write("\n".join(parts[1:]) + "\n")
    if env.get("GITHUB_OUTPUT"):
        with open(env["GITHUB_OUTPUT"], "a") as output:
            output.write(f"markdown={body}\n")
            output.write("".join(f"{kind}-json={result}\n" for kind, _, _, result in runs))
    if env.get("SERIALBENCH_COMMENT") == "true":
        print(comment(env, marker, body), flush=True)

    statuses = [status for _, status, _, _ in runs]
    if 2 in statuses or 130 in statuses:
        return max(statuses)
    gate = runs[0]  # the counts' when both run
    if gate[1] == 1 and env.get("SERIALBENCH_WARN_ONLY") == "true":
        failing = (json.loads(gate[3].read_text()).get("gate") or {}).get("failing", []) if gate[3].exists() else []
        print(f"::warning title=serialbench::{env.get('SERIALBENCH_FAIL_ON') or 'slower'}: "
              f"{', '.join(failing) or 'see the job summary'}", flush=True)
        return 0
    return gate[1]


if __name__ == "__main__":
    try:
        sys.exit(main(dict(os.environ)))
    except Refused as exc:
        print(f"::error title=serialbench::{exc}", flush=True)
        sys.exit(2)
