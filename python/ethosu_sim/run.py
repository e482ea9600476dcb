"""run(): one job on one configuration.

Any number of runs, with any configurations, may follow each other in one process: the SystemC platform
is elaborated once and reconfigured per run. Python threads may call run() concurrently; the runs take
turns (one SystemC kernel per process) with the GIL released. Parallel runs need processes: see sweep().
"""

import os
import warnings

from . import _ethosu_sim
from .config import Config
from .errors import NpuFault, VariantMismatchWarning
from .job import as_job
from .result import Result


def run(job, config=None, *, inputs=None, pmu=None, functional=False, trace=None, check=True, **settings):
    """Runs a job and returns its Result.

    job: a Job, or a path to a case folder or a Vela .tflite.
    config: a Config or a dict of its fields/parameters; settings (variant=, system=, memory_mode=,
        vela_ini=, config_file=, params=, or parameter names through **{"mem.axi1.read_latency_cycles": 900})
        go on top.
    inputs: arrays for the job's inputs, a list in input order or a dict by name or index (the job itself
        is not changed).
    pmu: PMU event names or ids of the job's configuration, one per event counter (4 on the U55 and U65, 8 on
        the U85; the report's pmu holds them).
    functional: the functional model (the same command-controller engine without time: the same outputs, faults
        and STATUS) instead of the timed platform (no timing in the Result).
    trace: write a Chrome/Perfetto trace of the run to this path.
    check: raise NpuFault when the NPU faults (else the Result's fault says so).
    Raises InputError (a ValueError) with the simulator's message for anything wrong in the job or config: a
    variant other than the one a case or model was compiled for (unless allow_variant_mismatch=True, which
    gives a VariantMismatchWarning instead), regions mapped to an SRAM (mem.sram.size_bytes) too small for them.
    """
    job = as_job(job)
    if inputs is not None:
        job = job.copy()
        job.set_inputs(inputs)
    config = Config.of(config, **settings)
    variant_warning = _ethosu_sim.variant_warning(job._native, config.request())
    if variant_warning:
        warnings.warn(variant_warning, VariantMismatchWarning, stacklevel=2)
    if config.system and config.vela_ini:
        for ignored in _ethosu_sim.vela_ini_ignored_keys(list(config.vela_ini), config.system,
                                                         config.memory_mode or "Dedicated_Sram"):
            warnings.warn(ignored, stacklevel=2)
    raw = _ethosu_sim.run(job._native, config.request(), list(pmu or []), bool(functional),
                          None if trace is None else os.fspath(trace))
    for event in raw["pmu_not_modelled"]:
        warnings.warn(f"PMU event {event} is not modelled and counts 0", stacklevel=2)
    result = Result(job, raw)
    if check and result.fault is not None:
        raise NpuFault(f"{job.name}: NPU fault: {result.fault}", result)
    return result
