"""run(): bit-exact outputs over the corpus, inputs from numpy, the three job sources, report contents,
repeated runs in one process."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ethosu_sim
from conftest import case_dir, shared_root

# Outputs whose only reference is ArmNN's float arithmetic: within this many units (as the C++ corpus suite).
ARMNN_TOLERANCE = 4


def all_cases():
    root = shared_root()
    cases = []
    for group in ("opcorpus", "corpus"):
        for d in sorted((root / group).glob("*/manifest.json")):
            cases.append(f"{group}/{d.parent.name}")
            if (d.parent / "u65_512" / "manifest.json").exists():
                cases.append(f"{group}/{d.parent.name}/u65_512")
    # Vela's compilations of the same models for every U55 configuration (CASE/<accelerator>/model_vela.tflite).
    for vela in sorted(root.glob("corpus-u55/*/ethos-u55-*/model_vela.tflite")):
        cases.append(str(vela.parent.relative_to(root)))
    return cases or ["opcorpus/add_i8"]  # one placeholder that skips, saying why


@pytest.mark.parametrize("case", all_cases())
def test_corpus_outputs_bit_exact(case):
    path = case_dir(case)
    job = ethosu_sim.Job(path)
    r = ethosu_sim.run(job)
    if case.startswith("corpus-u55/"):
        assert job.variant == path.name and r.config["npu.variant"] == path.name
    assert r.total_cycles > 0 and r.status == "ok"
    check_time_adds_up(r)
    for k, t in enumerate(job.outputs):
        if t["expected"] is None:
            continue  # the model's references differ from Vela's lowering: no reference for this output
        expected = np.fromfile(t["expected"], dtype=t["dtype"]).reshape(t["shape"])
        got = r.outputs[k]
        assert got.dtype == expected.dtype and got.shape == expected.shape
        if "armnn" in t["reference_engine"]:
            diff = np.abs(got.astype(np.int64) - expected.astype(np.int64)).max()
            assert diff <= ARMNN_TOLERANCE, f"{t['name']}: max |diff| {diff} vs ArmNN"
        else:
            assert np.array_equal(got, expected), f"{t['name']}: {r.comparisons[k]['text']}"
            assert r.comparisons[k]["exact"]


def check_time_adds_up(r):
    """The time breakdown adds up, in the Result, its table and the sweep row; nothing is counted twice."""
    assert list(r.time_breakdown) == ethosu_sim.time_causes()
    assert sum(r.time_breakdown.values()) == r.total_cycles
    assert r.time_breakdown["controller"] == sum(r.controller_cycles.values())
    ops = r.ops
    assert int(ops["exclusive_cycles"].sum()) + r.time_breakdown["controller"] == r.total_cycles
    for cause in ethosu_sim.time_causes()[:-1]:
        assert int(ops[f"exclusive_{cause}"].sum()) == r.time_breakdown[cause]
    assert (ops["exclusive_cycles"] <= ops["cycles"]).all()
    for column in ops.columns:
        if column.startswith("stall_"):
            assert (ops[column] <= ops["cycles"]).all(), column
    # The controller's gates are its waits, held before an operation starts: counted once.
    for cause in ("blockdep", "shram_reconfig"):
        assert r.stall_cycles[cause] == r.cc_stall_cycles.get(cause, 0) == int(ops[f"held_{cause}"].sum())
    row = r.summary_row()
    assert sum(v for k, v in row.items() if k.startswith("cycles_")) == row["total_cycles"]


def test_minimal_session(add_case):
    with pytest.warns(ethosu_sim.VariantMismatchWarning):
        r = ethosu_sim.run(str(add_case), variant="ethos-u65-512", allow_variant_mismatch=True)
    assert r.variant == "ethos-u65-512" and r.config["npu.cores"] == 2
    assert isinstance(r.total_cycles, int) and r.total_cycles > 0
    assert isinstance(r.outputs[0], np.ndarray) and r.outputs[0].shape == (1, 8, 8, 16)
    assert r.ops[0]["kind"] == "ELEMENTWISE.ADD"
    assert r.pmu["PMCCNTR"] >= r.total_cycles
    assert r.time_s == pytest.approx(r.total_cycles / r.clock_hz)


def test_the_u85_counts_eight_pmu_events():
    case = case_dir("corpus-u85/conv2d_1x1_s1_i8/ethos-u85-256")
    eight = ["MAC_ACTIVE", "AO_ACTIVE", "WD_ACTIVE", "NPU_ACTIVE", "SRAM_RD_DATA_BEAT_RECEIVED",
             "SRAM_WR_DATA_BEAT_WRITTEN", "EXT_RD_DATA_BEAT_RECEIVED", "EXT_RD_TRANS_ACCEPTED"]
    assert {e["name"] for e in ethosu_sim.pmu_events("ethos-u85-256")} >= set(eight)
    r = ethosu_sim.run(case, pmu=eight)
    assert set(r.pmu) == set(eight) | {"PMCCNTR"}
    assert all(r.pmu[e] > 0 for e in eight if not e.startswith("SRAM")), r.pmu
    assert r.pmu["MAC_ACTIVE"] == r.stats["npu.mac.active_cycles"]
    with pytest.raises(ethosu_sim.InputError, match="at most 8"):
        ethosu_sim.run(case, pmu=eight + ["CYCLE"])


def test_report_views_agree(conv_case):
    r = ethosu_sim.run(conv_case, pmu=["MAC_ACTIVE", "ETHOSU_PMU_AXI1_RD_DATA_BEAT_RECEIVED"])
    assert set(r.pmu) == {"PMCCNTR", "MAC_ACTIVE", "AXI1_RD_DATA_BEAT_RECEIVED"}
    assert r.pmu["MAC_ACTIVE"] > 0 and r.pmu["AXI1_RD_DATA_BEAT_RECEIVED"] > 0
    ops = r.ops.to_numpy()
    assert len(ops) == len(r.report["ops"]) and ops["cycles"].dtype == np.int64
    assert list(ops["kind"]) == [op["kind"] for op in r.report["ops"]]
    assert int(ops["macs"].sum()) == r.macs > 0
    conv = r.ops.where(kind="CONV")[0]
    assert conv["ofm_h"] == 16 and conv["ofm_w"] == 16 and conv["ofm_c"] == 16
    assert conv["mac_busy_cycles"] > 0 and conv["wd_busy_cycles"] > 0
    # Port totals are the per-operation traffic plus the command stream fetch.
    assert r.port_bytes("axi1", "read") >= int(ops["axi1_read_bytes"].sum()) > 0
    assert 0 < r.mac_utilisation < 1
    assert set(r.stall_cycles) >= set(ethosu_sim.stall_causes())
    assert r.config["mem.axi1.read_latency_cycles"] == 500
    assert r.config_detail["npu.variant"]["source"] in ("preset", "default")
    # The PMU counts the blocks' own statistics: the report and the counter are one number.
    assert r.stats["npu.mac.active_cycles"] == r.pmu["MAC_ACTIVE"]
    assert r.stats["npu.mac.macs"] == r.macs
    assert r.report["stats"]["npu.mac"]["active_cycles"]["unit"] == "cycles"


def test_inputs_from_numpy_and_job_unchanged(add_case):
    job = ethosu_sim.Job(add_case)
    a, b = job.input(0), job.input("ifm2")
    assert a.dtype == np.int8 and a.shape == (1, 8, 8, 16)
    reference = ethosu_sim.run(job, functional=True)
    zeros = ethosu_sim.run(job, inputs={"ifm": np.zeros_like(a), "ifm2": np.zeros_like(b)})
    assert zeros.exact is False  # the expected file is for the job's own inputs
    # Against the functional model with the same inputs: the timed platform writes the same bytes.
    functional = ethosu_sim.run(job, inputs=[np.zeros_like(a), np.zeros_like(b)], functional=True)
    assert np.array_equal(zeros.outputs[0], functional.outputs[0])
    assert functional.total_cycles is None and not functional.timed
    # The job kept its inputs.
    again = ethosu_sim.run(job)
    assert again.exact and np.array_equal(again.outputs[0], reference.outputs[0])
    assert np.array_equal(job.input(0), a)


def test_tflite_job_with_numpy_inputs(add_case):
    job = ethosu_sim.Job(add_case / "vela.tflite")
    assert job.kind == "tflite" and [t["name"] for t in job.inputs] == ["ifm", "ifm2"]
    assert job.inputs[0]["shape"] == (1, 8, 8, 16)
    inputs = [np.fromfile(add_case / f"input{k}.bin", dtype=np.int8).reshape(1, 8, 8, 16) for k in range(2)]
    r = ethosu_sim.run(job, inputs=inputs)
    expected = np.fromfile(add_case / "expected_output.bin", dtype=np.int8)
    assert np.array_equal(r.outputs[0].reshape(-1), expected)


def test_model_inputs_in_graph_order_and_by_name(add_case):
    job = ethosu_sim.Job(add_case / "vela.tflite")
    manifest = json.loads((add_case / "manifest.json").read_text())
    assert [t["name"] for t in job.inputs] == [t["name"] for t in manifest["inputs"]]  # the graph's order
    data = [np.fromfile(add_case / t["file"], dtype=np.int8) for t in manifest["inputs"]]
    expected = (add_case / "expected_output.bin").read_bytes()
    assert ethosu_sim.run(job, inputs=data, functional=True).outputs[0].tobytes() == expected
    named = {t["name"]: d for t, d in zip(manifest["inputs"], data)}
    assert ethosu_sim.run(job, inputs=named, functional=True).outputs[0].tobytes() == expected


def payload(stream, out, *options):
    """`stream` wrapped by the project's own tools: disassembled, then `ethosu-sim asm --payload ...`."""
    tool = Path(os.environ.get("ETHOSU_SIM_BUILD_DIR", "build")) / "ethosu-sim"
    if not tool.exists():
        pytest.skip(f"{tool} not built")
    text = out.with_suffix(".txt")
    subprocess.run([str(tool), "disasm", str(stream), "-o", str(text)], check=True)
    subprocess.run([str(tool), "asm", str(text), "-o", str(out), "--payload", *options], check=True)
    return out


