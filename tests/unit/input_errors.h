// Checks of the InputError a call throws, for the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "sim/error.h"

namespace ethosu::testing {

// The message of the InputError `f()` throws, or "" when it throws none.
template <typename F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Expects `f()` to throw an InputError whose message contains `needle`.
template <typename F>
void expect_input_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no InputError (expected one mentioning \"" << needle << "\")";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace ethosu::testing
