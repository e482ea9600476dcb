#pragma once

namespace ethosu::sim {

// SystemC 2.3.4 tells AddressSanitizer of its coroutine switches, but gives the main coroutine's stack as
// empty: after sc_start() returns, ASan believes the calling thread has no stack, cannot clean it when an
// exception unwinds it, and reports stale redzones as overflows later on. Called on the thread that ran
// sc_start(), this gives ASan that thread's real stack again. It does nothing in other builds.
void restore_stack_after_systemc();

}  // namespace ethosu::sim
