// A one-off latency probe, not part of the suite (DISABLED_: run it with
// `mpirun -np 2 build/tests/hhlo_mpi_tests --gtest_also_run_disabled_tests
// --gtest_filter=*Latency*`): one 8-byte allreduce per execution of a compiled program
// (LoadedExecutable::execute on a device buffer) against a raw MPI_Allreduce loop on the same
// ranks, unchecked and checked (with its bound on the MPI call, and with none). Numbers in
// docs/distributed.md, "Measured".
#define OMPI_SKIP_MPICXX 1
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hhlo/mpi/collectives.h"
#include "hhlo/mpi/kernels.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

double seconds_per(int iters, const std::function<void()>& f) {
  f();  // warm
  MPI_Barrier(MPI_COMM_WORLD);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
}

TEST(MpiLatency, DISABLED_EightByteAllreduce) {
  // HHLO_SYNC=1: a synchronous client (asynchronous = false: executions on the calling thread).
  static Session s(std::getenv("HHLO_SYNC")
                       ? Client::create("cpu", std::vector<ClientOption>{{"asynchronous", false}})
                       : Client::create("cpu"),
                   {.enabled = false});
  register_mpi_kernels(s.client());
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {}}});
  f.ret({mpi::allreduce(f.arg(0))});
  const LoadedExecutable& exe = s.compile(m);
  Module m0;  // the same program without the collective: the cost of one execution
  Func& f0 = m0.add_func("main", {TensorType{DType::f64, {}}});
  f0.ret({negate(f0.arg(0))});
  const LoadedExecutable& exe0 = s.compile(m0);
  Buffer x = s.client().buffer_from_host(Array::scalar(1.0));
  const int iters = 2000;
  double raw = seconds_per(iters, [] {
    double a = 1, b = 0;
    MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  });
  bool was = mpi::checked();
  mpi::set_checked(false);
  // One execution on device buffers, waited for: execute() returns the outputs when done.
  double ours = seconds_per(iters, [&] { exe.execute({&x}); });
  mpi::set_checked(true);
  // Checked mode with its bound on the MPI call (the watchdog armed and disarmed around it,
  // issue 44) and without (timeout `inf`: nothing armed), alternated over 7 rounds: the medians.
  const std::chrono::milliseconds timeout = mpi::timeout();
  std::vector<double> bounded, unbounded;
  for (int round = 0; round < 7; ++round) {
    mpi::set_timeout(timeout);
    bounded.push_back(seconds_per(iters, [&] { exe.execute({&x}); }));
    mpi::set_timeout(std::chrono::milliseconds(1'000'000'000'000));
    unbounded.push_back(seconds_per(iters, [&] { exe.execute({&x}); }));
  }
  mpi::set_timeout(timeout);
  std::sort(bounded.begin(), bounded.end());
  std::sort(unbounded.begin(), unbounded.end());
  const double checked = bounded[3], checked_inf = unbounded[3];
  mpi::set_checked(was);
  double empty = seconds_per(iters, [&] { exe0.execute({&x}); });
  if (mpi::world_rank() == 0)
    std::printf(
        "8-byte allreduce on %d ranks: raw MPI_Allreduce %.2f us, hhlo program %.2f us "
        "(%.1fx), checked %.2f us (bounded; %.2f us with no bound); the program without it "
        "%.2f us\n",
        mpi::world_size(), raw * 1e6, ours * 1e6, ours / raw, checked * 1e6, checked_inf * 1e6,
        empty * 1e6);
}

}  // namespace
}  // namespace hhlo
