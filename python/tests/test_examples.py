"""The examples run as scripts (quick settings) and write their PNG and CSV files; the memory-study notebook runs
headless, and as its script twin."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ethosu_sim
from conftest import case_dir, shared_root

pytest.importorskip("matplotlib", reason="python3-matplotlib is not installed")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name, *args):
    env = dict(os.environ, ETHOSU_SIM_SHARED_DIR=str(shared_root()), MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    return done.stdout


def check_png(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_memory_sweep(tmp_path):
    case_dir("corpus/ic_resnet8_mlperf/u65_512")
    out = run_example("memory_sweep.py", tmp_path, "--quick", "--workers", 2)
    assert "runs in" in out
    check_png(tmp_path / "memory_sweep.png")
    rows = ethosu_sim.Table.read_csv(tmp_path / "memory_sweep.csv")
    assert len(rows) == 2 * 2 * 3 and {r["variant"] for r in rows} == {"ethos-u65-256", "ethos-u65-512"}
    assert all(r["status"] == "ok" and r["exact"] is True for r in rows)
    assert rows.meta["ethosu_sim"] == ethosu_sim.__version__


def test_bottleneck(tmp_path):
    case = case_dir("corpus/kws_dscnn_mlperf")
    out = run_example("operation_bottlenecks.py", tmp_path, "--case", case, "--top", 12)
    assert "kernel-operation cycles by bottleneck" in out
    check_png(tmp_path / "bottleneck.png")
    rows = ethosu_sim.Table.read_csv(tmp_path / "bottleneck.csv")
    assert rows and all(r["kind"] != "DMA" and r["bottleneck"] for r in rows)


def notebook_script(path):
    """The notebook's code cells, in order, as one script (its twin where Jupyter is not installed)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_memory_study_script_twin():
    case_dir("corpus/mobilenet_v2_100_224_uint8_coral")
    done = subprocess.run([sys.executable, "-c", notebook_script(EXAMPLES / "memory_study.ipynb")], cwd=EXAMPLES,
                          env=dict(os.environ, ETHOSU_SIM_SHARED_DIR=str(shared_root()), MPLBACKEND="Agg"),
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "25 runs" in done.stdout and "'complete': True" in done.stdout


def test_memory_study_notebook():
    """The notebook runs headless as Jupyter runs it, its plots inline (Debian's python3-nbclient and
    python3-ipykernel; the script twin above runs without them)."""
    case_dir("corpus/mobilenet_v2_100_224_uint8_coral")
    nbclient = pytest.importorskip("nbclient", reason="python3-nbclient is not installed")
    import nbformat

    notebook = nbformat.read(EXAMPLES / "memory_study.ipynb", as_version=4)
    env = dict(os.environ, ETHOSU_SIM_SHARED_DIR=str(shared_root()))
    env.pop("MPLBACKEND", None)  # the kernel's own inline backend draws the figures into the notebook
    nbclient.NotebookClient(notebook, timeout=240, kernel_name="python3",
                            resources={"metadata": {"path": str(EXAMPLES)}}).execute(env=env)
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 3
    assert any("text/html" in o.get("data", {}) for o in outputs)  # the sweep's Table
