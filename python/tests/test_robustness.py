"""Hostile inputs through the Python module (label `robustness`): each ends in a result or an InputError, never a
hang, a Python-level crash or unbounded memory. The sample job of the build (traces/tiny_cnn) is enough: no
conformance data needed."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ethosu_sim


def sample_job():
    build = os.environ.get("ETHOSU_SIM_BUILD_DIR")
    if not build:
        pytest.skip("ETHOSU_SIM_BUILD_DIR is not set (CTest sets it)")
    return Path(build) / "traces" / "tiny_cnn"


def test_trace_into_a_fifo_read_by_a_python_thread(tmp_path):
    # The trace was opened holding the interpreter lock, so a reader thread in the same interpreter could never
    # open the FIFO: the whole interpreter hung. Run in a child, so that a hang fails the test instead of the suite.
    fifo = tmp_path / "trace.json"
    os.mkfifo(fifo)
    script = textwrap.dedent(f"""
        import json, threading, ethosu_sim
        received = []
        def read():
            with open({str(fifo)!r}) as f:
                received.append(f.read())
        reader = threading.Thread(target=read)
        reader.start()
        for attempt in range(1000):
            try:
                ethosu_sim.run({str(sample_job())!r}, trace={str(fifo)!r})
                break
            except ethosu_sim.InputError:  # the reader has not opened the FIFO yet
                import time; time.sleep(0.01)
        reader.join()
        print(len(json.loads(received[0])["traceEvents"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 10


def test_trace_into_a_fifo_without_a_reader_is_refused(tmp_path):
    fifo = tmp_path / "trace.json"
    os.mkfifo(fifo)
    with pytest.raises(ethosu_sim.InputError, match="trace.json: cannot write"):
        ethosu_sim.run(sample_job(), trace=fifo)
    assert ethosu_sim.run(sample_job()).exact


def test_a_deeply_nested_manifest_is_read_as_the_simulator_reads_it(tmp_path):
    # Python's json module recursed into what the C++ reader accepts and raised RecursionError; the job is now
    # read by the simulator alone.
    case = tmp_path / "deep"
    case.mkdir()
    for f in sample_job().iterdir():
        if f.is_file():
            (case / f.name).write_bytes(f.read_bytes())
    manifest = (case / "manifest.json").read_text()
    depth = 100_000
    nested = manifest.replace("{", '{"deep": ' + "[" * depth + "]" * depth + ", ", 1)
    (case / "manifest.json").write_text(nested)
    job = ethosu_sim.Job(case)
    assert ethosu_sim.run(job).exact
    assert job.outputs[0]["shape"] == ethosu_sim.Job(sample_job()).outputs[0]["shape"]


def test_a_malformed_shape_is_an_input_error(tmp_path):
    case = tmp_path / "shape"
    case.mkdir()
    for f in sample_job().iterdir():
        if f.is_file():
            (case / f.name).write_bytes(f.read_bytes())
    manifest = json.loads((case / "manifest.json").read_text())
    manifest["inputs"][0]["shape"] = [1, -2]
    (case / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ethosu_sim.InputError, match=r"inputs\[0\]\.shape\[1\]: is not a non-negative integer"):
        ethosu_sim.Job(case)


DMA_4MIB = """NPU_SET_DMA0_SRC_REGION region=0
NPU_SET_DMA0_DST_REGION region=1
NPU_SET_DMA0_SRC addr=0
NPU_SET_DMA0_DST addr=0
NPU_SET_DMA0_LEN length=4194304
NPU_OP_DMA_START
NPU_OP_STOP mask=0xffff
"""


def dma_recordings(tmp_path, count):
    """`count` recordings of one job that copies 4 MiB between two regions (8 MiB of files each), as hard links
    of one capture made by `ethosu-sim run --capture`."""
    sim = str(sample_job().parent.parent / "ethosu-sim")
    (tmp_path / "dma.s").write_text(DMA_4MIB)
    subprocess.run([sim, "asm", str(tmp_path / "dma.s"), "-o", str(tmp_path / "dma.bin")], check=True)
    (tmp_path / "source.bin").write_bytes(bytes(range(256)) * 16384)
    first = tmp_path / "rec0"
    subprocess.run([sim, "run", str(tmp_path / "dma.bin"), "--region", "0=" + str(tmp_path / "source.bin"),
                    "--region", "1=:4M", "--capture", str(first)], check=True, stdout=subprocess.DEVNULL)
    folders = [first]
    for k in range(1, count):
        folder = tmp_path / ("rec%d" % k)
        folder.mkdir()
        for f in first.iterdir():
            os.link(f, folder / f.name)
        folders.append(folder)
    return [str(f) for f in folders]


def grown_mib(statement, folders):
    """How much a fresh interpreter's peak memory grows (MiB) running `statement`, Python source over `folders`
    that sets `result`."""
    script = textwrap.dedent("""
        import json, resource, sys, ethosu_sim
        folders = json.loads(sys.argv[1])
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        %s
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
    """) % statement
    done = subprocess.run([sys.executable, "-c", script, json.dumps(folders)], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    return float(done.stdout)


def test_comparing_many_recordings_keeps_none_of_their_jobs(tmp_path):
    # compare() kept every replayed job (about 12 MiB here each): 20 recordings held some 250 MiB.
    folders = dma_recordings(tmp_path, 20)
    grown = grown_mib("result = ethosu_sim.compare(folders); assert all(r['outputs_identical'] for r in result)",
                      folders)
    assert grown < 80, "compare() of 20 recordings of 8 MiB grew the process by %.0f MiB" % grown


def test_calibrating_on_many_recordings_holds_a_bounded_number(tmp_path):
    # calibrate() held every recording's job (8 MiB here each) for the whole search; it keeps 64 MiB of them now.
    folders = dma_recordings(tmp_path, 20)
    grown = grown_mib("ethosu_sim.calibrate(folders, ['mem.axi1.read_latency_cycles'], max_evaluations=2)", folders)
    assert grown < 120, "calibrate() on 20 recordings of 8 MiB grew the process by %.0f MiB" % grown
