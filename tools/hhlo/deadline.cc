#include "deadline.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "hhlo/core/file_io.h"
#include "time_limit.h"

namespace hhlo::cli {

Deadline::Deadline(double seconds, std::string program, std::string limit) {
  if (!is_bounded(seconds)) return;  // 0: none given; inf or past kNoTimeLimitSeconds: no bound
  if (limit.empty()) {
    char words[96];
    std::snprintf(words, sizeof words, "--timeout %g s (compile and execution)", seconds);
    limit = words;
  }
  // The deadline as a time point, saturated (time_limit.h): 1e10 s as steady_clock's nanoseconds
  // overflowed into the past and stopped every run at once.
  const auto until = std::chrono::steady_clock::now() + to_steady_duration(seconds);
  watchdog_ = std::thread([this, until, program = std::move(program), limit = std::move(limit)] {
    std::unique_lock lock(mu_);
    if (cv_.wait_until(lock, until, [this] { return done_; })) return;
    std::fprintf(stderr, "hhlo: error: '%s' ran longer than %s; stopped\n", program.c_str(),
                 limit.c_str());
    remove_unfinished_temporaries();  // an output being written when the time ran out
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
