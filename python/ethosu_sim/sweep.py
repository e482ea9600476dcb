"""sweep(): one job over a grid of configurations, in worker processes.

SystemC runs one simulation kernel per process, so parallel runs need processes. By default the sweep
starts a ProcessPoolExecutor on all cores with the 'forkserver' start method (workers are forked from a
fresh server process, never from a parent that has already run SystemC); any concurrent.futures-style
executor can be given instead, such as a dask.distributed Client for a cluster. Every point is checked in
the parent first, so a bad parameter fails before anything runs. The table lists the points in grid order
whatever order they finish in, and the simulator is deterministic, so a sweep is reproducible.

Where people work: a collect function defined in a notebook, in `python -c`, in a script on standard input
or as a lambda cannot be imported by worker processes; it travels by value with cloudpickle when that is
installed (Debian's python3-cloudpickle), and otherwise the sweep refuses it before starting anything,
saying what to do. A script on standard input sweeps too (its workers do not try to run '<stdin>' again).
The default pool's workers send each point's row as soon as it is done, for per-point progress (a tqdm bar
when tqdm is installed, in a notebook too, or a callback); Ctrl-C, or a callback returning False, stops the
workers at once and returns the rows done so far.
"""

import concurrent.futures
import contextlib
import datetime
import itertools
import math
import multiprocessing
import os
import pickle
import queue as queue_module
import signal
import sys
import time
import warnings

from . import _ethosu_sim
from .config import Config
from .errors import VariantMismatchWarning
from .job import as_job
from .run import run
from .table import Table

# Worker-process state: a job is rebuilt from its pickle once per process, not once per point; functions sent
# by value are loaded once per process; the default pool's queue for rows.
_JOBS = {}
_FUNCTIONS = {}
_ROWS = None


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


def _unimportable(fn):
    """Why worker processes could not import fn by reference, or None when they can."""
    qualname = getattr(fn, "__qualname__", "")
    if "<lambda>" in qualname:
        return "a lambda"
    if "<locals>" in qualname:
        return "defined inside a function"
    if getattr(fn, "__module__", None) == "__main__":
        main_file = getattr(sys.modules.get("__main__"), "__file__", None)
        if main_file is None or not os.path.isfile(main_file):
            return "defined in a notebook, an interactive session, `python -c` or a script on standard input"
    try:
        pickle.dumps(fn)
    except Exception as e:  # pickle raises several types for what it cannot take
        return f"not picklable ({e})"
    return None


def _portable(fn, in_threads):
    """fn as it travels to the workers: itself where they can import it (or they are threads of this process),
    else by value with cloudpickle; raises InputError saying what to do otherwise."""
    if fn is None or in_threads:
        return fn
    problem = _unimportable(fn)
    # A function of the script being run goes by value too when it can: then the workers need not import the
    # script (which runs it again, and its sweep, unless it is guarded by `if __name__ == "__main__":`).
    if problem is None and getattr(fn, "__module__", None) != "__main__":
        return fn
    try:
        import cloudpickle
    except ImportError:
        if problem is None:
            return fn
        name = getattr(fn, "__qualname__", repr(fn))
        raise _ethosu_sim.InputError(
            f"sweep: collect={name} is {problem}, so worker processes cannot import it. Install Debian's "
            "python3-cloudpickle (apt install python3-cloudpickle) to send it by value, or define it at the top "
            "level of a .py file (a module you import, or the script you run), or run the points in this process "
            "with executor=concurrent.futures.ThreadPoolExecutor(1)") from None
    return ("cloudpickle", cloudpickle.dumps(fn))


def _loaded(payload):
    if not isinstance(payload, tuple):
        return payload
    fn = _FUNCTIONS.get(payload[1])
    if fn is None:
        fn = _FUNCTIONS[payload[1]] = pickle.loads(payload[1])
    return fn


def _worker_init(rows):
    """The default pool's workers: rows go to the parent through `rows`; Ctrl-C is the parent's to handle (it
    stops the workers), so that a terminal's SIGINT does not print a traceback per worker."""
    global _ROWS
    _ROWS = rows
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_points(tasks, collect, with_ops):
    """Runs (index, job, config) triples in a worker (module level, so that executors can pickle it). A chunk
    of points travels as one task: a job in it is pickled once. Each point gives (index, columns, op rows);
    the default pool's workers send them one by one as they are done, other executors' return them."""
    collect = _loaded(collect)
    done = []
    for index, job, config in tasks:
        key = job.identity()
        cached = _JOBS.get(key)
        if cached is None:
            _JOBS.clear()
            cached = _JOBS[key] = job
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VariantMismatchWarning)  # sweep() gave it once
            result = run(cached, config, check=False)
        item = (index, collect(result) if collect else result.summary_row(), list(result.ops) if with_ops else None)
        if _ROWS is not None:
            _ROWS.put(item)
        else:
            done.append(item)
    return done


