"""sweep(): one job over a grid of configurations, in worker processes.

SystemC runs one simulation kernel per process, so parallel runs need processes. By default the sweep
starts a ProcessPoolExecutor on all cores with the 'forkserver' start method (workers are forked from a
fresh server process, never from a parent that has already run SystemC); any concurrent.futures-style
executor can be given instead, such as a dask.distributed Client for a cluster. Every point is checked in
the parent first, so a bad parameter fails before anything runs. The table lists the points in grid order
whatever order they finish in, and the simulator is deterministic, so a sweep is reproducible.
"""

import concurrent.futures
import itertools
import math
import multiprocessing
import os
import sys
import time

from .config import Config
from .job import as_job
from .run import run
from .table import Table

# Worker-process cache: a job is rebuilt from its pickle once per process, not once per point.
_JOBS = {}


def grid_points(grid):
    """The points of a grid, in order.

    grid: a dict of name -> values, whose product it takes (the last name varies fastest); a key that is a
    tuple of names takes tuples of values that vary together, e.g. {("job", "variant"): [(case_256,
    "ethos-u65-256"), (case_512, "ethos-u65-512")]}. Or a list of dicts, taken as they are.
    """
    if not isinstance(grid, dict):
        return [dict(p) for p in grid]
    axes = []
    for key, values in grid.items():
        names = key if isinstance(key, tuple) else (key,)
        values = list(values) if isinstance(values, (list, tuple, range)) else [values]
        if isinstance(key, tuple):
            for v in values:
                if not isinstance(v, (list, tuple)) or len(v) != len(names):
                    raise ValueError(f"grid axis {key}: each value must be a tuple of {len(names)}, got {v!r}")
        else:
            values = [(v,) for v in values]
        axes.append([dict(zip(names, v)) for v in values])
    points = []
    for combo in itertools.product(*axes):
        point = {}
        for part in combo:
            point.update(part)
        points.append(point)
    return points


def _default_row(result):
    return result.summary_row()


def run_points(tasks, collect):
    """Runs (job, config) pairs in a worker and returns their rows (module level, so that executors can
    pickle it). A chunk of points travels as one task: a job in it is pickled once."""
    rows = []
    for job, config in tasks:
        key = job.identity()
        cached = _JOBS.get(key)
        if cached is None:
            _JOBS.clear()
            cached = _JOBS[key] = job
        rows.append((collect or _default_row)(run(cached, config, check=False)))
    return rows


class _Progress:
    """One status line on stderr, redrawn at most five times a second."""

    def __init__(self, total, enabled):
        self.total, self.enabled, self.start = total, enabled, time.monotonic()
        self.shown = (-1, 0.0)

    def update(self, done):
        now = time.monotonic()
        if not self.enabled or (done < self.total and (done == self.shown[0] or now - self.shown[1] < 0.2)):
            return
        self.shown = (done, now)
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else float("nan")
        sys.stderr.write(f"\rsweep: {done}/{self.total} runs, {rate:.2f} runs/s, ETA {eta:.0f} s   ")
        if done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def default_executor(max_workers=None):
    """A process pool on all cores (or max_workers) whose workers never inherit a SystemC kernel."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["ethosu_sim"])  # imported once in the server, not in every worker
    else:
        context = multiprocessing.get_context("spawn")
    return concurrent.futures.ProcessPoolExecutor(max_workers=max_workers or os.cpu_count(), mp_context=context)


def sweep(job, grid, executor=None, *, base=None, collect=None, progress=None, max_workers=None, chunksize=None):
    """Runs `job` at every point of `grid` and returns a Table, one row per point in grid order.

    job: a Job or a path (case folder, .tflite); a point's "job" entry replaces it for that point (the
        U65-512 gains only show on streams compiled for it, so compare builds: see grid_points()).
    grid: {name: [values]}, names being Config fields (variant, system, memory_mode, vela_ini, config_file),
        parameter names (dotted) or "job"; tuples of names vary together (grid_points()); or a list of dicts.
    executor: anything with submit(fn, *args) returning futures with result() and done(), such as a
        concurrent.futures executor or a dask.distributed Client; default: a process pool on all cores.
    base: the Config (or dict) the points change.
    collect: result -> dict of columns (a module-level function, so that it pickles); default
        Result.summary_row (status, exact, total_cycles, time_s, macs, mac_utilisation, bytes per port).
    progress: show progress on stderr (default: when stderr is a terminal).
    chunksize: points per task; default: about four tasks per worker (the pool's workers, else this machine's
        cores; give it for a cluster with more workers than that).
    Rows hold the point's values, then the collected columns. The table's wall_seconds and
    runs_per_second say how long the sweep took.
    """
    base = Config.of(base)
    points = grid_points(grid)
    jobs, loaded = [], {}
    for p in points:
        source = p.get("job", job)
        if source is None:
            raise ValueError("sweep: no job (give one, or a 'job' axis in the grid)")
        key = id(source) if not isinstance(source, (str, os.PathLike)) else os.fspath(source)
        if key not in loaded:
            loaded[key] = as_job(source)
        jobs.append(loaded[key])
    configs = [base.replace(**{k: v for k, v in p.items() if k != "job"}) for p in points]
    for j, c in zip(jobs, configs):
        c.check(j.variant)  # raises InputError naming the bad field or value before any run
    show = sys.stderr.isatty() if progress is None else progress
    meter = _Progress(len(points), show)
    start = time.monotonic()
    own = executor is None
    if own:
        executor = default_executor(max_workers)
    if chunksize is None:
        workers = getattr(executor, "_max_workers", None) or os.cpu_count() or 1
        chunksize = max(1, math.ceil(len(points) / (4 * workers)))
    tasks = list(zip(jobs, configs))
    chunks = [tasks[k:k + chunksize] for k in range(0, len(tasks), chunksize)]
    try:
        futures = [executor.submit(run_points, chunk, collect) for chunk in chunks]
        collected = []
        for future in futures:
            collected.extend(future.result())
            meter.update(max(len(collected), sum(len(c) for c, f in zip(chunks, futures) if f.done())))
    finally:
        if own:
            executor.shutdown(cancel_futures=True)
    rows = Table()
    for point, j, columns in zip(points, jobs, collected):
        row = dict(point)
        if "job" in row:
            row["job"] = j.name
        row.update(columns)
        rows.append(row)
    rows.wall_seconds = time.monotonic() - start
    rows.runs_per_second = len(rows) / rows.wall_seconds if rows.wall_seconds > 0 else float("inf")
    return rows
