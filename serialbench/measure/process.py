"""One worker process of a round (inside/worker.py): JSON requests on its stdin, replies on its stdout.

Its hello names the protocol it speaks and the side's worker API; a side that speaks none this
serialbench can use is refused in one line before anything is timed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from pathlib import Path

from serialbench.core.errors import UsageError
from serialbench.inside.side_api import PROTOCOL
from serialbench.sides.sides import Side


class WorkerFailed(Exception):
    """The worker process died or stopped answering; the round cannot go on with it. `interrupted`:
    it died of Ctrl-C (SIGINT reaches the whole process group), which fails no benchmark."""

    def __init__(self, why: str, interrupted: bool = False):
        super().__init__(why)
        self.interrupted = interrupted


class Process:
    """One side's worker, started on `cpu` (all CPUs when None)."""

    def __init__(self, side: Side, cpu: int | None = None):
        self.side = side
        self.stderr = tempfile.TemporaryFile(mode="w+")
        config = {"case_dirs": list(side.case_dirs), "payloads": list(side.payloads),
                  "distributions": list(side.distributions)}
        argv, env = side.command("worker", config)
        self.popen = subprocess.Popen(argv, cwd=side.root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self.stderr, text=True, bufsize=1)
        if cpu is not None:
            os.sched_setaffinity(self.popen.pid, {cpu})
        self.hello = self.read()
        check_hello(side, self.hello)

    def send(self, request: dict) -> None:
        try:
            self.popen.stdin.write(json.dumps(request) + "\n")
            self.popen.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None

    def read(self) -> dict:
        line = self.popen.stdout.readline()
        if not line:
            raise self._died()
        return json.loads(line)

    def ask(self, request: dict) -> dict:
        self.send(request)
        return self.read()

    def _died(self) -> WorkerFailed:
        try:
            status = self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            status = None
        self.stderr.seek(0)
        lines = [line.strip() for line in self.stderr.read().splitlines() if line.strip()]
        why = f"{self.side.label}: " + (lines[-1] if lines else f"worker exited with status {status}")
        return WorkerFailed(why, interrupted=status == -signal.SIGINT)

    def close(self) -> None:
        try:
            if self.popen.poll() is None:
                self.send({"do": "exit"})
                self.popen.wait(timeout=10)
        except (WorkerFailed, subprocess.TimeoutExpired):
            self.popen.kill()
            self.popen.wait()
        finally:
            self.stderr.close()


def check_hello(side: Side, hello: dict) -> None:
    """A worker that cannot time this side is a usage error, said in one line."""
    if hello.get("protocol") != PROTOCOL:
        raise UsageError(f"{side.label}'s worker speaks protocol {hello.get('protocol')!r}, this serialbench "
                         f"{PROTOCOL}: its worker file is another serialbench's")
    if "refused" in hello:
        raise UsageError(f"{side.label} ({side.description}) cannot be timed: {hello['refused']}")
    imported = Path(hello["serialbench"])
    if side.own_serialbench and side.root.resolve() not in imported.parents:
        raise UsageError(f"{side.label}'s worker imported serialbench from {imported}, not from {side.root}: "
                         "another serialbench shadows it (an install that is not editable?)")
