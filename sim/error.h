// Error types shared by every layer.
//
// InputError: the user's input is wrong (malformed file, bad option, region too small...). The message
// names what and where; the CLI prints it and exits with status 2. Hardware faults are not exceptions:
// the models report them through status bits, as the NPU does.
#pragma once

#include <stdexcept>
#include <string>

namespace ethosu {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ethosu
