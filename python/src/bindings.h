// The _ethosu_sim extension module: pybind11 bindings over the host library. The Python package
// `ethosu_sim` wraps it; nothing here is meant to be called by users directly.
//
// Contract: each bind_* function registers one part of the module. ethosu::InputError surfaces as
// _ethosu_sim.InputError (a ValueError) carrying the simulator's message. Reports and configurations come
// back as JSON text. Runs release the GIL and are serialised by a process-wide lock, because SystemC has
// one kernel per process.
#pragma once

#include <pybind11/pybind11.h>

#include <mutex>

namespace ethosu::python {

void bind_job(pybind11::module_& m);
void bind_run(pybind11::module_& m);
void bind_recording(pybind11::module_& m);

// SystemC has one kernel per process: Python threads that simulate take turns, holding this (without the GIL).
std::mutex& simulation_mutex();

}  // namespace ethosu::python
