"""sweep(): grids, worker processes, reproducibility, early errors; fork after SystemC has run; collect functions
from `python -c`, stdin and lambdas; progress, cancelling and Ctrl-C; the tables' metadata, CSV and pandas."""

import concurrent.futures
import importlib.util
import multiprocessing
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import ethosu_sim
from conftest import case_dir

# The opcorpus cases are compiled for the U65-256: another variant is a what-if they must ask for.
WHAT_IF = ethosu_sim.Config(allow_variant_mismatch=True)
LATENCIES = [100, 500, 2000]


def cycles_and_first_op(result):
    """A custom collector (module level, so that it pickles)."""
    return {"cycles": result.total_cycles, "first_op": result.ops[0]["kind"]}


def test_grid_points_order_and_zipped_axes():
    points = ethosu_sim.grid_points({"a.b": [1, 2], ("job", "variant"): [("x", "v1"), ("y", "v2")], "c.d": 7})
    assert points == [{"a.b": 1, "job": "x", "variant": "v1", "c.d": 7}, {"a.b": 1, "job": "y", "variant": "v2", "c.d": 7},
                      {"a.b": 2, "job": "x", "variant": "v1", "c.d": 7}, {"a.b": 2, "job": "y", "variant": "v2", "c.d": 7}]
    with pytest.raises(ValueError, match="tuple of 2"):
        ethosu_sim.grid_points({("job", "variant"): ["x"]})


@pytest.mark.filterwarnings("ignore::ethosu_sim.VariantMismatchWarning")
def test_sweep_in_processes_matches_serial_runs_and_repeats(conv_case):
    grid = {"variant": ["ethos-u65-256", "ethos-u65-512"], "mem.axi1.read_latency_cycles": LATENCIES}
    table = ethosu_sim.sweep(conv_case, grid, max_workers=2, base=WHAT_IF)
    assert len(table) == 6 and table.runs_per_second > 0
    assert [(r["variant"], r["mem.axi1.read_latency_cycles"]) for r in table] == \
        [(v, lat) for v in grid["variant"] for lat in LATENCIES]
    job = ethosu_sim.Job(conv_case)
    for row in table:
        r = ethosu_sim.run(job, WHAT_IF, variant=row["variant"],
                           **{"mem.axi1.read_latency_cycles": row["mem.axi1.read_latency_cycles"]})
        assert row["total_cycles"] == r.total_cycles and row["exact"] is True and row["status"] == "ok"
    cycles = table.where(variant="ethos-u65-256")["total_cycles"]
    assert list(cycles) == sorted(cycles) and cycles[0] < cycles[-1]
    # Reproducible: another pool, another order of completion, the same table.
    assert ethosu_sim.sweep(conv_case, grid, max_workers=2, base=WHAT_IF) == table
    array = table.to_numpy()
    assert array["total_cycles"].dtype == np.int64 and list(array["variant"][:3]) == ["ethos-u65-256"] * 3


def test_sweep_across_generations_compares_each_configurations_own_build():
    # One model, Vela's build for each configuration: U65-256 (the corpus case), U85-256 and U85-512.
    u65 = case_dir("opcorpus/conv2d_1x1_s1_i8")
    u85 = {m: case_dir(f"corpus-u85/conv2d_1x1_s1_i8/ethos-u85-{m}") for m in (256, 512)}
    builds = [("ethos-u65-256", u65), ("ethos-u85-256", u85[256]), ("ethos-u85-512", u85[512])]
    table = ethosu_sim.sweep(None, {("variant", "job"): builds}, max_workers=2)
    assert [r["variant"] for r in table] == [v for v, _ in builds]
    for row, (variant, path) in zip(table, builds):
        assert row["status"] == "ok" and row["exact"] is True, row
        assert row["total_cycles"] == ethosu_sim.run(path).total_cycles
    # Each runs on its family's default memory system unless the base says otherwise.
    assert len({r["total_cycles"] for r in table}) == 3


def test_sweep_with_any_executor_and_collector(add_case, conv_case):
    grid = [{"job": conv_case, "system": "imx93"}, {"job": add_case, "system": "arm-internal-default"}]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        table = ethosu_sim.sweep(None, grid, pool, collect=cycles_and_first_op)
    assert [r["job"] for r in table] == ["conv2d_3x3_s1_same_relu_i8", "add_i8"]
    assert table[1]["first_op"] == "ELEMENTWISE.ADD"
    assert table[1]["cycles"] == ethosu_sim.run(add_case, system="arm-internal-default").total_cycles


