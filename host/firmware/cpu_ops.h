// The CPU operators of a Vela model that NXP's i.MX 93 firmware runs itself: its TFLite Micro resolver registers
// `ethos-u`, DEQUANTIZE and TFLite's detection post-processing (custom operator "TFLite_Detection_PostProcess",
// the tail of SSD-style detectors), so such models complete on the board.
//
// Contract:
//  * check_cpu_operators() accepts a model whose operators other than its one `ethos-u` operator are DEQUANTIZE or
//    TFLite_Detection_PostProcess, all after the `ethos-u` operator in the subgraph; otherwise it throws InputError
//    naming the first operator the firmware could not run (or that runs before the NPU).
//  * size_cpu_outputs() shapes the tensors the CPU operators make as TFLite's Prepare does, whatever the model
//    declares (TOCO's SSD exports declare the post-processing outputs with an empty shape): detection boxes
//    [1, N, 4], classes and scores [1, N] and the count [1], N = max_detections x max_classes_per_detection.
//    Every reader of a model that runs or describes them calls it first; options it cannot read are left for
//    run_cpu_operators() to refuse.
//  * arena_offset() places every tensor the graph exchanges with its user or between its operators (graph inputs
//    and outputs, CPU operators' non-constant tensors; nullopt for others): at its offline-planned arena offset
//    (Vela's OfflineMemoryAllocation) or, for tensors only the CPU makes (the post-processing outputs), after the
//    NPU's scratch area, 16-byte aligned, in tensor order. arena_bytes() is the arena that layout needs.
//  * run_cpu_operators() runs the CPU operators in graph order on `arena` (region 1 after the NPU job, resized to
//    arena_bytes()): tensors with an arena offset are read and written there, constants come from the model's
//    buffers, others live in host memory for the run. Semantics are TFLite's reference kernels: DEQUANTIZE is
//    (q - zero_point) * scale per tensor or per channel (int8, uint8, int16 in; float32 out); detection
//    post-processing decodes the box encodings against the anchors with the y/x/h/w scales, then fast (one
//    score per anchor: its best max_classes_per_detection classes) or regular (per class, detections_per_class)
//    non-maximum suppression with score threshold (>=) and IoU threshold (>) as TFLite does, and writes boxes
//    (ymin, xmin, ymax, xmax), classes, scores and the detection count as float32; unused output slots are 0.
//    Ties between equal scores keep the lower index first (TFLite's sorts leave that order unspecified).
//    Quantized post-processing inputs are dequantized first, as TFLite's kernel does. Malformed operators
//    (shapes, types, options) throw InputError naming the operator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/formats/payload.h"

namespace ethosu::host {

void check_cpu_operators(const VelaModel& vm, const std::string& what_for_messages);
void size_cpu_outputs(VelaModel& vm);

std::optional<uint32_t> arena_offset(const VelaModel& vm, uint32_t tensor_index);
uint64_t arena_bytes(const VelaModel& vm);

void run_cpu_operators(const VelaModel& vm, std::vector<uint8_t>& arena, const std::string& what_for_messages);

}  // namespace ethosu::host
