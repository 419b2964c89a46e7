"""Work spread over worker processes, and the scratch folders of the builds that use them.

:func:`in_order` runs jobs in this process and in a pool of worker processes at once and
hands the results on in order, while the caller writes what it already has.

:func:`worker_count` decides whether worker processes pay, from the machine it runs on.
The rule, from measurements of cold builds of the synthetic vault (``python
benchmarks/bench_index.py workers``): **one process unless a core is free** of other
programs (usable cores, ``sched_getaffinity``, minus the one-minute load average, rounded
down: ``MIN_FREE_CORES``) **on a machine of two cores or more, and there are**
``threshold`` **files or more**; then one worker per free core but the writer's, and at
least one, at most ``MAX_WORKERS``. On two quiet cores (load 0.6, 2026-12-05) 10,000 files
took 3.13-3.15 s in one process, 2.31-2.32 s with one worker and 2.20-2.32 s with two, and
a never-seen 100,000-note vault was built and shown in the window in 25.9 s with one
worker against 40.3 s in one process (search and the graph worked from 3.3-3.7 s either
way). On two cores busy with other programs (load 9-13) the workers lost in 5 of 6 runs
(2,000 files 3.8 / 4.1 s with two workers against 1.8 / 2.8 s in one process, 10,000 files
11.3 / 8.9 s against 11.1 / 7.0 s, 100,000 files 126 / 166 s against 162 / 126 s): there
no core is free, and the build runs in one process.
``ANTHOLOGY_INDEX_WORKERS=N`` overrides the rule from ``threshold`` files (0: one process).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import re
import shutil
import stat
import time
from collections.abc import Callable, Generator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

MAX_WORKERS = 4
#: Worker processes only when this many cores are free of other programs' load.
MIN_FREE_CORES = 1
WORKERS_ENV = "ANTHOLOGY_INDEX_WORKERS"
J = TypeVar("J")
R = TypeVar("R")

SCRATCH_PREFIX = "anthology-build-"
_SCRATCH_RE = re.compile(re.escape(SCRATCH_PREFIX) + r"(\d+)-[A-Za-z0-9_]+$")
_OLD_SCRATCH_AGE = 24 * 3600  # seconds; folders from before the pid was in the name


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def sweep_scratch(folder: str) -> list[str]:
    """Delete the scratch folders of cold builds whose process is gone (a build killed with
    ``kill -9`` cannot remove its own); only folders this module names. Returns them."""
    swept: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return swept
    now = time.time()
    for name in names:
        if not name.startswith(SCRATCH_PREFIX):
            continue
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            continue  # never a link or a file
        m = _SCRATCH_RE.match(name)
        stale = (not _alive(int(m.group(1)))) if m else now - st.st_mtime > _OLD_SCRATCH_AGE
        if stale and (not m or int(m.group(1)) != os.getpid()):
            shutil.rmtree(path, ignore_errors=True)
            swept.append(path)
    return swept


def usable_cores() -> int:
    """The cores this process may run on (a container's or taskset's share)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def worker_count(
    files: int, threshold: int, *, cores: int | None = None, load: float | None = None
) -> int:
    """Worker processes for a build that reads ``files`` files: 0 (this process alone)
    below ``threshold`` files, on one core, or with fewer than ``MIN_FREE_CORES`` free
    cores, else one per free core but the writer's, at least one (at most
    ``MAX_WORKERS``); see the module docstring. ``cores`` and ``load`` default to this
    machine's now."""
    if files < threshold:
        return 0
    forced = os.environ.get(WORKERS_ENV, "").strip()
    if forced.isdigit():
        return min(int(forced), MAX_WORKERS)
    cores = usable_cores() if cores is None else cores
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            load = 0.0
    free = int(cores - max(load, 0.0))
    if cores < 2 or free < MIN_FREE_CORES:
        return 0
    return min(max(free - 1, 1), MAX_WORKERS)


def in_order(
    jobs: list[J],
    here: Callable[[J], R],
    there: Callable[[J], R],
    parallel: bool,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
    workers: int | None = None,
) -> Generator[R, None, None]:
    """The results of ``jobs``, in order: computed by ``here(job)`` in this process, and with
    ``parallel`` by ``there(job)`` in worker processes too, while the caller writes what it
    already has. ``there`` and ``initializer(*initargs)`` (run once in each worker) must be
    picklable. ``workers``: how many (default one per core, at most ``MAX_WORKERS``; see
    :func:`worker_count`). Close the iterator to stop the workers."""
    done = 0
    pool = None
    taken: dict[int, R] = {}  # results of jobs done here out of order
    if workers is None:
        workers = min(os.cpu_count() or 1, MAX_WORKERS) if (os.cpu_count() or 1) > 1 else 0
    if parallel and workers > 0 and len(jobs) > 1:
        # "spawn", not "fork": the GUI calls this from a thread, and forking a threaded
        # process can deadlock. The workers import only the parser (no Qt), so they start
        # quickly. A pool that cannot start or breaks (a script without a __main__ guard, a
        # worker killed) is not fatal: what is left is done here.
        try:
            context = multiprocessing.get_context("spawn")
            # this process writes, and works only when it would wait
            pool = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=context,
                initializer=initializer,
                initargs=initargs,
            )
            # The first job is done here while the workers start.
            futures = [None] + [pool.submit(there, job) for job in jobs[1:]]
            # While the next job in order is not ready, this process takes the last job no
            # worker has started (workers go from the front, this one from the back, and they
            # meet) rather than wait: when the cores are busy (with the writing, or with other
            # programs) this is no slower than working in-process; when they are free the
            # workers run ahead. Results are still handed on in order.
            tail = len(jobs) - 1
            for i, job in enumerate(jobs):
                future = futures[i]
                if future is None:
                    result = here(job)
                else:
                    while tail > i and not future.done():
                        if (theirs := futures[tail]) is not None and theirs.cancel():
                            taken[tail] = here(jobs[tail])
                            tail -= 1
                        else:  # the workers have reached it: everything before is theirs
                            tail = i
                    result = taken.pop(i) if i in taken else future.result()
                    futures[i] = None  # let the result go once handed on
                yield result
                done += 1
        except (BrokenProcessPool, OSError, RuntimeError, EOFError, pickle.PicklingError):
            pass
        finally:
            # Waiting costs at most the jobs already running; not waiting leaves the pool's
            # thread to die at interpreter exit, with a traceback.
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
    for i in range(done, len(jobs)):  # serially, or what a broken pool left
        yield taken.pop(i) if i in taken else here(jobs[i])
