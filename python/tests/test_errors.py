"""Simulator errors surface as Python exceptions carrying the simulator's message; the process stays usable."""

import json

import numpy as np
import pytest

import ethosu_sim


def test_exception_types():
    assert issubclass(ethosu_sim.InputError, ValueError)
    assert issubclass(ethosu_sim.NpuFault, RuntimeError)


@pytest.mark.parametrize("settings, message", [
    ({"mem.axi1.read_latancy_cycles": 10}, "mem.axi1.read_latency_cycles"),  # unknown name: close names listed
    ({"mem.axi1.read_latency_cycles": -5}, "mem.axi1.read_latency_cycles"),  # out of range
    ({"mem.axi1.burst_bytes": "many"}, "many"),                             # wrong type
    ({"system": "no_such_system"}, "no_such_system"),
    ({"variant": "ethos-u99-128"}, "ethos-u99-128"),
    ({"memory_mode": "Sram_Onyl"}, "Sram_Onyl"),                            # unknown memory mode
])
def test_bad_configuration(add_case, settings, message):
    with pytest.raises(ethosu_sim.InputError, match=message.replace(".", r"\.")):
        ethosu_sim.run(add_case, **settings)
    assert ethosu_sim.run(add_case).exact  # the simulator is still usable


def test_not_a_setting(add_case):
    with pytest.raises(ethosu_sim.InputError, match="latency"):
        ethosu_sim.run(add_case, latency=3)


