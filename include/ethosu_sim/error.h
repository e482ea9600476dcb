// ethosu-sim's one exception type. Part of the public API (include/ethosu_sim).
//
// InputError: the user's input is wrong (a malformed file, an unknown parameter, a region too small...). The
// message names what and where; the CLI prints it and exits with status 2. Hardware faults are not exceptions:
// the models report them through status bits and the IRQ, as the NPU does.
#pragma once

#include <stdexcept>

namespace ethosu_sim {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ethosu_sim
