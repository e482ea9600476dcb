#!/usr/bin/env python3
"""SSD-style models whose TFLite_Detection_PostProcess outputs are declared with an empty shape.

TOCO-converted SSD MobileNets (Coral's, the TF1 detection-API exports) declare the four post-processing outputs
with an empty shape, which TFLite sizes in its kernel's Prepare from max_detections: boxes [1, N, 4], classes and
scores [1, N], the count [1]. ssd_model_unsized.tflite and ssd_regular_unsized.tflite (make_test_models) are the
sized test models so declared: the CLI, NXP MODEL mode (nxp_client --model) and Python must run them and give the
sized models' bytes. (They once stopped after the NPU part: "output 0 must be float32 with room for 20 values".)

usage: ssd_unsized_outputs_check.py ETHOSU_SIM MODELS_DIR OUT_DIR NXP_CLIENT NXP_SHIM
Exit 0 pass, 1 mismatch.
"""
import os
import subprocess
import sys

ANCHORS, CLASSES_WITH_BACKGROUND, MAX_DETECTIONS = 16, 4, 5
# TFLite's sizes for max_detections 5, max_classes_per_detection 1: float32 boxes, classes, scores, count.
SIZES = [MAX_DETECTIONS * 4 * 4, MAX_DETECTIONS * 4, MAX_DETECTIONS * 4, 4]


def outputs(folder, prefix):
    return [open(os.path.join(folder, "%s%d.bin" % (prefix, k)), "rb").read() for k in range(4)]


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    sim, models, out, nxp_client, nxp_shim = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    # Box encodings of overlapping boxes and distinct scores, so that several detections survive.
    boxes = bytes((37 * i) % 80 - 40 & 0xFF for i in range(ANCHORS * 4))
    scores = bytes((101 * i + 7) % 256 for i in range(ANCHORS * CLASSES_WITH_BACKGROUND))
    input_file = os.path.join(out, "ssd_input.bin")
    with open(input_file, "wb") as f:
        f.write(boxes + scores)

    failures = []
    for sized, unsized in (("ssd_model", "ssd_model_unsized"), ("ssd_regular", "ssd_regular_unsized")):
        results = {}
        for model in (sized, unsized):
            path = os.path.join(models, model + ".tflite")
            cli = subprocess.run([sim, "run", path, "--input", input_file, "--out", os.path.join(out, model)],
                                 capture_output=True, text=True)
            if cli.returncode != 0:
                failures.append("%s: ethosu-sim run exited %d: %s" % (model, cli.returncode, cli.stderr.strip()))
                continue
            results[model] = outputs(os.path.join(out, model), "graph_output")
            nxp_out = os.path.join(out, model + "_nxp")
            nxp = subprocess.run([nxp_client, "--model", path, input_file, nxp_out], capture_output=True, text=True,
                                 env=dict(os.environ, LD_PRELOAD=nxp_shim))
            if nxp.returncode != 0:
                failures.append("%s: NXP MODEL mode failed: %s" % (model, (nxp.stdout + nxp.stderr).strip()))
            elif outputs(nxp_out, "nxp_output") != results[model]:
                failures.append("%s: NXP MODEL mode's outputs differ from the CLI's" % model)
        if unsized in results:
            got = [len(b) for b in results[unsized]]
            if got != SIZES:
                failures.append("%s: graph outputs of %s bytes, TFLite sizes them %s" % (unsized, got, SIZES))
            if sized in results and results[unsized] != results[sized]:
                failures.append("%s: outputs differ from %s's" % (unsized, sized))
            count = int.from_bytes(results[unsized][3], "little")
            if count == 0:
                failures.append("%s: no detection: the input does not exercise the post-processing" % unsized)

    try:
        import ethosu_sim
    except ImportError:
        print("note: the Python module is not built; Python not checked")
    else:
        for model in ("ssd_model", "ssd_model_unsized"):
            job = ethosu_sim.Job(os.path.join(models, model + ".tflite"))
            job.set_input(0, boxes + scores)
            result = ethosu_sim.run(job)
            if result.fault:
                failures.append("%s: Python run faulted: %s" % (model, result.fault))

    for f in failures:
        print("FAIL: " + f)
    print("unsized post-processing outputs: %s" % ("FAILED" if failures else "sized as TFLite, same bytes everywhere"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
