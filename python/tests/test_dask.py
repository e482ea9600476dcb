"""The same sweep on a dask.distributed cluster (a local one here); skipped when Debian's python3-distributed
is not installed."""

import pytest

import ethosu_sim

distributed = pytest.importorskip("distributed", reason="python3-distributed is not installed")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # tornado's, inside Debian's distributed
@pytest.mark.filterwarnings("ignore::ethosu_sim.VariantMismatchWarning")
def test_sweep_on_local_dask_cluster(conv_case):
    what_if = ethosu_sim.Config(allow_variant_mismatch=True)  # the case is compiled for the U65-256
    grid = {"variant": ["ethos-u65-256", "ethos-u65-512"], "mem.axi1.bytes_per_cycle": [2.0, 8.0]}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = ethosu_sim.sweep(conv_case, grid, client, base=what_if)
    local = ethosu_sim.sweep(conv_case, grid, max_workers=2, base=what_if)
    assert on_dask == local and len(on_dask) == 4
    slow, fast = on_dask.where(variant="ethos-u65-256")["total_cycles"]
    assert slow > fast
