// The time bound on a collective's blocking MPI call in checked mode (internal to kernels/mpi).
// Once every rank has reached a collective (the signature exchange of kernels.cc), a rank can
// still stop inside the MPI call (SIGSTOP, a debugger, a swapped-out node) or hang there, and the
// others would wait in MPI_Allreduce forever. So the call is bounded by a watchdog: one thread per
// process, started on first need, armed before the blocking call and disarmed after it (a few
// atomic stores: the call itself stays MPI's blocking one, about 1 us for a small allreduce where
// MPI_Iallreduce polled with MPI_Test costs about 6 us). When a call is still in flight at the
// timeout, the watchdog ends the job naming what it can (docs/distributed.md, "A dead rank"):
//  - the communicator's first rank (world rank 0 for the world) gives the other members up to
//    min(timeout, 1 s) to report that they are still inside the call too (a small message on the
//    checked-mode communicator, tagged with the collective's number), names those that did not
//    (stopped or hung inside it), and calls MPI_Abort;
//  - another member reports to the first one and waits until twice the timeout for it to end the
//    job; when its own call is still in flight then, it names the first rank and calls MPI_Abort;
//    when the call completed meanwhile (it was slow, not stuck), it goes on.
// A watchdog that wakes more than 1 s past its deadline takes its own process to have been
// suspended (stopped, then continued: Open MPI continues a stopped rank before it kills it; a
// debugger): the other ranks name it, and its call gets the timeout again from then, so a rank
// that was stopped never blames the ranks that were waiting for it.
// MPI calls from the watchdog need MPI_THREAD_MULTIPLE (what this library asks for); with a lower
// thread level (a program that initialized MPI itself) the watchdog names no rank, it only prints
// and calls MPI_Abort.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace hhlo::mpi::bound {

using Clock = std::chrono::steady_clock;

/// A timeout at or past this (10^12 ms, about 31.7 years, what set_timeout saturates to) is no
/// bound: no watchdog is armed.
constexpr int64_t kNoBoundMs = 1'000'000'000'000;

/// Arms the watchdog for the blocking MPI call of collective `target` (a string literal: it is
/// read by the watchdog thread) for `timeout_ms` from now; the destructor disarms it. One at a
/// time per process (the kernels' mutex is held). `check` is the checked-mode communicator (a
/// duplicate of MPI_COMM_WORLD) the reports go over; `members` the world ranks of the
/// collective's communicator in its rank order (kept for the process: the watchdog reads it);
/// `thread_multiple` whether MPI gave MPI_THREAD_MULTIPLE (else the watchdog makes no MPI call
/// but MPI_Abort).
class Armed {
 public:
  Armed(const char* target, MPI_Comm check, const std::vector<int>& members, int64_t timeout_ms,
        bool thread_multiple);
  ~Armed();
  Armed(const Armed&) = delete;
  Armed& operator=(const Armed&) = delete;
};

/// MPI_Test on every request until all completed or `deadline`; the indices still pending then.
/// Spins for the first 20 ms, then polls every half millisecond.
std::vector<int> wait_until(std::vector<MPI_Request>& reqs, Clock::time_point deadline);

/// "rank 1" / "ranks 1, 3".
std::string ranks_text(const std::vector<int>& ranks);
/// Milliseconds as seconds: "3 s", "0.250 s".
std::string seconds_text(int64_t ms);

/// Prints "hhlo::mpi: <target>: <why>; ending the job (MPI_Abort)" on stderr and ends the job
/// (MPI_Abort on the world): the ranks that did not arrive may never return, so no error can reach
/// them.
[[noreturn]] void abort_job(const char* target, const std::string& why);

}  // namespace hhlo::mpi::bound
