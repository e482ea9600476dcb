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