class _Cancelled(Exception):
    pass


class _Meter:
    """Progress per point: the callback, else a tqdm bar (also in a notebook) when tqdm is installed, else a
    status line on a terminal, redrawn at most five times a second."""

    def __init__(self, total, progress):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.callback = progress if callable(progress) else None
        in_notebook = "ipykernel" in sys.modules
        show = (sys.stderr.isatty() or in_notebook) if progress is None else bool(progress)
        self.bar, self.line = None, False
        if self.callback is None and show:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # tqdm.auto's note when ipywidgets is missing
                    from tqdm.auto import tqdm
                self.bar = tqdm(total=total, unit="run", desc="sweep")
            except ImportError:
                self.line = True
        self.shown = 0.0

    def update(self, row):
        self.done += 1
        if self.callback is not None:
            if self.callback(self.done, self.total, row) is False:
                raise _Cancelled()
        elif self.bar is not None:
            self.bar.update(1)
        elif self.line:
            now = time.monotonic()
            if self.done < self.total and now - self.shown < 0.2:
                return
            self.shown = now
            elapsed = now - self.start
            rate = self.done / elapsed if elapsed > 0 else 0.0
            eta = (self.total - self.done) / rate if rate > 0 else float("nan")
            sys.stderr.write(f"\rsweep: {self.done}/{self.total} runs, {rate:.2f} runs/s, ETA {eta:.0f} s   ")
            if self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()
        elif self.line and 0 < self.done < self.total:
            sys.stderr.write("\n")


@contextlib.contextmanager
def _main_not_rerun(needed):
    """Workers started meanwhile do not run the parent's __main__ file again, unless `needed` (a function of it
    goes to them by reference). multiprocessing would, which fails for '<stdin>' and runs an unguarded script's
    sweep once more in every worker."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or (needed and os.path.isfile(path)):
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


def _pool_context():
    """Workers forked from a fresh server process ('forkserver'), never from a parent that has run SystemC."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["ethosu_sim"])  # imported once in the server, not in every worker
    return context


def default_executor(max_workers=None, rows=None):
    """A process pool on all cores (or max_workers) whose workers never inherit a SystemC kernel. `rows`, a
    queue of the pool's context, receives each point's row as it is done."""
    return concurrent.futures.ProcessPoolExecutor(max_workers=max_workers or os.cpu_count(), mp_context=_pool_context(),
                                                  initializer=_worker_init, initargs=(rows,))


def _stop(executor):
    """Stops the default pool's workers now (they may be in the middle of a long simulation). The pool has no
    public way to: its processes are terminated through its own table of them."""
    for process in list(getattr(executor, "_processes", {}).values()):
        process.terminate()
    executor.shutdown(wait=True, cancel_futures=True)


def _describe(grid):
    """The grid as the table's metadata gives it (values as text where they are not plain numbers or text)."""
    def plain(v):
        return v if isinstance(v, (int, float, str, bool, type(None))) else str(v)
    if isinstance(grid, dict):
        return {"+".join(k) if isinstance(k, tuple) else k: [plain(x) if not isinstance(x, tuple) else
                                                             [plain(y) for y in x] for x in
                                                             (v if isinstance(v, (list, tuple, range)) else [v])]
                for k, v in grid.items()}
    return [{k: plain(v) for k, v in p.items()} for p in grid]


