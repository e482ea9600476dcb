#!/usr/bin/env python3
"""The SSD-style test models (make_test_models) through every front end, checked against ArmNN.

ethosu-sim runs ssd_model.tflite / ssd_regular.tflite (an ethos-u operator, two DEQUANTIZEs, the detection
post-processing) from the CLI; the NXP shim runs them in MODEL mode (nxp_client --model) and must give the same
bytes; ArmNN's reference backend (Debian's python3-pyarmnn) runs the CPU part alone (ssd_cpu*.tflite) on the int8
tensors the NPU operator produced, as an engine independent of this project. Detections must agree: the count,
the classes, the scores (within 1e-6 relative) and the boxes (within 1e-5: both decode with float exp()).

usage: ssd_reference_check.py ETHOSU_SIM MODELS_DIR OUT_DIR NXP_CLIENT NXP_SHIM
Exit 0 pass, 1 mismatch, 77 when pyarmnn is not installed (skip).
"""
import os
import subprocess
import sys

import numpy as np

ANCHORS, CLASSES_WITH_BACKGROUND, MAX_DETECTIONS = 16, 4, 5


def armnn_detections(model, boxes_q, scores_q):
    import pyarmnn as ann

    parser = ann.ITfLiteParser()
    network = parser.CreateNetworkFromBinaryFile(model)
    inputs = parser.GetSubgraphInputTensorNames(0)
    outputs = parser.GetSubgraphOutputTensorNames(0)
    runtime = ann.IRuntime(ann.CreationOptions())
    optimized, _ = ann.Optimize(network, [ann.BackendId("CpuRef")], runtime.GetDeviceSpec(), ann.OptimizerOptions())
    net_id, _ = runtime.LoadNetwork(optimized)
    in_binding = [parser.GetNetworkInputBindingInfo(0, n) for n in inputs]
    out_binding = [parser.GetNetworkOutputBindingInfo(0, n) for n in outputs]
    out_tensors = ann.make_output_tensors(out_binding)
    runtime.EnqueueWorkload(net_id, ann.make_input_tensors(in_binding, [boxes_q, scores_q]), out_tensors)
    return [np.asarray(a, dtype=np.float32).ravel() for a in ann.workload_tensors_to_ndarray(out_tensors)]


def read_floats(path):
    with open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.float32)


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    sim, models, out, nxp_client, nxp_shim = sys.argv[1:]
    try:
        import pyarmnn  # noqa: F401
    except ImportError:
        print("SKIP: python3-pyarmnn is not installed (apt-get install python3-pyarmnn)")
        return 77
    os.makedirs(out, exist_ok=True)
    # Distinct scores (no ties, whose order TFLite leaves unspecified) and box encodings of overlapping boxes.
    rng = np.random.default_rng(14)
    boxes_q = rng.integers(-40, 40, size=(1, ANCHORS, 4)).astype(np.int8)
    scores_q = rng.permutation(np.arange(-128, 128))[: ANCHORS * CLASSES_WITH_BACKGROUND].astype(np.int8)
    scores_q = scores_q.reshape(1, ANCHORS, CLASSES_WITH_BACKGROUND)
    input_file = os.path.join(out, "ssd_input.bin")
    with open(input_file, "wb") as f:
        f.write(boxes_q.tobytes() + scores_q.tobytes())

    failures = 0
    for model, cpu_model in (("ssd_model", "ssd_cpu"), ("ssd_regular", "ssd_cpu_regular")):
        cli_out = os.path.join(out, model)
        subprocess.run([sim, "run", os.path.join(models, model + ".tflite"), "--input", input_file, "--out", cli_out],
                       check=True, stdout=subprocess.DEVNULL)
        ours = [read_floats(os.path.join(cli_out, "graph_output%d.bin" % k)) for k in range(4)]
        nxp_out = os.path.join(out, model + "_nxp")
        env = dict(os.environ, LD_PRELOAD=nxp_shim)
        subprocess.run([nxp_client, "--model", os.path.join(models, model + ".tflite"), input_file, nxp_out],
                       check=True, env=env, stdout=subprocess.DEVNULL)
        for k in range(4):
            if not np.array_equal(read_floats(os.path.join(nxp_out, "nxp_output%d.bin" % k)), ours[k]):
                print("FAIL: %s: NXP MODEL output %d differs from the CLI's" % (model, k))
                failures += 1
        ref = armnn_detections(os.path.join(models, cpu_model + ".tflite"), boxes_q, scores_q)
        count = int(ours[3][0])
        checks = [
            ("detection count", count == int(ref[3][0]) and count > 1),
            ("classes", np.array_equal(ours[1][:count], ref[1][:count])),
            ("scores", np.allclose(ours[2][:count], ref[2][:count], rtol=1e-6, atol=0)),
            ("boxes", np.allclose(ours[0][: 4 * count], ref[0][: 4 * count], rtol=0, atol=1e-5)),
        ]
        for name, ok in checks:
            if not ok:
                print("FAIL: %s: %s differ from ArmNN's: ours %s, ArmNN %s" % (model, name, ours, ref))
                failures += 1
        print("%s: %d detections (classes %s), CLI = NXP MODEL = ArmNN CpuRef: %s"
              % (model, count, ours[1][:count].astype(int).tolist(), "no" if failures else "yes"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
