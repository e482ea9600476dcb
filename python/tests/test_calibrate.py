"""calibrate() and compare() over captures made by `ethosu-sim run --capture` on a machine with other DRAM timing,
standing in for recordings from a board."""

import os
import subprocess
from pathlib import Path

import pytest

import ethosu_sim
from conftest import case_dir

SECRET = {"mem.axi1.read_latency_cycles": 800, "mem.axi1.bytes_per_cycle": 2.0}
FIT = ["mem.axi1.read_latency_cycles", "mem.axi1.bytes_per_cycle"]
CASES = ["opcorpus/add_i8", "opcorpus/fc_1024x256_large_i8", "corpus/kws_dscnn_mlperf",
         "corpus/ad_fc_autoencoder_mlperf", "corpus/person_detect_int8_tflm"]


def cli():
    build = os.environ.get("ETHOSU_SIM_BUILD_DIR")
    if not build:
        pytest.skip("ETHOSU_SIM_BUILD_DIR is not set (CTest sets it)")
    return Path(build) / "ethosu-sim"


def record(case, folder):
    sets = [arg for name, value in SECRET.items() for arg in ("--set", f"{name}={value}")]
    subprocess.run([str(cli()), "run", str(case), "--out", str(folder) + "_out", "--pmu", "CYCLE",
                    "--capture", str(folder)] + sets, check=True, capture_output=True)
    return folder


@pytest.fixture
def recordings(tmp_path):
    return [record(case_dir(c), tmp_path / f"{i:04d}-cli") for i, c in enumerate(CASES)]


def test_calibrate_finds_the_memory_timing(recordings, tmp_path):
    fit = ethosu_sim.calibrate(recordings[:4], FIT)
    assert fit.parameters["mem.axi1.read_latency_cycles"]["before"] == "500"
    assert abs(float(fit.parameters["mem.axi1.read_latency_cycles"]["after"]) / 800 - 1) < 0.1
    assert abs(float(fit.parameters["mem.axi1.bytes_per_cycle"]["after"]) / 2.0 - 1) < 0.1
    assert fit.median_abs_cycle_error_before > 0.05 > fit.median_abs_cycle_error_after
    assert not fit.flat_directions
    assert list(fit.jobs["job"]) == [str(r) for r in recordings[:4]]
    # The fitted file predicts the job kept back, through Config(config_file=...) and through compare().
    path = tmp_path / "board.cfg"
    fit.write(path)
    held = recordings[4]
    row = ethosu_sim.compare(held, config_file=path)[0]
    assert row["outputs_identical"] and abs(row["cycle_error"]) < 0.02
    recorded = ethosu_sim.compare(held, params=SECRET)[0]["recorded_cycles"]
    result = ethosu_sim.run(case_dir(CASES[4]), ethosu_sim.Config(config_file=path))
    assert abs(result.total_cycles / recorded - 1) < 0.02
    assert ethosu_sim.run(case_dir(CASES[4]), fit.config()).total_cycles == result.total_cycles


def test_a_recording_session_root_is_its_captures(recordings, tmp_path):
    rows = ethosu_sim.compare(tmp_path)
    assert len(rows) == len(recordings) and all(rows["outputs_identical"])
    # A simulator capture replays on the configuration it recorded; another one changes its cycles.
    assert all(e == 0 for e in rows["cycle_error"])
    other = ethosu_sim.compare(tmp_path, params={"mem.axi1.read_latency_cycles": 500, "mem.axi1.bytes_per_cycle": 3.75})
    assert all(e < -0.01 for e in other["cycle_error"])


def test_errors_name_what_is_wrong(tmp_path):
    with pytest.raises(ethosu_sim.InputError, match="not a capture folder"):
        ethosu_sim.calibrate(tmp_path / "missing", FIT)
    recording = record(Path(os.environ.get("ETHOSU_SIM_BUILD_DIR", "")) / "traces" / "tiny_cnn", tmp_path / "tiny")
    with pytest.raises(ethosu_sim.InputError, match="mem.axi1.read_latency_cycles"):
        ethosu_sim.calibrate(recording, "mem.axi1.read_latancy_cycles")
    with pytest.raises(ethosu_sim.InputError, match="takes one of a list"):
        ethosu_sim.calibrate(recording, "npu.mac.per_core")
