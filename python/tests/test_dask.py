"""The same sweep on a dask.distributed cluster (a local one here); skipped when Debian's python3-distributed
is not installed."""

import pytest

import ethosu_sim

distributed = pytest.importorskip("distributed", reason="python3-distributed is not installed")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # tornado's, inside Debian's distributed
def test_sweep_on_local_dask_cluster(conv_case):
    grid = {"variant": ["ethos-u65-256", "ethos-u65-512"], "mem.axi1.bytes_per_cycle": [2.0, 8.0]}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = ethosu_sim.sweep(conv_case, grid, client)
    local = ethosu_sim.sweep(conv_case, grid, max_workers=2)
    assert on_dask == local and len(on_dask) == 4
    slow, fast = on_dask.where(variant="ethos-u65-256")["total_cycles"]
    assert slow > fast
