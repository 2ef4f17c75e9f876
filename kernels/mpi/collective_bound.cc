// The watchdog bounding a collective's blocking MPI call in checked mode (collective_bound.h).
#include "collective_bound.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace hhlo::mpi::bound {
namespace {

/// The one armed call of the process, written by the arming thread (which holds the kernels'
/// mutex) and read by the watchdog thread. `seq` is published last (release): a reader that sees
/// a sequence number sees that call's fields, or a later call's (then `seq` has moved on when it
/// looks again, and it looks again before acting).
struct Watch {
  std::atomic<uint64_t> seq{0};  // number of the armed call, 0: none armed
  std::atomic<const char*> target{nullptr};
  std::atomic<int64_t> start_ns{0};  // steady_clock at arming
  std::atomic<int64_t> timeout_ms{0};
  std::atomic<MPI_Comm> check{MPI_COMM_NULL};
  std::atomic<const std::vector<int>*> members{nullptr};
  std::atomic<bool> thread_multiple{false};
  std::atomic<bool> idle{false};                      // the thread waits for an arm, no deadline
  std::atomic<int64_t> sleeping_until_ns{INT64_MAX};  // the deadline it sleeps until otherwise
  uint64_t armed_count = 0;                           // calls armed so far (the arming thread's)
  std::mutex mu;
  std::condition_variable cv;
};

Watch& watch() {
  // Never destroyed: the detached thread may still wait on it while the process exits.
  static Watch* w = new Watch;
  return *w;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

Clock::time_point at_ns(int64_t ns) {
  return Clock::time_point(
      std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(ns)));
}

/// The report's tag: one per collective (numbered alike on every rank: checked mode has just
/// found every rank at the same collective), below Open MPI's MPI_TAG_UB (2^31 - 1) and the
/// standard's minimum (32767) read as a window of 2^14 collectives.
int report_tag(uint64_t seq) { return 16384 + static_cast<int>(seq % 16384); }

const char* const kHead = " (checked mode, hhlo::mpi::set_timeout), although every rank reached it";

/// What the other members' reports say, on the collective's first member (`members`: the world
/// ranks of its communicator, in its order): the world ranks that did not report within
/// `grace_ms` that they are still inside collective `seq`.
std::vector<int> silent_ranks(MPI_Comm check, const std::vector<int>& members, uint64_t seq,
                              int64_t grace_ms) {
  const size_t n = members.size();
  std::vector<int64_t> notes(n, 0);
  std::vector<MPI_Request> reqs(n, MPI_REQUEST_NULL);
  for (size_t i = 1; i < n; ++i)
    MPI_Irecv(&notes[i], 1, MPI_INT64_T, members[i], report_tag(seq), check, &reqs[i]);
  std::vector<int> silent;
  for (int i : wait_until(reqs, Clock::now() + std::chrono::milliseconds(grace_ms)))
    silent.push_back(members[static_cast<size_t>(i)]);
  return silent;
}

/// The watchdog found call `seq` in flight at its timeout, on the collective's first member
/// (world rank 0 for the world): name the members that did not report, end the job.
[[noreturn]] void expire_on_first(const char* target, MPI_Comm check,
                                  const std::vector<int>& members, uint64_t seq, int64_t ms) {
  const std::string head = "this collective did not complete within " + seconds_text(ms) + kHead;
  std::vector<int> silent = silent_ranks(check, members, seq, std::min<int64_t>(ms, 1000));
  if (silent.empty())
    abort_job(target, head +
                          "; every rank is still inside it: too slow for the timeout, or MPI "
                          "is stuck");
  abort_job(target, head + "; " + ranks_text(silent) +
                        " did not answer since: stopped (SIGSTOP, a debugger, a swapped-out "
                        "node), hung or too slow inside it");
}

/// Another member's part: report to the first member, then wait until twice the timeout for it
/// to end the job. Returns when call `seq` completed meanwhile (it was slow, not stuck).
void expire_on_other(const char* target, MPI_Comm check, int first, uint64_t seq, int64_t start_ns,
                     int64_t ms) {
  MPI_Request req = MPI_REQUEST_NULL;
  static int64_t note = 0;  // the report's buffer must outlive the pending send
  note = static_cast<int64_t>(seq);
  MPI_Isend(&note, 1, MPI_INT64_T, first, report_tag(seq), check, &req);
  const int64_t until = start_ns + 2 * ms * 1'000'000;
  Watch& w = watch();
  while (now_ns() < until) {
    if (w.seq.load(std::memory_order_acquire) != seq) {
      if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
      return;
    }
    if (req != MPI_REQUEST_NULL) {
      int done = 0;
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (w.seq.load(std::memory_order_acquire) != seq) return;
  const std::string who = "rank " + std::to_string(first);
  abort_job(target, "this collective did not complete within " + seconds_text(ms) + kHead +
                        ", and " + who + (first == 0 ? "" : " (its communicator's first rank)") +
                        " did not end the job within twice that: " + who +
                        " stopped (SIGSTOP, a debugger, a swapped-out node), hung or too slow "
                        "inside it");
}

/// Call `seq` is still armed at its deadline: end the job (or go on, see expire_on_other).
void expire(uint64_t seq, const char* target, int64_t start_ns, int64_t ms, MPI_Comm check,
            const std::vector<int>& members, bool thread_multiple) {
  if (!thread_multiple || members.empty())
    abort_job(target, "this collective did not complete within " + seconds_text(ms) + kHead +
                          ": a rank stopped (SIGSTOP, a debugger, a swapped-out node), hung or "
                          "too slow inside it (MPI gave no MPI_THREAD_MULTIPLE: no rank named)");
  int rank = 0;
  MPI_Comm_rank(check, &rank);
  if (rank == members[0]) expire_on_first(target, check, members, seq, ms);
  expire_on_other(target, check, members[0], seq, start_ns, ms);
}

/// How late past a deadline the watchdog may wake before it takes this process to have been
/// suspended itself (stopped, then continued: Open MPI sends SIGCONT before SIGTERM when it ends a
/// job; a debugger's breakpoint): the others name it, and its call gets the timeout again from
/// now instead of this process blaming ranks that were only waiting for it.
constexpr int64_t kSuspendedNs = 1'000'000'000;

void watchdog_loop() {
  Watch& w = watch();
  uint64_t restarted_seq = 0;  // the call whose clock was restarted, and when
  int64_t restarted_at = 0;
  for (;;) {
    const uint64_t seq = w.seq.load(std::memory_order_acquire);
    if (seq == 0) {
      std::unique_lock<std::mutex> lock(w.mu);
      w.idle.store(true);
      w.cv.wait(lock, [&] { return w.seq.load() != 0; });
      w.idle.store(false);
      continue;
    }
    const int64_t start = seq == restarted_seq ? restarted_at : w.start_ns.load();
    const int64_t ms = w.timeout_ms.load();
    const int64_t deadline = start + ms * 1'000'000;
    const int64_t now = now_ns();
    if (now - deadline > kSuspendedNs && w.seq.load(std::memory_order_acquire) == seq) {
      restarted_seq = seq;
      restarted_at = now;
      continue;
    }
    if (now < deadline) {
      std::unique_lock<std::mutex> lock(w.mu);
      w.sleeping_until_ns.store(deadline);
      w.cv.wait_until(lock, at_ns(deadline));
      w.sleeping_until_ns.store(INT64_MAX);
      continue;
    }
    if (w.seq.load(std::memory_order_acquire) != seq) continue;  // completed, or another call
    expire(seq, w.target.load(), start, ms, w.check.load(), *w.members.load(),
           w.thread_multiple.load());
  }
}

}  // namespace

Armed::Armed(const char* target, MPI_Comm check, const std::vector<int>& members,
             int64_t timeout_ms, bool thread_multiple) {
  Watch& w = watch();
  static std::once_flag started;
  std::call_once(started, [] { std::thread(watchdog_loop).detach(); });
  const int64_t start = now_ns();
  w.target.store(target, std::memory_order_relaxed);
  w.start_ns.store(start, std::memory_order_relaxed);
  w.timeout_ms.store(timeout_ms, std::memory_order_relaxed);
  w.check.store(check, std::memory_order_relaxed);
  w.members.store(&members, std::memory_order_relaxed);
  w.thread_multiple.store(thread_multiple, std::memory_order_relaxed);
  w.seq.store(++w.armed_count);  // seq_cst: ordered before the read of idle below
  // Wake the thread only when it waits for no deadline, or for a later one than this call's (a
  // smaller timeout set since): otherwise it wakes at its deadline and finds this call.
  if (w.idle.load() || start + timeout_ms * 1'000'000 < w.sleeping_until_ns.load()) {
    std::lock_guard<std::mutex> lock(w.mu);
    w.cv.notify_one();
  }
}

Armed::~Armed() { watch().seq.store(0, std::memory_order_release); }

std::vector<int> wait_until(std::vector<MPI_Request>& reqs, Clock::time_point deadline) {
  const Clock::time_point spin_until = Clock::now() + std::chrono::milliseconds(20);
  for (;;) {
    std::vector<int> pending;
    for (size_t i = 0; i < reqs.size(); ++i) {
      int done = 1;
      if (reqs[i] != MPI_REQUEST_NULL) MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE);
      if (!done) pending.push_back(static_cast<int>(i));
    }
    const Clock::time_point now = Clock::now();
    if (pending.empty() || now >= deadline) return pending;
    // Spin for the first 20 ms (the common case: the others are microseconds to milliseconds
    // away; MPI progresses only inside MPI_Test), then poll every half millisecond.
    if (now < spin_until)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

std::string ranks_text(const std::vector<int>& ranks) {
  std::string t = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t k = 0; k < ranks.size(); ++k) t += (k ? ", " : "") + std::to_string(ranks[k]);
  return t;
}

std::string seconds_text(int64_t ms) {
  std::string t = std::to_string(ms / 1000);
  if (ms % 1000) t += "." + std::to_string(1000 + ms % 1000).substr(1);
  return t + " s";
}

[[noreturn]] void abort_job(const char* target, const std::string& why) {
  std::fprintf(stderr, "hhlo::mpi: %s: %s; ending the job (MPI_Abort)\n", target, why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

}  // namespace hhlo::mpi::bound
