// Busy processes on the cores (hhlo/program/busy_load.h).
#include "hhlo/program/busy_load.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "hhlo/core/error.h"

#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace hhlo {
namespace {

/// The child's whole life: async-signal-safe only (it is a fork of a multi-threaded process).
[[noreturn]] void spin(pid_t parent) {
#ifdef __linux__
  // Killed when the thread that forked it ends, the process included (a SIGKILL, std::_Exit).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  if (getppid() != parent) _exit(0);  // the parent ended before the line above took effect
  // The parent's handlers (hhlo's SIGINT/SIGTERM handler removes its temporaries and says so)
  // are not the child's: a Ctrl-C to the process group ends it quietly.
  struct sigaction plain {};
  plain.sa_handler = SIG_DFL;
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(signal, &plain, nullptr);
  volatile unsigned long n = 0;
  for (;;) n = n + 1;
}

}  // namespace

BusyLoad::BusyLoad(int workers) {
  pids_.reserve(workers > 0 ? static_cast<std::size_t>(workers) : 0);
  const pid_t parent = getpid();
  for (int k = 0; k < workers; ++k) {
    pid_t pid = fork();
    if (pid == 0) spin(parent);
    if (pid < 0) {
      int err = errno;
      stop();
      throw Error(fmt::format("cannot start busy process {} of {}: {}", k + 1, workers,
                              std::strerror(err)));
    }
    pids_.push_back(pid);
  }
}

void BusyLoad::stop() noexcept {
  for (pid_t pid : pids_) kill(pid, SIGKILL);
  for (pid_t pid : pids_)
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  pids_.clear();
}

}  // namespace hhlo