def test_cop2_and_old_header_payloads(conv_case, tmp_path):
    manifest = json.loads((conv_case / "manifest.json").read_text())
    regions = {0: conv_case / "region0_flash.bin", 1: manifest["regions"]["1"]["size_bytes"],
               2: manifest["regions"]["2"]["size_bytes"]}
    out = manifest["outputs"][0]
    expected = (conv_case / "expected_output.bin").read_bytes()

    def job_of(path):
        job = ethosu_sim.Job.from_stream(path, regions, outputs={"ofm": (1, out["offset"], out["size_bytes"])})
        for t in manifest["inputs"]:
            job.write(t["region"], t["offset"], (conv_case / t["file"]).read_bytes())
        return job

    cop2 = job_of(payload(conv_case / "cmdstream.bin", tmp_path / "cop2.bin", "COP2", "--separate-io-regions"))
    assert ethosu_sim.run(cop2, functional=True).output("ofm").tobytes() == expected
    # Vela 3.2's header names the U55: refused as Arm's core driver refuses it, run when the variant is named.
    old = job_of(payload(conv_case / "cmdstream.bin", tmp_path / "old.bin", "COP1", "--config-word", "0x00003008"))
    with pytest.raises(ethosu_sim.InputError, match="names ethos-u55-256"):
        ethosu_sim.run(old, functional=True)
    with pytest.warns(UserWarning, match=r"names ethos-u55-256 \(CONFIG word 0x00003008, product 0\)"):
        r = ethosu_sim.run(old, functional=True, variant="ethos-u65-256")
    assert r.output("ofm").tobytes() == expected


