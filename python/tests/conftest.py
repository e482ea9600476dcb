"""Shared fixtures: where the conformance data is, and the small cases the tests run.

The data root is $ETHOSU_SIM_SHARED_DIR, else $ETHOSU_SIM_SHARED_DIR_DEFAULT (CTest passes the CMake cache
variable there), else ../shared next to the source tree. Tests that need it skip, saying where they looked.
"""

import os
from pathlib import Path

import pytest


def shared_root():
    for var in ("ETHOSU_SIM_SHARED_DIR", "ETHOSU_SIM_SHARED_DIR_DEFAULT"):
        if os.environ.get(var):
            return Path(os.environ[var])
    return Path(__file__).resolve().parents[3] / "shared"


def case_dir(relative):
    """A case folder under the data root, or a skip naming where it was looked for."""
    path = shared_root() / relative
    if not (path / "manifest.json").exists() and not (path / "model_vela.tflite").exists():
        pytest.skip(f"conformance data not found: '{path}' (set ETHOSU_SIM_SHARED_DIR or "
                    "-DETHOSU_SIM_SHARED_DIR=...); skipping")
    return path


@pytest.fixture
def add_case():
    """Two int8 inputs, one output aliasing the first: small and fast."""
    return case_dir("opcorpus/add_i8")


@pytest.fixture
def conv_case():
    """A convolution with weights DMA'd into SRAM: exercises MAC, weight decoder and both AXI ports."""
    return case_dir("opcorpus/conv2d_3x3_s1_same_relu_i8")
