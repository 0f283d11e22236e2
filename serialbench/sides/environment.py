"""The process state every timed op runs in, the same for the run's pyperf workers and compare's
lockstep workers: set through the environment, before the worker starts, and recorded in metadata.

Two properties of glibc made the time of an op depend on the worker's history instead of the op:
- malloc hands freed multi-MB buffers back to the kernel (heap trim, munmap of mmapped chunks) and
  page-faults them in again on the next call: at 1M about 2,000 faults per call, and identical
  bytes timed up to 30x apart depending on each worker's allocation history. The thresholds are
  raised so that a freed buffer is kept, as in a warm, long-running client.
- memcpy uses `rep movsb` for copies of 2,112 bytes to 512 KiB on this glibc (2.36), and on AMD
  Zen 3 a `rep movsb` whose destination minus source, modulo 4096, is between 1 and about 31 runs
  13-18x slower (a 400 KB copy: 11 us, or 143-219 us). Which offsets a process gets is decided by
  its heap layout, so one worker timed `msgpack/packb/float32/100K` at 280 us and the next at
  47 us, both steady for their whole life (docs/findings/one-op-one-time.md; cpython#137121 and
  microsoft/STL#5658 report the same CPU behaviour). The workers copy with glibc's vector loop
  instead (the `x86_rep_movsb_threshold` tunable above any size), whose speed does not depend on
  the offsets: 14-16 us for that copy at every offset.
numpy's OpenBLAS starts a thread that spins for a while after import, on the other core; no
serializer calls BLAS, so the workers keep it to one thread.

`--malloc-default` and `--memcpy-default` measure glibc as it is.
"""

from __future__ import annotations

import os

STEADY_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(4 * 1024 * 1024 * 8),  # glibc's ceiling: 32 MB
                 "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}
NO_REP_MOVSB = "glibc.cpu.x86_rep_movsb_threshold=" + str(1 << 40)  # no copy is that large: never rep movsb
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1"}


def worker_variables(malloc_default: bool = False, memcpy_default: bool = False,
                     inherited: dict[str, str] | None = None) -> dict[str, str]:
    """The variables a timing worker's environment gets, on top of what it inherits."""
    inherited = os.environ if inherited is None else inherited
    variables = dict(ONE_BLAS_THREAD)
    if not malloc_default:
        variables.update(STEADY_MALLOC)
    if not memcpy_default:
        tunables = [part for part in inherited.get("GLIBC_TUNABLES", "").split(":")
                    if part and not part.startswith("glibc.cpu.x86_rep_movsb_threshold=")]
        variables["GLIBC_TUNABLES"] = ":".join([*tunables, NO_REP_MOVSB])
    return variables


def metadata(malloc_default: bool = False, memcpy_default: bool = False) -> dict[str, str]:
    """What a result file records of the state its values were taken in."""
    return {"serialbench_malloc": "default" if malloc_default else "steady",
            "serialbench_memcpy": "default" if memcpy_default else "no rep movsb"}
