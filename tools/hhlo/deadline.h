// `hhlo run --timeout SECONDS`: a bound on the time from reading the program to the last output.
// PJRT's C API has no way to cancel a compile or an execution (PJRT_LoadedExecutable_Execute runs
// to its end), so the bound ends the process: one line on stderr, exit status 124 (timeout(1)'s).
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace hhlo::cli {

/// While alive and armed, a watchdog thread that ends the process after `seconds`: it prints
/// "hhlo: error: 'PROGRAM' ran longer than LIMIT; stopped" (LIMIT: `limit`, by default
/// "--timeout S s (compile and execution)"), removes the temporary of an output being written
/// (remove_unfinished_temporaries) and calls std::_Exit(124). Nothing is written after that point;
/// outputs already written (each atomically) stay whole. `seconds` that bound nothing
/// (0, `inf`, past kNoTimeLimitSeconds: time_limit.h) arm nothing. disarm() (or the destructor)
/// stops it.
class Deadline {
 public:
  Deadline(double seconds, std::string program, std::string limit = "");
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  ~Deadline() { disarm(); }
  /// Stops the watchdog; a no-op when not armed or already stopped. Never throws.
  void disarm() noexcept;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread watchdog_;
};

}  // namespace hhlo::cli
