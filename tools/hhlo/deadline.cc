#include "deadline.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace hhlo::cli {

Deadline::Deadline(double seconds, std::string program) {
  if (!(seconds > 0)) return;
  watchdog_ = std::thread([this, seconds, program = std::move(program)] {
    std::unique_lock lock(mu_);
    auto limit = std::chrono::duration<double>(seconds);
    if (cv_.wait_for(lock, limit, [this] { return done_; })) return;
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