def test_bad_files(tmp_path, add_case):
    with pytest.raises(ethosu_sim.InputError, match="no_such_case"):
        ethosu_sim.Job(tmp_path / "no_such_case")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{ not json")
    with pytest.raises(ethosu_sim.InputError, match="manifest.json"):
        ethosu_sim.Job(tmp_path / "broken")
    with pytest.raises(ethosu_sim.InputError, match="from_stream"):
        ethosu_sim.Job(add_case / "cmdstream.bin")
    with pytest.raises(ethosu_sim.InputError, match="tflite"):
        ethosu_sim.Job(add_case / "cmdstream.bin.tflite")


def test_bad_inputs(add_case):
    job = ethosu_sim.Job(add_case)
    with pytest.raises(ethosu_sim.InputError, match="int8.*float32"):
        job.set_input(0, np.zeros((1, 8, 8, 16), dtype=np.float32))
    with pytest.raises(ethosu_sim.InputError, match="1024 bytes"):
        job.set_input("ifm", np.zeros(10, dtype=np.int8))
    with pytest.raises(ethosu_sim.InputError, match="ifm3.*ifm, ifm2"):
        job.set_input("ifm3", np.zeros(1024, dtype=np.int8))
    with pytest.raises(ethosu_sim.InputError, match="region 1"):
        job.write(1, 2040, b"0123456789")
    # The right number of bytes in the wrong shape, and values the type cannot hold, are refused, not wrapped.
    with pytest.raises(ethosu_sim.InputError, match=r"shape \(1, 8, 8, 16\), got \(1, 16, 8, 8\)"):
        job.set_input("ifm", np.zeros((1, 16, 8, 8), dtype=np.int8))
    job.set_input("ifm", np.zeros(1024, dtype=np.int8))  # flat, as read from a file: no shape to contradict
    with pytest.raises(ethosu_sim.InputError, match=r"values from 300 to 300 do not fit \[-128, 127\]"):
        job.set_input("ifm", np.full((1, 8, 8, 16), 300).tolist())
    job.set_input("ifm", np.full((1, 8, 8, 16), -128).tolist())  # in range: fine
    job.set_input("ifm", bytes(1024))                            # raw bytes say nothing of a shape


def test_stream_from_bytes_and_confined_case_files(add_case, tmp_path):
    # Bytes are the stream itself, never a path (an empty one is an empty stream, refused as such).
    stream = (add_case / "cmdstream.bin").read_bytes()
    job = ethosu_sim.Job.from_stream(stream, regions={1: 2048})
    assert job.kind == "stream"
    with pytest.raises(ethosu_sim.InputError, match="empty"):
        ethosu_sim.Job.from_stream(b"", regions={1: 16})
    # A manifest that names a file outside its folder is refused unless allowed.
    case = tmp_path / "case"
    case.mkdir()
    for f in add_case.iterdir():
        if f.is_file():
            (case / f.name).symlink_to(f)
    with pytest.raises(ethosu_sim.InputError, match="outside the case folder"):
        ethosu_sim.Job(case)
    assert ethosu_sim.run(ethosu_sim.Job(case, allow_outside_case=True)).exact


def test_bad_pmu_events(add_case):
    with pytest.raises(ethosu_sim.InputError, match="NO_SUCH_EVENT"):
        ethosu_sim.run(add_case, pmu=["NO_SUCH_EVENT"])
    with pytest.raises(ethosu_sim.InputError, match="at most 4"):
        ethosu_sim.run(add_case, pmu=["CYCLE", "NPU_IDLE", "NPU_ACTIVE", "MAC_ACTIVE", "AO_ACTIVE"])
    with pytest.warns(UserWarning, match="not modelled"):
        ethosu_sim.run(add_case, pmu=["ECC_SB0"])


def test_npu_fault_carries_the_message(add_case):
    # The arena is cut to 1 KiB: the IFM2 read and the OFM write fall outside region 1, and the NPU faults.
    manifest = json.loads((add_case / "manifest.json").read_text())
    job = ethosu_sim.Job.from_stream(add_case / "cmdstream.bin", {1: 1024, 2: 1024},
                                     outputs={"ofm": (1, 0, 1024)})
    with pytest.raises(ethosu_sim.NpuFault) as info:
        ethosu_sim.run(job)
    message = str(info.value)
    assert "cmdstream.bin: NPU fault:" in message and "region" in message.lower()
    assert info.value.result.fault and info.value.result.fault in message
    r = ethosu_sim.run(job, check=False)
    assert r.fault == info.value.result.fault and r.status != "ok"
    # A correct job right after the fault runs normally.
    assert ethosu_sim.run(add_case).exact
    assert manifest["regions"]["1"]["size_bytes"] == 2048  # the case this test cuts down


def test_a_variant_other_than_the_case_is_refused_or_warned_never_silent(add_case):
    with pytest.raises(ethosu_sim.InputError, match=r"compiled for ethos-u65-256, asked to run on ethos-u65-512 .*"
                                                    r"second core is idle.*allow_variant_mismatch=True"):
        ethosu_sim.run(add_case, variant="ethos-u65-512")
    with pytest.warns(ethosu_sim.VariantMismatchWarning, match="the cycles are the ethos-u65-256's"):
        r = ethosu_sim.run(add_case, variant="ethos-u65-512", allow_variant_mismatch=True)
    assert r.variant == "ethos-u65-512" and r.exact
    assert issubclass(ethosu_sim.VariantMismatchWarning, UserWarning)


def test_regions_that_do_not_fit_the_sram_are_refused_naming_them(conv_case):
    job = ethosu_sim.Job(conv_case)
    size = job.region_sizes[2]  # imx93: region 2 (Vela's SRAM cache) on AXI0
    assert size > 1
    with pytest.raises(ethosu_sim.InputError, match=rf"region 2 \(AXI0, {size} bytes\) is mapped to the SRAM by "
                                                    r"REGIONCFG .* the on-chip SRAM holds 1 bytes"):
        ethosu_sim.run(job, **{"mem.sram.size_bytes": 1})
    with pytest.raises(ethosu_sim.InputError, match="there is no on-chip SRAM"):
        ethosu_sim.run(job, **{"mem.sram.size_bytes": 0})
    # No SRAM as a memory mode maps every region to DRAM; unbounded takes any size.
    assert ethosu_sim.run(job, memory_mode="No_Sram").exact
    assert ethosu_sim.run(job, **{"mem.sram.size_bytes": "unbounded", "regions.1.port": 0}).exact
    assert ethosu_sim.run(job, system="imx93", memory_mode="Shared_Sram").config["regions.1.port"] == 0


def test_internal_default_names_both_velas(add_case):
    with pytest.raises(ethosu_sim.InputError, match="did you mean arm-internal-default or nxp-internal-default"):
        ethosu_sim.run(add_case, system="internal-default")
    arm = ethosu_sim.run(add_case, system="arm-internal-default").config["mem.axi1.bytes_per_cycle"]
    nxp = ethosu_sim.run(add_case, system="nxp-internal-default").config["mem.axi1.bytes_per_cycle"]
    assert (arm, nxp) == (12.0, 3.75)
