// The fork-join team of the matmul kernel (team.h). One call at a time holds the team: the caller
// publishes the call as one atomic word (a sequence number and the part count); the caller runs
// part 0, and then it and every team thread that sees the new word take the remaining parts one
// at a time from a second word (the sequence number and the next part), so that a team thread
// that wakes late finds its part already run by the caller instead of holding the call up.
// Each ended part counts down `pending_`; the caller waits for it to reach zero. A wait spins
// briefly (a dot's parts end within microseconds of each other), then yields the core for up to 1
// ms (the next dot of a program comes soon, and XLA's own threads may need the core in between: a
// thread that spun there for 30 us made the transformer slower, one that yields gives way), then
// sleeps on the atomic (a futex). The yielding keeps the thread ready for the next dot: woken from
// the futex it came late (on a virtual machine, a sleeping thread's idle vCPU wakes slowly), and
// the batch-1 transformer ran 3.7-4.4 ms with 50 us of yielding against 3.2-3.7 ms with 1 ms
// (docs/facts.md). OpenMP runtimes wait likewise (libgomp spins, Intel's for 200 ms).
#include "team.h"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>

namespace hhlo::onednn {
namespace {

constexpr int kPartBits = 16;  // the call word's low bits: the call's part count
constexpr uint64_t kPartMask = (uint64_t{1} << kPartBits) - 1;
constexpr int kSpins = 100;  // pause instructions first: 1-2 microseconds (16 ns each here)
constexpr auto kYielding = std::chrono::milliseconds(1);  // then sched_yield, before a sleep

/// Whether this thread is running a part (a call from inside one runs its parts itself).
thread_local bool in_part = false;

/// Waits until `a` holds a value other than `old` and returns it.
template <typename T>
T await_change(const std::atomic<T>& a, T old) {
  for (int i = 0; i < kSpins; ++i) {
    T v = a.load(std::memory_order_acquire);
    if (v != old) return v;
    __builtin_ia32_pause();
  }
  for (auto end = std::chrono::steady_clock::now() + kYielding;
       std::chrono::steady_clock::now() < end;) {
    sched_yield();
    T v = a.load(std::memory_order_acquire);
    if (v != old) return v;
  }
  for (;;) {
    a.wait(old, std::memory_order_acquire);
    T v = a.load(std::memory_order_acquire);
    if (v != old) return v;
  }
}

/// The first exception of the parts of one call.
class FirstError {
 public:
  /// Runs part(i) with `in_part` set, keeping its exception if it is the first.
  void run(const std::function<void(int)>& part, int i) {
    in_part = true;
    try {
      part(i);
    } catch (...) {
      std::lock_guard lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    in_part = false;
  }
  /// Rethrows the kept exception, if any, and forgets it.
  void rethrow() {
    std::exception_ptr e;
    std::swap(e, error_);
    if (e) std::rethrow_exception(e);
  }

 private:
  std::mutex mu_;
  std::exception_ptr error_;
};

class Team {
 public:
  /// Runs the call on the team; false, having run nothing, when another call holds it.
  bool try_run(int parts, const std::function<void(int)>& part) {
    std::unique_lock lock(busy_, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    uint64_t before = call_.load(std::memory_order_relaxed);
    uint64_t seq = (before >> kPartBits) + 1;
    // A thread started now must wait for the word after `before`: were it to read the word
    // itself, it could read this call's word, already stored, and wait for the next call while
    // this one waits for its part (the deadlock tests/onednn/team_test.cc pins).
    grow(parts - 1, before);
    part_ = &part;
    pending_.store(parts, std::memory_order_relaxed);
    next_.store(seq << kPartBits | 1, std::memory_order_relaxed);  // part 0 is the caller's
    call_.store(seq << kPartBits | static_cast<uint64_t>(parts), std::memory_order_release);
    call_.notify_all();
    run(0);
    claim_parts(seq, parts);  // the parts no team thread has taken yet: a late one takes none
    for (int left = pending_.load(std::memory_order_acquire); left != 0;)
      left = await_change(pending_, left);
    errors_.rethrow();
    return true;
  }

 private:
  /// Starts team threads until there are `threads`, each waiting for the call after `seen`.
  void grow(int threads, uint64_t seen) {
    while (started_ < threads) {
      std::thread([this, seen] { work(seen); }).detach();
      ++started_;
    }
  }

  /// Runs part `i` of the current call and counts it ended.
  void run(int i) {
    errors_.run(*part_, i);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }

  /// Takes and runs parts of call `seq` (of `parts` parts) until none is left or the call is
  /// no longer the current one.
  void claim_parts(uint64_t seq, int parts) {
    uint64_t c = next_.load(std::memory_order_acquire);
    while (c >> kPartBits == seq && static_cast<int>(c & kPartMask) < parts) {
      if (next_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel))
        run(static_cast<int>(c & kPartMask));  // c is the value before the claim
    }
  }

  /// A team thread, forever: for each new call, the parts it can take.
  void work(uint64_t seen) {
    for (;;) {
      seen = await_change(call_, seen);
      claim_parts(seen >> kPartBits, static_cast<int>(seen & kPartMask));
    }
  }

  std::mutex busy_;                // held by the call the team runs
  int started_ = 0;                // team threads started (under busy_)
  std::atomic<uint64_t> call_{0};  // (sequence << kPartBits) | parts of the latest call
  std::atomic<uint64_t> next_{0};  // (sequence << kPartBits) | the next part of it to take
  std::atomic<int> pending_{0};    // parts of the current call not yet ended
  const std::function<void(int)>* part_ = nullptr;  // the current call's parts
  FirstError errors_;
};

}  // namespace

void run_parts(int parts, const std::function<void(int)>& part) {
  if (parts <= 0) return;
  // Made once, never destroyed: its detached threads wait on it until the process exits.
  static Team* team = new Team;
  if (parts > 1 && !in_part && parts <= static_cast<int>(kPartMask) && team->try_run(parts, part))
    return;
  FirstError errors;
  bool outer = in_part;
  for (int i = 0; i < parts; ++i) errors.run(part, i);
  in_part = outer;
  errors.rethrow();
}

}  // namespace hhlo::onednn
