"""Recordings from a board (libethosu-record.so) against the simulator: compare() and calibrate().

    import ethosu_sim
    rows = ethosu_sim.compare("recordings/")            # one dict per job: outputs_identical, cycle_error, ...
    fit = ethosu_sim.calibrate("recordings/", ["mem.axi1.read_latency_cycles", "mem.axi1.bytes_per_cycle"])
    fit.parameters, fit.jobs, fit.flat_directions
    fit.write("board.cfg")                               # for Config(config_file=...), --config, ETHOSU_SIM_CONFIG
    ethosu_sim.run(case, fit.config())

The same computations as `ethosu-sim replay` and `ethosu-sim calibrate` (host/recording/*.h).
"""

import dataclasses
import json
import os
from typing import List, Mapping, Optional

from . import _ethosu_sim
from .config import Config
from .table import Table


def _capture_folders(recordings):
    """Capture folders from a folder, a list of folders, or a recording session's root (its numbered subfolders)."""
    if isinstance(recordings, (str, os.PathLike)):
        recordings = [recordings]
    folders = []
    for r in recordings:
        r = os.fspath(r)
        if os.path.isdir(r) and not os.path.exists(os.path.join(r, "capture.json")):
            subs = sorted(os.path.join(r, d) for d in os.listdir(r)
                          if os.path.isfile(os.path.join(r, d, "capture.json")))
            if subs:
                folders.extend(subs)
                continue
        folders.append(r)
    if not folders:
        raise _ethosu_sim.InputError("no recordings given")
    return folders


@dataclasses.dataclass(frozen=True)
class Calibration:
    """What calibrate() found. parameters: name -> {before, after, unit, determined, note}; jobs: a Table of
    job, recorded_cycles, cycles_before, cycles_after, cycle_error_before, cycle_error_after (simulated /
    recorded - 1); flat_directions: what the recordings cannot determine; values: the parameter file's
    name -> value text."""
    parameters: Mapping[str, dict]
    jobs: Table
    flat_directions: List[str]
    median_abs_cycle_error_before: float
    median_abs_cycle_error_after: float
    worst_cycle_error_before: float
    worst_cycle_error_after: float
    overhead_ns: Optional[float]
    evaluations: int
    values: Mapping[str, str]
    parameter_file: str

    def write(self, path):
        """Writes the parameter file ('name = value' lines)."""
        with open(path, "w") as f:
            f.write(self.parameter_file)

    def config(self, base=None):
        """base (a Config, default none) with the fitted values as parameters."""
        return Config.of(base).replace(params=dict(self.values))


def calibrate(recordings, fit, config=None, *, max_evaluations=400, **settings):
    """Fits the parameters named in fit (a list, or a comma-separated string) to the recorded cycle counts.

    recordings: capture folders, or the root of a recording session (ETHOSU_RECORD_DIR).
    config: the starting Config (default: the imx93 defaults), settings on top as for run().
    Returns a Calibration; raises InputError for a bad recording or a parameter that cannot be fitted.
    """
    if isinstance(fit, str):
        fit = [name for name in fit.split(",") if name]
    config = Config.of(config, **settings)
    raw = json.loads(_ethosu_sim.calibrate(_capture_folders(recordings), list(fit), config.request(),
                                           int(max_evaluations)))
    return Calibration(
        parameters={p.pop("name"): p for p in raw["parameters"]},
        jobs=Table(raw["jobs"]),
        flat_directions=list(raw["flat_directions"]),
        median_abs_cycle_error_before=raw["median_abs_cycle_error_before"],
        median_abs_cycle_error_after=raw["median_abs_cycle_error_after"],
        worst_cycle_error_before=raw["worst_cycle_error_before"],
        worst_cycle_error_after=raw["worst_cycle_error_after"],
        overhead_ns=raw["overhead_ns"],
        evaluations=raw["evaluations"],
        values=dict(raw["values"]),
        parameter_file=raw["parameter_file"],
    )


def compare(recordings, config_file=None, *, params=None, functional=False):
    """Replays recordings and compares them with the simulator, as `ethosu-sim replay --json` does: a Table with
    one row per job (capture, outputs_identical, output_differences, recorded_cycles, simulated_cycles,
    cycle_error, counters: a list of {event, recorded, simulated, ratio}, wall_ns, overhead_ns, ...). config_file
    and params (name -> value) replay on another configuration."""
    assignments = [f"{name}={value}" for name, value in (params or {}).items()]
    raw = _ethosu_sim.compare_recordings(_capture_folders(recordings),
                                         None if config_file is None else os.fspath(config_file), assignments,
                                         bool(functional))
    return Table(json.loads(raw)["jobs"])
