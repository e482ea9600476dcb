"""ethosu_sim: the Ethos-U55/U65 simulator from Python, for performance exploration and test harnesses.

    import ethosu_sim
    r = ethosu_sim.run("case_dir", memory_mode="Shared_Sram")
    r.total_cycles, r.outputs[0], r.ops, r.pmu
    t = ethosu_sim.sweep("case_dir", {"mem.axi1.bytes_per_cycle": [1.875, 3.75, 7.5],
                                      "mem.axi1.read_latency_cycles": [250, 500, 1000]})

Jobs (Job) come from case folders, Vela .tflite models or raw streams; Config describes the machine
(variant, system preset or vela.ini system config, memory mode, parameters by hierarchical name, listed by
parameters()); run() returns a Result; sweep() runs a grid of configurations in worker processes or on a
dask.distributed cluster and returns a Table; compare() and calibrate() check recordings made on a board
(libethosu-record.so) against the simulator and fit its timing parameters to them. Errors: InputError
(ValueError) and NpuFault (RuntimeError); VariantMismatchWarning for a job run on another variant than its own
when allowed.
"""

from . import _ethosu_sim
from .calibrate import Calibration, calibrate, compare
from .config import Config, parameters
from .errors import InputError, NpuFault, VariantMismatchWarning
from .job import Job
from .result import OP_TIME_CAUSES, STALL_CAUSES, Result
from .run import run
from .sweep import default_executor, grid_points, sweep
from .table import Table


def variants():
    """The NPU configurations the simulator models, one dict each: name (Vela's accelerator name), product, macs,
    cores, ofm_ublock (H, W, C), shram_bytes_per_core, axi_bytes_per_beat, address_bits, dma_queue_depth,
    default_system (the system preset a job on it runs on unless one is named), id and config (the ID and
    CONFIG registers)."""
    return _ethosu_sim.variants()


__version__ = _ethosu_sim.__version__


def pmu_events(variant="ethos-u65-256"):
    """The PMU events the event counters of `variant` take: name, hw_id, modelled (False: counts 0), description.

    The U55 and U65 share one list (4 event counters); the U85 has its own (8 event counters)."""
    return _ethosu_sim.pmu_events(variant)


def stall_causes():
    """The stall causes of the report: Result.stall_cycles's keys (Result.ops has stall_<cause> columns for the
    MAC's and AO's, held_<cause> for the controller's gates)."""
    return list(STALL_CAUSES)


def time_causes():
    """The keys of Result.time_breakdown, which add up to total_cycles: what the oldest operation in flight was
    doing (Result.ops's exclusive_<cause> columns), then "controller" (its own time, no operation in flight)."""
    return list(OP_TIME_CAUSES) + ["controller"]


__all__ = ["Calibration", "Config", "InputError", "Job", "NpuFault", "Result", "Table", "calibrate", "compare",
           "default_executor", "grid_points", "parameters", "pmu_events", "run", "stall_causes", "sweep",
           "time_causes", "VariantMismatchWarning", "variants"]