def test_bad_point_fails_before_running(add_case):
    pool = concurrent.futures.ThreadPoolExecutor(1)
    submitted = []
    pool.submit = lambda *a, **k: submitted.append(a)  # nothing may reach the executor
    with pytest.raises(ethosu_sim.InputError, match="mem.axi1.read_latency_cycles"):
        ethosu_sim.sweep(add_case, {"mem.axi1.read_latency_cycles": [100, -1]}, pool)
    assert submitted == []
    pool.shutdown()


def _run_in_child(path, queue):
    queue.put(ethosu_sim.run(path).total_cycles)


def test_fork_after_systemc_has_run(add_case):
    # The default pool never forks a process that has run SystemC ('forkserver'); a plain fork of one that
    # has (QuickThreads coroutines, no threads of its own) must still run jobs in the child.
    parent = ethosu_sim.run(add_case).total_cycles
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_run_in_child, args=(str(add_case), queue))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert queue.get(timeout=5) == parent


# --- sweeps where people work: -c, stdin, lambdas, progress, Ctrl-C, tables -------------------------------------

def _python(code, add_case, stdin=None, block_cloudpickle=False, **kwargs):
    """Runs `code` (with CASE set) in a fresh interpreter as `python -c` (or from stdin) and returns it done."""
    prelude = "import sys; sys.modules['cloudpickle'] = None\n" if block_cloudpickle else ""
    source = prelude + f"CASE = {str(add_case)!r}\n" + code
    args = [sys.executable, "-"] if stdin else [sys.executable, "-c", source]
    return subprocess.run(args, input=source if stdin else None, capture_output=True, text=True, timeout=120,
                          **kwargs)


SWEEP_WITH_COLLECT = """
import ethosu_sim
def collect(r):
    return {"cycles": r.total_cycles}
t = ethosu_sim.sweep(CASE, {"mem.axi1.read_latency_cycles": [100, 2000]}, collect=collect, max_workers=2)
print(len(t), t[0]["cycles"] < t[1]["cycles"])
"""


@pytest.mark.skipif(importlib.util.find_spec("cloudpickle") is None, reason="python3-cloudpickle is not installed")
@pytest.mark.parametrize("stdin", [False, True], ids=["python -c", "script on stdin"])
def test_collect_from_python_c_and_stdin(add_case, stdin):
    done = _python(SWEEP_WITH_COLLECT, add_case, stdin=stdin)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "True"]


def test_without_cloudpickle_a_main_function_is_refused_with_the_fix(add_case):
    done = _python(SWEEP_WITH_COLLECT, add_case, block_cloudpickle=True)
    assert done.returncode == 1
    assert "python3-cloudpickle" in done.stderr and "`python -c`" in done.stderr
    assert "BrokenProcessPool" not in done.stderr and "leaked" not in done.stderr


def test_without_cloudpickle_a_lambda_is_refused_before_any_pool(add_case):
    done = _python("import ethosu_sim\n"
                   "ethosu_sim.sweep(CASE, {'mem.axi1.read_latency_cycles': [100]}, collect=lambda r: {})",
                   add_case, block_cloudpickle=True)
    assert done.returncode == 1 and "is a lambda" in done.stderr and "apt install python3-cloudpickle" in done.stderr
    assert "leaked semaphore" not in done.stderr


@pytest.mark.skipif(importlib.util.find_spec("cloudpickle") is None, reason="python3-cloudpickle is not installed")
def test_lambda_collect_travels_by_value(add_case):
    table = ethosu_sim.sweep(add_case, {"mem.axi1.read_latency_cycles": [100, 2000]},
                             collect=lambda r: {"cycles": r.total_cycles}, max_workers=2)
    expected = [ethosu_sim.run(add_case, **{"mem.axi1.read_latency_cycles": lat}).total_cycles for lat in (100, 2000)]
    assert [r["cycles"] for r in table] == expected


def test_progress_per_point_and_cancelling_returns_the_rows_done(add_case):
    grid = {"mem.axi1.read_latency_cycles": list(range(100, 2100, 100))}
    seen = []
    table = ethosu_sim.sweep(add_case, grid, max_workers=2, chunksize=20,  # one chunk: progress still per point
                             progress=lambda done, total, row: seen.append((done, total, row["status"])))
    assert seen == [(k, 20, "ok") for k in range(1, 21)] and table.meta["complete"] is True

    def stop_after_five(done, total, row):
        return done < 5
    with pytest.warns(UserWarning, match="sweep cancelled: 5 of 20 points"):
        partial = ethosu_sim.sweep(add_case, grid, max_workers=2, chunksize=20, progress=stop_after_five)
    assert len(partial) == 5 and partial.meta["complete"] is False and partial.meta["points"] == 20
    # The rows done are rows of the grid, in grid order.
    latencies = list(partial["mem.axi1.read_latency_cycles"])
    assert latencies == sorted(latencies) and set(latencies) <= set(grid["mem.axi1.read_latency_cycles"])


