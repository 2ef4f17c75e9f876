// Busy processes on the cores while the tuner times its loaded confirmation (hhlo/program/tune.h,
// TuneOptions::loaded_workers; issue 43): what a neighbour on a shared server does to a program.
#pragma once

#include <sys/types.h>

#include <vector>

namespace hhlo {

/// While alive, `workers` child processes each spinning on one core (a loop of additions on one
/// counter, no system call in it). Each is a process of its own, forked without exec: another
/// process is what a neighbour on a server is, and it shares none of this process's locks,
/// allocator or thread pools, where threads of our own could be scheduled and contend otherwise;
/// a child of a multi-threaded process may only do async-signal-safe work before exec, and a
/// loop of additions is that (and needs no program on disk to exec). The cost of no exec: this
/// process's first write to each page after the fork is a copy-on-write fault, once per page (the
/// tuner's warm-up calls take them). On Linux each child is also killed when the thread that made
/// it ends (PR_SET_PDEATHSIG), so a tuner stopped by SIGKILL or std::_Exit (hhlo tune's deadline)
/// leaves none behind. The destructor kills every child (SIGKILL) and reaps it (waitpid); no
/// child outlives the object, on any path.
class BusyLoad {
 public:
  /// Starts `workers` (>= 0) children. Throws hhlo::Error "cannot start busy process K of N: WHY"
  /// when fork fails, after killing and reaping those already started.
  explicit BusyLoad(int workers);
  BusyLoad(const BusyLoad&) = delete;
  BusyLoad& operator=(const BusyLoad&) = delete;
  ~BusyLoad() { stop(); }
  /// The children's process ids, in the order started (empty after stop()).
  const std::vector<pid_t>& pids() const { return pids_; }
  /// Kills and reaps every child; a no-op when none is left. Never throws.
  void stop() noexcept;

 private:
  std::vector<pid_t> pids_;
};

}  // namespace hhlo
