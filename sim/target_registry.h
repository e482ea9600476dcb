// Entries of a translation unit compiled once per SIMD target (Highway's foreach_target.h), each pass adding its
// own at static initialisation. The kernels' loops and the weight decoder's fast loop keep theirs here.
#pragma once

#include <vector>

namespace ethosu::sim {

template <class Entry>
class TargetRegistry {
 public:
  // Every pass's entry, in the order the passes' initialisers ran.
  static std::vector<Entry>& entries() {
    static std::vector<Entry> all;
    return all;
  }
  // For a namespace-scope initialiser: `const bool registered = TargetRegistry<E>::add({...});`.
  static bool add(const Entry& e) {
    entries().push_back(e);
    return true;
  }
};

}  // namespace ethosu::sim
