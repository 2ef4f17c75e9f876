#include "deadline.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "time_limit.h"

namespace hhlo::cli {

Deadline::Deadline(double seconds, std::string program) {
  if (!is_bounded(seconds)) return;  // 0: none given; inf or past kNoTimeLimitSeconds: no bound
  // The deadline as a time point, saturated (time_limit.h): 1e10 s as steady_clock's nanoseconds
  // overflowed into the past and stopped every run at once.
  const auto until = std::chrono::steady_clock::now() + to_steady_duration(seconds);
  watchdog_ = std::thread([this, seconds, until, program = std::move(program)] {
    std::unique_lock lock(mu_);
    if (cv_.wait_until(lock, until, [this] { return done_; })) return;
    std::fprintf(stderr,
                 "hhlo: error: '%s' ran longer than --timeout %g s (compile and execution); "
                 "stopped\n",
                 program.c_str(), seconds);
    std::fflush(stderr);
    std::_Exit(124);
  });
}

void Deadline::disarm() noexcept {
  {
    std::lock_guard lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

}  // namespace hhlo::cli
