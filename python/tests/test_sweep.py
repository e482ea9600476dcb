"""sweep(): grids, worker processes, reproducibility, early errors; fork after SystemC has run."""

import concurrent.futures
import multiprocessing

import numpy as np
import pytest

import ethosu_sim

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


def test_sweep_in_processes_matches_serial_runs_and_repeats(conv_case):
    grid = {"variant": ["ethos-u65-256", "ethos-u65-512"], "mem.axi1.read_latency_cycles": LATENCIES}
    table = ethosu_sim.sweep(conv_case, grid, max_workers=2)
    assert len(table) == 6 and table.runs_per_second > 0
    assert [(r["variant"], r["mem.axi1.read_latency_cycles"]) for r in table] == \
        [(v, lat) for v in grid["variant"] for lat in LATENCIES]
    job = ethosu_sim.Job(conv_case)
    for row in table:
        r = ethosu_sim.run(job, variant=row["variant"], **{"mem.axi1.read_latency_cycles": row["mem.axi1.read_latency_cycles"]})
        assert row["total_cycles"] == r.total_cycles and row["exact"] is True and row["status"] == "ok"
    cycles = table.where(variant="ethos-u65-256")["total_cycles"]
    assert list(cycles) == sorted(cycles) and cycles[0] < cycles[-1]
    # Reproducible: another pool, another order of completion, the same table.
    assert ethosu_sim.sweep(conv_case, grid, max_workers=2) == table
    array = table.to_numpy()
    assert array["total_cycles"].dtype == np.int64 and list(array["variant"][:3]) == ["ethos-u65-256"] * 3


def test_sweep_with_any_executor_and_collector(add_case, conv_case):
    grid = [{"job": conv_case, "system": "imx93"}, {"job": add_case, "system": "internal-default"}]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        table = ethosu_sim.sweep(None, grid, pool, collect=cycles_and_first_op)
    assert [r["job"] for r in table] == ["conv2d_3x3_s1_same_relu_i8", "add_i8"]
    assert table[1]["first_op"] == "ELEMENTWISE.ADD"
    assert table[1]["cycles"] == ethosu_sim.run(add_case, system="internal-default").total_cycles


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
