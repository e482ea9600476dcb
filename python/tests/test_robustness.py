"""Hostile inputs through the Python module (label `robustness`): each ends in a result or an InputError, never a
hang, a Python-level crash or unbounded memory. The sample job of the build (traces/tiny_cnn) is enough: no
conformance data needed."""

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

