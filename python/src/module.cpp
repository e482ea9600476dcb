// The module definition: the error type, then the parts bind_job and bind_run register.
#include <pybind11/pybind11.h>

#include "ethosu_sim/version.h"
#include "python/src/bindings.h"
#include "sim/error.h"

namespace py = pybind11;

PYBIND11_MODULE(_ethosu_sim, m) {
  m.doc() = "ethosu-sim native bindings (use the ethosu_sim package)";
  m.attr("__version__") = ETHOSU_SIM_VERSION_STRING;
  py::register_exception<ethosu::InputError>(m, "InputError", PyExc_ValueError);
  ethosu::python::bind_job(m);
  ethosu::python::bind_run(m);
  ethosu::python::bind_recording(m);
}