CTRL_C = """
import ethosu_sim
t = ethosu_sim.sweep(CASE, {"mem.axi1.read_latency_cycles": list(range(100, 100 + 5000))}, max_workers=2,
                     progress=lambda done, total, row: print("row", done, flush=True))
print("table", len(t), t.meta["complete"], flush=True)
"""


def test_ctrl_c_returns_the_rows_done_at_once(add_case):
    child = subprocess.Popen([sys.executable, "-c", f"CASE = {str(add_case)!r}\n" + CTRL_C], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    for line in child.stdout:
        if line.startswith("row 20"):
            break
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert time.monotonic() - sent < 10
    table = [line.split() for line in out.splitlines() if line.startswith("table")]
    assert table and 20 <= int(table[0][1]) < 5000 and table[0][2] == "False", out
    assert "sweep interrupted" in err and "Traceback" not in err and "leaked" not in err


@pytest.mark.filterwarnings("ignore::ethosu_sim.VariantMismatchWarning")
def test_tables_carry_version_and_metadata(add_case, conv_case, tmp_path):
    grid = {"variant": ["ethos-u65-256", "ethos-u65-512"]}
    table = ethosu_sim.sweep(conv_case, grid, max_workers=2, ops=True, base=WHAT_IF)
    assert table.meta["ethosu_sim"] == ethosu_sim.__version__
    assert table.meta["job"] == "conv2d_3x3_s1_same_relu_i8" and table.meta["grid"] == grid
    assert table.meta["complete"] is True and table.meta["points"] == 2
    # Long format per operation: every operation of every point, with the point's values.
    r = ethosu_sim.run(conv_case, WHAT_IF, variant="ethos-u65-512")
    ops_512 = table.ops.where(variant="ethos-u65-512")
    assert len(table.ops) == 2 * len(r.ops) and [o["cycles"] for o in ops_512] == list(r.ops["cycles"])
    assert r.ops.meta["config"]["npu.variant"] == "ethos-u65-512" and r.ops.meta["ethosu_sim"] == ethosu_sim.__version__
    # The CSV keeps the metadata and reads back.
    table.to_csv(tmp_path / "t.csv")
    assert open(tmp_path / "t.csv", encoding="utf-8").readline() == f'# ethosu_sim: "{ethosu_sim.__version__}"\n'
    again = ethosu_sim.Table.read_csv(tmp_path / "t.csv")
    assert again == table and again.meta == table.meta
    assert ethosu_sim.Table([{"a": 1}]).meta == {"ethosu_sim": ethosu_sim.__version__}


def test_pandas_frames_when_pandas_is_there(conv_case):
    pandas = pytest.importorskip("pandas", reason="python3-pandas is not installed")
    table = ethosu_sim.sweep(conv_case, {"mem.axi1.bytes_per_cycle": [1.0, 8.0]}, max_workers=2, ops=True)
    runs, ops = table.to_pandas(), table.ops.to_pandas()
    assert isinstance(runs, pandas.DataFrame) and list(runs.columns) == table.columns and len(runs) == 2
    assert runs.attrs["ethosu_sim"] == ethosu_sim.__version__
    per_point = ops.groupby("mem.axi1.bytes_per_cycle")["exclusive_cycles"].sum()
    controller = runs.set_index("mem.axi1.bytes_per_cycle")["cycles_controller"]
    assert (per_point + controller == runs.set_index("mem.axi1.bytes_per_cycle")["total_cycles"]).all()


def test_tqdm_bar_when_asked(add_case, capsys):
    pytest.importorskip("tqdm", reason="python3-tqdm is not installed")
    ethosu_sim.sweep(add_case, {"mem.axi1.read_latency_cycles": [100, 200]}, max_workers=1, progress=True)
    assert "sweep: 100%" in capsys.readouterr().err


def test_sweep_refuses_a_variant_mismatch_before_running_and_warns_once_when_allowed(conv_case):
    grid = {"variant": ["ethos-u65-256", "ethos-u65-512"], "mem.axi1.read_latency_cycles": LATENCIES}
    with pytest.raises(ethosu_sim.InputError, match="compiled for ethos-u65-256, asked to run on ethos-u65-512"):
        ethosu_sim.sweep(conv_case, grid, max_workers=1, progress=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = ethosu_sim.sweep(conv_case, grid, max_workers=1, progress=False, base=WHAT_IF)
    mismatches = [w for w in caught if issubclass(w.category, ethosu_sim.VariantMismatchWarning)]
    assert len(mismatches) == 1 and len(table) == 6
    assert table.meta["base"]["allow_variant_mismatch"] is True
