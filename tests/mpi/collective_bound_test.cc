// The time bound on a collective's MPI call in checked mode (issue 44): a rank that stops inside
// MPI_Allreduce once every rank reached it (SIGSTOP, a debugger, a swapped-out node) hung the
// job forever although checked mode's timeout was set; now a watchdog ends the job
// (kernels/mpi/collective_bound.h).
//  - Run in mpi.np2 / mpi.np4: every collective still gives its values under a short timeout
//    (hand-derived sums), and the watchdog does not fire between collectives.
//  - DISABLED_ cases, each run alone by its own ctest (tests/mpi/stopped_rank.sh) under `mpirun
//    -np 2`: one rank stops itself inside the MPI call; the job must end within the timeout plus
//    a margin, naming the timeout and the stopped rank, and leave nothing running.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "hhlo/mpi/collectives.h"
#include "hhlo/mpi/kernels.h"
#include "hhlo/session.h"
#include "mpi_session.h"

namespace hhlo {
namespace {

int N() { return mpi::world_size(); }
int R() { return mpi::world_rank(); }

/// Sets the checked-mode timeout for one test and puts the suite's default (120 s) back after.
struct ShortTimeout {
  explicit ShortTimeout(std::chrono::milliseconds t) { mpi::set_timeout(t); }
  ~ShortTimeout() { mpi::set_timeout(std::chrono::seconds(120)); }
};

std::vector<float> f32s(const Array& a) { return a.to_vector<float>(); }

// Every collective under a 3 s timeout (checked mode: main sets it), values derived by hand. Rank
// r's a = [(r+1), 10(r+1), 100(r+1)] and x[q][k] = 100r + 10q + k ([N, 2]).
TEST(MpiCollectiveBound, EveryCollectiveGivesItsValuesUnderAShortTimeout) {
  ASSERT_TRUE(mpi::checked());
  const int n = N(), r = R();
  const mpi::Comm world = mpi::Comm::world(n);
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {3}}, TensorType{DType::f32, {n, 2}}});
  Tensor a = f.arg(0), x = f.arg(1);
  Tensor sum = mpi::allreduce(a, mpi::ReduceOp::sum, world);
  Tensor max = mpi::allreduce(a, mpi::ReduceOp::max, world);
  Tensor gathered = mpi::allgather(a, world);
  Tensor scattered = mpi::reduce_scatter(x, mpi::ReduceOp::sum, world);
  Tensor exchanged = mpi::alltoall(x, world);
  Tensor broadcast = mpi::bcast(a, n - 1, world);
  Tensor shifted = mpi::shift(a, 1, world);
  mpi::barrier(f, world);
  f.ret({sum, max, gathered, scattered, exchanged, broadcast, shifted});
  mpi_session().compile(m);  // before the short timeout: ranks compile at different speeds
  ShortTimeout t(std::chrono::seconds(3));
  const float s = float(r + 1);
  std::vector<float> xs;
  for (int q = 0; q < n; ++q)
    for (int k = 0; k < 2; ++k) xs.push_back(float(100 * r + 10 * q + k));
  std::vector<Array> got = mpi_session().run(
      m, {Array::from<float>({3}, {s, 10 * s, 100 * s}), Array::from<float>({n, 2}, xs)});
  const float tri = float(n * (n + 1) / 2), nf = float(n);
  EXPECT_EQ(f32s(got[0]), (std::vector<float>{tri, 10 * tri, 100 * tri}));  // sum of r+1
  EXPECT_EQ(f32s(got[1]), (std::vector<float>{nf, 10 * nf, 100 * nf}));     // max: rank n-1
  std::vector<float> all;
  for (int q = 0; q < n; ++q)
    for (float p : {1.f, 10.f, 100.f}) all.push_back(p * float(q + 1));
  EXPECT_EQ(f32s(got[2]), all);
  // Rank r gets sum over ranks q of x_q[r][k] = 100 n(n-1)/2 + n(10r + k).
  const float base = 100.f * float(n * (n - 1) / 2);
  EXPECT_EQ(f32s(got[3]),
            (std::vector<float>{base + nf * float(10 * r), base + nf * float(10 * r + 1)}));
  // Rank r gets block q of rank q's x: x_q[r][k] = 100q + 10r + k.
  std::vector<float> swapped;
  for (int q = 0; q < n; ++q)
    for (int k = 0; k < 2; ++k) swapped.push_back(float(100 * q + 10 * r + k));
  EXPECT_EQ(f32s(got[4]), swapped);
  EXPECT_EQ(f32s(got[5]), (std::vector<float>{nf, 10 * nf, 100 * nf}));  // rank n-1's a
  const float prev = float((r + n - 1) % n + 1);                         // rank r-1's r+1
  EXPECT_EQ(f32s(got[6]), (std::vector<float>{prev, 10 * prev, 100 * prev}));
}