def sweep(job, grid, executor=None, *, base=None, collect=None, progress=None, max_workers=None, chunksize=None,
          ops=False):
    """Runs `job` at every point of `grid` and returns a Table, one row per point in grid order.

    job: a Job or a path (case folder, .tflite); a point's "job" entry replaces it for that point (the
        U65-512 gains only show on streams compiled for it, so compare builds: see grid_points()).
    grid: {name: [values]}, names being Config fields (variant, system, memory_mode, vela_ini, config_file),
        parameter names (dotted) or "job"; tuples of names vary together (grid_points()); or a list of dicts.
    executor: anything with submit(fn, *args) returning futures with result() and done(), such as a
        concurrent.futures executor or a dask.distributed Client; default: a process pool on all cores.
    base: the Config (or dict) the points change.
    collect: result -> dict of columns; default Result.summary_row (status, exact, total_cycles, time_s, macs,
        mac_utilisation, bytes per port, the time breakdown as cycles_<cause>). Defined anywhere: where worker
        processes cannot import it (a notebook, `python -c`, a lambda) it travels with cloudpickle.
    progress: None (a tqdm bar when tqdm is installed and stderr is a terminal or this is a notebook, else a
        status line on a terminal), True or False, or a callable (done, total, row) called as each point's row
        arrives; returning False stops the sweep.
    chunksize: points per task; default: about four tasks per worker (the pool's workers, else this machine's
        cores; give it for a cluster with more workers than that). The default pool reports every point as it
        is done whatever the chunks; other executors report a chunk when it is done.
    ops: also collect every point's per-operation table, as the returned table's `ops` (long format: the
        point's values, then Result.ops's columns, one row per operation of each point).
    Rows hold the point's values, then the collected columns. The table's `meta` says what ran (version,
    job, base configuration, grid, when, how long) and whether it is `complete`: Ctrl-C (or progress returning
    False) stops the workers and returns the rows done so far, with meta["complete"] False.
    """
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        # A worker importing the parent's unguarded script: stop before it makes a pool of its own.
        raise RuntimeError("sweep() called while a worker process imports the script: put the sweep under "
                           "`if __name__ == \"__main__\":`, or install python3-cloudpickle")
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
    mismatches = []
    for j, c in zip(jobs, configs):
        c.check(j.variant)  # raises InputError naming the bad field or value before any run
        # A variant other than the job's is refused here, or warned of once here (the workers' warnings are lost).
        mismatch = _ethosu_sim.variant_warning(j._native, c.request())
        if mismatch and mismatch not in mismatches:
            mismatches.append(mismatch)
            warnings.warn(mismatch, VariantMismatchWarning, stacklevel=2)
    payload = _portable(collect, isinstance(executor, concurrent.futures.ThreadPoolExecutor))

    started = datetime.datetime.now().astimezone()
    start = time.monotonic()
    own = executor is None
    rows_queue = _pool_context().Queue() if own else None
    meter = _Meter(len(points), progress)
    collected, op_rows = {}, {}
    stopped = None

    def take(item):
        index, columns, ops_of_point = item
        row = dict(points[index])
        if "job" in row:
            row["job"] = jobs[index].name
        row.update(columns)
        collected[index] = row
        if ops_of_point is not None:
            point = {k: row[k] for k in points[index]}
            op_rows[index] = [{**point, **op} for op in ops_of_point]
        meter.update(row)

    needs_main = callable(payload) and getattr(payload, "__module__", None) == "__main__"
    try:
        if own:
            executor = default_executor(max_workers, rows_queue)
            workers = executor._max_workers
        else:
            workers = getattr(executor, "_max_workers", None) or os.cpu_count() or 1
        if chunksize is None:
            chunksize = max(1, math.ceil(len(points) / (4 * workers)))
        tasks = [(k, j, c) for k, (j, c) in enumerate(zip(jobs, configs))]
        chunks = [tasks[k:k + chunksize] for k in range(0, len(tasks), chunksize)]
        with _main_not_rerun(needs_main) if own else contextlib.nullcontext():  # the pool starts workers here
            pending = [executor.submit(run_points, chunk, payload, bool(ops)) for chunk in chunks]
        while pending or len(collected) < len(points):
            if rows_queue is not None:
                try:
                    take(rows_queue.get(timeout=0.05))
                    while True:
                        take(rows_queue.get_nowait())
                except queue_module.Empty:
                    pass
            else:
                time.sleep(0.02)
            for future in [f for f in pending if f.done()]:
                pending.remove(future)
                for item in future.result():  # raises what the chunk raised
                    take(item)
            if not pending and rows_queue is None:
                break
    except concurrent.futures.process.BrokenProcessPool as e:
        raise RuntimeError(
            "sweep: a worker process died (its error is above). If it died importing your script, put the sweep "
            "under `if __name__ == \"__main__\":` or install python3-cloudpickle; if it ran out of memory, give "
            "fewer workers (max_workers=)") from e
    except KeyboardInterrupt:
        stopped = "interrupted"
    except _Cancelled:
        stopped = "cancelled"
    finally:
        meter.close()
        if own and executor is not None:
            if stopped is not None or len(collected) < len(points):
                _stop(executor)
            else:
                executor.shutdown(cancel_futures=True)
        elif not own and stopped is not None:
            for future in pending:
                future.cancel()
        if rows_queue is not None:
            rows_queue.close()
            rows_queue.join_thread()

    wall = time.monotonic() - start
    rows = Table(collected[k] for k in sorted(collected))
    rows.wall_seconds = wall
    rows.runs_per_second = len(rows) / wall if wall > 0 else float("inf")
    names = sorted({j.name for j in jobs})
    rows.meta = {
        "ethosu_sim": _ethosu_sim.__version__,
        "job": names[0] if len(names) == 1 else names,
        "base": base.describe(),
        "grid": _describe(grid),
        "points": len(points),
        "complete": len(rows) == len(points),
        "started": started.isoformat(timespec="seconds"),
        "wall_seconds": round(wall, 3),
    }
    if ops:
        rows.ops = Table(r for k in sorted(op_rows) for r in op_rows[k])
        rows.ops.meta = dict(rows.meta)
    if stopped is not None:
        warnings.warn(f"sweep {stopped}: {len(rows)} of {len(points)} points done; the table holds those",
                      stacklevel=2)
    return rows
