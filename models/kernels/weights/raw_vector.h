// RawVector: a std::vector whose resize() leaves new elements of trivial types unwritten.
//
// Contract: for buffers that are written in full before they are read (decoded weight streams, packed weights),
// growing costs no zero-fill; the elements are default-initialised, so for arithmetic types they hold no defined
// value until written. Everything else behaves as std::vector.
#pragma once

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace ethosu::weights {

template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  // Called by resize() without a value: default-initialisation instead of std::allocator's value-initialisation.
  template <typename U>
  void construct(U* p) noexcept(noexcept(::new (static_cast<void*>(p)) U)) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using RawVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace ethosu::weights