// The watchdog is disarmed when a call returns: a gap between collectives longer than the
// timeout (every rank idles 1.5 s under a 0.5 s timeout) ends nothing.
TEST(MpiCollectiveBound, TimeBetweenCollectivesIsNotBounded) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {2}}});
  f.ret({mpi::allreduce(f.arg(0))});
  mpi_session().compile(m);  // before the short timeout, as above
  ShortTimeout t(std::chrono::milliseconds(500));
  const float n = float(N());
  for (int i = 0; i < 2; ++i) {
    std::vector<Array> got = mpi_session().run(m, {Array::from<float>({2}, {1, 2})});
    EXPECT_EQ(f32s(got[0]), (std::vector<float>{n, 2 * n}));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  }
}

/// The index of the group of `comm` that world rank `r` belongs to (0 for the world).
int group_of(const mpi::Comm& comm, int r) {
  for (size_t i = 0; i < comm.members.size(); ++i)
    if (comm.members[i] == r) return static_cast<int>(i / static_cast<size_t>(comm.group_size));
  return 0;
}

/// Runs one 64 MiB allreduce over `comm` (16 Mi f32: many rounds of MPI's algorithm, tens of
/// milliseconds or more), first normally (ones: the sum is the communicator's size), then again
/// under a 3 s timeout with world rank `stopped` stopping itself (SIGSTOP) as soon as its kernel
/// hands the buffer to MPI: a thread watches mpi::in_place_collectives(), which the kernel counts
/// just before calling MPI_Allreduce, after checked mode found every rank there. The rank writes
/// its process id to $HHLO_TEST_STOPPED_PID_FILE first, for the script to time the end and clean
/// up.
void stop_inside_allreduce(int stopped, const mpi::Comm& comm = mpi::Comm::world()) {
  constexpr int64_t kLen = int64_t(1) << 24;
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {kLen}}});
  f.ret({mpi::allreduce(f.arg(0), mpi::ReduceOp::sum, comm)});
  const LoadedExecutable& exe = mpi_session().compile(m);
  Buffer x = mpi_session().client().buffer_from_host(
      Array::from<float>({kLen}, std::vector<float>(size_t(kLen), 1.f)));
  std::vector<float> first = exe.execute({&x})[0].to_host().to_vector<float>();
  ASSERT_EQ(first.front(), float(comm.is_world() ? N() : comm.group_size));
  ASSERT_EQ(first.back(), first.front());
  ShortTimeout t(std::chrono::seconds(3));  // after compiling and filling 64 MiB: no skew left
  if (R() == stopped) {
    if (const char* path = std::getenv("HHLO_TEST_STOPPED_PID_FILE")) {
      if (std::FILE* out = std::fopen(path, "w")) {
        std::fprintf(out, "%d\n", int(getpid()));
        std::fclose(out);
      }
    }
    std::thread([before = mpi::in_place_collectives()] {
      while (mpi::in_place_collectives() == before) std::this_thread::yield();
      std::raise(SIGSTOP);
    }).detach();
  }
  exe.execute({&x});
  if (group_of(comm, R()) == group_of(comm, stopped)) {
    ADD_FAILURE() << "rank " << R() << " went past the collective";
    return;
  }
  // Another group's collective completes: wait for the job to be ended (MPI_Finalize at exit
  // would wait for the stopped rank).
  std::this_thread::sleep_for(std::chrono::seconds(30));
  ADD_FAILURE() << "rank " << R() << ": the job was not ended";
}

TEST(MpiCollectiveBound, DISABLED_ARankStoppedInsideTheCollective) { stop_inside_allreduce(1); }

TEST(MpiCollectiveBound, DISABLED_RankZeroStoppedInsideTheCollective) { stop_inside_allreduce(0); }

// On a communicator whose first rank is world rank 1 (the group {1, 0}), the reports go to rank
// 1, which names rank 0; with groups {0, 1}, {2, 3} of 4 ranks (by hand), rank 2 names rank 3.
TEST(MpiCollectiveBound, DISABLED_ARankStoppedInsideACollectiveOfAGroup) {
  if (N() == 2) return stop_inside_allreduce(0, mpi::Comm::groups({{1, 0}}));
  stop_inside_allreduce(3, mpi::Comm::groups({{0, 1}, {2, 3}}));
}

}  // namespace
}  // namespace hhlo
