// run_case CASE_DIR: one conformance case on the simulated i.MX 93 NPU, as `ethosu-sim run` does.
#include <iostream>

#include <ethosu_sim/error.h>
#include <ethosu_sim/run.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: run_case CASE_DIR\n";
    return 2;
  }
  try {
    ethosu_sim::Job job = ethosu_sim::Job::from_case(argv[1]);
    const ethosu_sim::RunResult result = ethosu_sim::run(job);
    std::cout << result.summary << "total_cycles " << result.total_cycles() << "\n";
    if (!result.completed) {
      std::cout << "fault: " << *result.fault << "\n";
      return 1;
    }
    bool exact = true;
    for (const ethosu_sim::Comparison& c : ethosu_sim::compare_outputs(job)) {
      std::cout << c.text << "\n";
      exact = exact && c.exact;
    }
    return exact ? 0 : 1;
  } catch (const ethosu_sim::InputError& e) {
    std::cerr << "run_case: " << e.what() << "\n";
    return 2;
  }
}