def test_raw_stream_job(conv_case):
    manifest = json.loads((conv_case / "manifest.json").read_text())
    regions = {0: conv_case / "region0_flash.bin", 1: manifest["regions"]["1"]["size_bytes"],
               2: manifest["regions"]["2"]["size_bytes"]}
    out = manifest["outputs"][0]
    job = ethosu_sim.Job.from_stream(conv_case / "cmdstream.bin", regions,
                                     outputs={"ofm": (1, out["offset"], out["size_bytes"])})
    for t in manifest["inputs"]:
        job.write(t["region"], t["offset"], (conv_case / t["file"]).read_bytes())
    r = ethosu_sim.run(job)
    assert r.output("ofm").dtype == np.uint8
    assert r.output("ofm").tobytes() == (conv_case / "expected_output.bin").read_bytes()
    assert r.total_cycles == ethosu_sim.run(conv_case).total_cycles


def comparable(r):
    """A run's report and outputs, without host wall time and the operations' absolute start/end cycles
    (see test_operation_cycles_count_from_the_job_start)."""
    report = dict(r.report)
    report.pop("host")
    report["ops"] = [{k: v for k, v in op.items() if k not in ("start_cycle", "end_cycle")} for op in report["ops"]]
    return json.dumps(report, sort_keys=True), [o.tobytes() for o in r.outputs]


