"""Configuration as Python objects, and configuration changes moving cycles the expected way."""

import pytest

import ethosu_sim
from conftest import case_dir


def test_parameters_listed_with_units():
    params = ethosu_sim.parameters()
    p = params["mem.axi1.read_latency_cycles"]
    assert p["type"] == "int" and p["unit"] == "cycles" and p["value"] == 500 and p["description"]
    assert params["npu.variant"]["choices"] == ["ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256",
                                                "ethos-u65-256", "ethos-u65-512", "ethos-u85-128", "ethos-u85-256",
                                                "ethos-u85-512", "ethos-u85-1024", "ethos-u85-2048"]
    assert [v["name"] for v in ethosu_sim.variants()] == params["npu.variant"]["choices"]
    assert params["mem.axi1.bytes_per_cycle"]["value"] == pytest.approx(3.75)
    # Ranges as the registry enforces them, for sweeps and fits that must stay inside.
    assert (p["min"], p["max"]) == (0, 1000000)
    assert params["npu.mac.per_core"]["choices"] == ["32", "64", "128", "256", "512", "1024", "2048"]
    assert params["system.config"]["range"] == "read-only"
    with pytest.raises(ethosu_sim.InputError, match="read-only"):
        ethosu_sim.Config(params={"system.config": "imx93"}).resolve()


def test_config_layers_and_sources():
    c = ethosu_sim.Config(system="imx93-800mhz", params={"mem.axi1.read_latency_cycles": 900})
    c2 = c.replace(variant="ethos-u65-512", **{"mem.axi0.burst_bytes": 64})
    assert c.params == {"mem.axi1.read_latency_cycles": 900}  # replace() copies
    resolved = c2.resolve()
    assert resolved["system.clock_hz"]["value"] == 800_000_000
    assert resolved["mem.axi1.read_latency_cycles"]["value"] == 900
    assert resolved["mem.axi1.read_latency_cycles"]["origin"] == "python"
    assert resolved["mem.axi0.burst_bytes"]["value"] == 64
    assert resolved["npu.cores"]["value"] == 2
    assert ethosu_sim.Config.of({"variant": "ethos-u65-512"}).variant == "ethos-u65-512"
    assert ethosu_sim.Config().values()["npu.variant"] == "ethos-u65-256"


def test_vela_ini_system_config(tmp_path, add_case):
    ini = tmp_path / "vela.ini"
    ini.write_text("[System_Config.Slow_Dram]\n"
                   "core_clock=500e6\naxi0_port=Sram\naxi1_port=Dram\n"
                   "Sram_clock_scale=1.0\nSram_burst_length=32\nSram_read_latency=32\nSram_write_latency=32\n"
                   "Dram_clock_scale=0.25\nDram_burst_length=128\nDram_read_latency=1000\nDram_write_latency=500\n")
    c = ethosu_sim.Config(system="Slow_Dram", memory_mode="Dedicated_Sram", vela_ini=ini)
    values = c.values()
    assert values["system.clock_hz"] == 500_000_000
    assert values["mem.axi1.read_latency_cycles"] == 1000
    assert values["mem.axi1.bytes_per_cycle"] == pytest.approx(4.0)
    slow = ethosu_sim.run(add_case, c)
    assert slow.clock_hz == 500e6 and slow.exact
    assert slow.total_cycles > ethosu_sim.run(add_case).total_cycles


def test_more_macs_never_slower_when_compute_bound():
    # The U65-512's second core only works on streams compiled for it: compare Vela's two builds.
    for model in ("corpus/ic_resnet8_mlperf", "corpus/yolo_face_detect_int8_nxp"):
        c256 = case_dir(model)
        c512 = case_dir(model + "/u65_512")
        r256 = ethosu_sim.run(c256)
        r512 = ethosu_sim.run(c512)
        assert r512.variant == "ethos-u65-512" and r512.config["npu.cores"] == 2
        assert r256.mac_utilisation > 0.25  # compute-bound enough for the MACs to matter
        assert r512.total_cycles < r256.total_cycles
    # The same stream on more MACs is never slower (a what-if the user must ask for: it warns).
    conv = case_dir("opcorpus/conv2d_3x3_large_i8")
    with pytest.warns(ethosu_sim.VariantMismatchWarning, match="second core is idle"):
        r512 = ethosu_sim.run(conv, variant="ethos-u65-512", allow_variant_mismatch=True)
    assert r512.total_cycles <= ethosu_sim.run(conv).total_cycles


@pytest.mark.parametrize("case", ["opcorpus/conv2d_3x3_s1_same_relu_i8", "opcorpus/dwconv_3x3_large_i8",
                                  "corpus/kws_dscnn_mlperf", "corpus/ic_resnet8_mlperf/u65_512"])
def test_more_dram_latency_never_faster_less_bandwidth_never_faster(case):
    job = ethosu_sim.Job(case_dir(case))
    cycles = [ethosu_sim.run(job, **{"mem.axi1.read_latency_cycles": lat, "mem.axi1.write_latency_cycles": lat // 2})
              .total_cycles for lat in (0, 100, 250, 500, 1000, 2000)]
    assert cycles == sorted(cycles) and cycles[-1] > cycles[0]
    cycles = [ethosu_sim.run(job, **{"mem.axi1.bytes_per_cycle": bw}).total_cycles for bw in (16, 8, 3.75, 2, 1)]
    assert cycles == sorted(cycles) and cycles[-1] > cycles[0]