def test_repeated_runs_identical_across_configurations(conv_case, add_case):
    key = comparable
    job = ethosu_sim.Job(conv_case)
    first = key(ethosu_sim.run(job))
    slow = ethosu_sim.run(job, **{"mem.axi1.read_latency_cycles": 2000})
    other = ethosu_sim.run(add_case, system="imx93-800mhz")
    assert key(slow) != first and other.clock_hz == 800e6
    for _ in range(3):
        assert key(ethosu_sim.run(job)) == first
    assert key(ethosu_sim.run(job, **{"mem.axi1.read_latency_cycles": 2000})) == key(slow)


def test_trace_file(add_case, tmp_path):
    path = tmp_path / "trace.json"
    ethosu_sim.run(add_case, trace=path)
    trace = json.loads(path.read_text())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    assert any(e.get("name") == "ELEMENTWISE.ADD" for e in events)


def test_threads_take_turns(add_case):
    from concurrent.futures import ThreadPoolExecutor

    job = ethosu_sim.Job(add_case)
    with ThreadPoolExecutor(4) as pool:
        cycles = list(pool.map(lambda _: ethosu_sim.run(job).total_cycles, range(8)))
    assert len(set(cycles)) == 1


def test_operation_cycles_count_from_the_job_start(conv_case):
    first = [(op["start_cycle"], op["end_cycle"]) for op in ethosu_sim.run(conv_case).ops]
    second = [(op["start_cycle"], op["end_cycle"]) for op in ethosu_sim.run(conv_case).ops]
    assert first == second


def test_lower_clock_after_a_faster_job_is_unaffected(add_case, conv_case):
    alone = ethosu_sim.run(add_case, system="imx93-800mhz").total_cycles
    ethosu_sim.run(add_case, system="imx93-800mhz")
    ethosu_sim.run(conv_case)  # 1 GHz
    assert ethosu_sim.run(add_case, system="imx93-800mhz").total_cycles == alone


def test_notebook_views(conv_case):
    r = ethosu_sim.run(conv_case)
    page = r._repr_html_()
    assert "conv2d_3x3_s1_same_relu_i8" in page and f"{r.total_cycles:,} cycles" in page
    assert "time by cause" in page and "<table>" in page
    table = r.ops._repr_html_()
    assert table.count("<tr>") == len(r.ops) + 1 and "exclusive_cycles" in table
    assert ethosu_sim.run(conv_case, functional=True)._repr_html_().endswith("(functional run, no timing)</p>")


def test_layer_names_from_vela_files(tmp_path):
    case = case_dir("corpus/kws_dscnn_mlperf")
    job = ethosu_sim.Job(case)
    assert job.layers_note == "layer names from Vela's register listing"
    r = ethosu_sim.run(job)
    assert all(row["layer"] for row in r.ops)
    assert r.ops[1]["layer"].startswith("functional_1/activation/Relu;") and r.ops[1]["kind"] == "CONV"
    assert {op["offset"]: op["layer"] for op in r.report["ops"]} == job.layers
    # The per-layer CSV names them the same way here; False names nothing; a wrong file says what it is not.
    from_csv = ethosu_sim.Job(case, layers=case / "vela_per_layer.csv")
    assert from_csv.layers == job.layers and "per-layer CSV" in from_csv.layers_note
    assert ethosu_sim.Job(case, layers=False).layers == {}
    assert set(ethosu_sim.run(ethosu_sim.Job(case, layers=False)).ops["layer"]) == {""}
    (tmp_path / "x.txt").write_text("hello\n")
    with pytest.raises(ethosu_sim.InputError, match="x.txt: neither Vela's register listing"):
        ethosu_sim.Job(case, layers=tmp_path / "x.txt")
    trace = tmp_path / "t.json"
    ethosu_sim.run(job, trace=trace)
    assert '"layer":"functional_1/activation/Relu;' in trace.read_text()
