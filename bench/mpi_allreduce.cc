// Allreduce latency and bandwidth across processes (issue 24, item 7), run by
// bench/mpi_allreduce.sh under `mpirun -np P`: for each size from 8 B to 64 MiB (f32 elements;
// 8 B is two), the time of one sum allreduce as
//   raw      a loop of MPI_Allreduce on MPI_COMM_WORLD (the floor),
//   async    one execution of a compiled program holding one hhlo::mpi::allreduce, on the CPU
//            plugin's default (asynchronous) client: execute() on a device buffer, waited for,
//   sync     the same on a synchronous client (asynchronous = false: no thread hop),
//   checked  sync with checked mode on (the signature exchange first),
//   donated  sync with the argument donated to the result (tf.aliasing_output): the allreduce
//            runs in place (MPI_IN_PLACE) on a buffer that stays allocated, as the raw loop's,
//            instead of a fresh output buffer per execution,
//   exec     the sync program without the allreduce (a negate): what one execution costs, so
//            sync - exec is what the collective costs inside a program.
// Each is timed in `rounds` rounds that alternate the four (so they see the same load), each
// round a barrier then `iters` calls; the figure is the median over rounds of rank 0's mean.
// Prints one line per size: bytes, the four times in us, ratios to raw, and raw's bandwidth
// (the algorithm bandwidth, bytes / time). Not a Google Benchmark binary: every rank must run
// the same number of iterations, which Benchmark's adaptive counts do not guarantee.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "hhlo/mpi/collectives.h"
#include "hhlo/mpi/kernels.h"
#include "hhlo/program/compile.h"
#include "hhlo/session.h"

namespace {

using hhlo::Array;
using hhlo::Buffer;
using hhlo::Client;
using hhlo::DType;
using hhlo::TensorType;

/// Seconds per call of f over `iters` calls, after a warm call and a barrier.
double seconds_per(int iters, const std::function<void()>& f) {
  f();
  MPI_Barrier(MPI_COMM_WORLD);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Program {
  hhlo::LoadedExecutable exe;
  Buffer x;
};

Program allreduce_program(Client& client, int64_t n, bool empty = false, bool donated = false) {
  hhlo::Module m;
  hhlo::Func& f = m.add_func("main", {TensorType{DType::f32, {n}}});
  if (donated) f.set_arg_attr(0, {"tf.aliasing_output", hhlo::IntAttr{0, DType::i32}});
  f.ret({empty ? hhlo::negate(f.arg(0)) : hhlo::Value(hhlo::mpi::allreduce(f.arg(0)))});
  Program p{hhlo::compile(client, std::move(m), hhlo::CompileOptions{}),
            client.buffer_from_host(Array(DType::f32, {n}))};
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::stoi(argv[1]) : 5;
  const int64_t max_bytes = argc > 2 ? std::stoll(argv[2]) : (int64_t{64} << 20);
  Client async = Client::create("cpu");
  Client sync = Client::create("cpu", std::vector<hhlo::ClientOption>{{"asynchronous", false}});
  hhlo::register_mpi_kernels(async);
  hhlo::register_mpi_kernels(sync);
  const int rank = hhlo::mpi::world_rank();
  if (rank == 0)
    std::printf(
        "# %d processes, %d rounds; times in us (median over rounds of rank 0's mean)\n"
        "# %10s %10s %10s %10s %10s %10s %10s %8s %8s %8s %8s %12s\n",
        hhlo::mpi::world_size(), rounds, "bytes", "raw", "async", "sync", "checked", "donated",
        "exec", "async/r", "sync/r", "chk/r", "don/r", "raw MB/s");
  // 8 B, 64 B, ... (x8), and max_bytes last.
  for (int64_t bytes = 8; bytes <= max_bytes;
       bytes = bytes == max_bytes ? max_bytes + 1 : std::min(bytes * 8, max_bytes)) {
    const int64_t n = bytes / 4;
    // About 0.2 s per variant and round at the raw loop's speed, at least 5 calls.
    const int iters = static_cast<int>(std::clamp<int64_t>((int64_t{1} << 26) / bytes, 5, 2000));
    Program pa = allreduce_program(async, n), ps = allreduce_program(sync, n),
            pe = allreduce_program(sync, n, /*empty=*/true),
            pd = allreduce_program(sync, n, /*empty=*/false, /*donated=*/true);
    std::vector<float> a(static_cast<size_t>(n), 1.0f), b(a.size());
    std::vector<double> raw, ta, ts, tc, td, te;
    for (int r = 0; r < rounds; ++r) {
      raw.push_back(seconds_per(iters, [&] {
        MPI_Allreduce(a.data(), b.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      }));
      hhlo::mpi::set_checked(false);
      ta.push_back(seconds_per(iters, [&] { pa.exe.execute({&pa.x}); }));
      ts.push_back(seconds_per(iters, [&] { ps.exe.execute({&ps.x}); }));
      hhlo::mpi::set_checked(true);
      tc.push_back(seconds_per(iters, [&] { ps.exe.execute({&ps.x}); }));
      hhlo::mpi::set_checked(false);
      td.push_back(seconds_per(iters, [&] { pd.x = std::move(pd.exe.execute({&pd.x})[0]); }));
      te.push_back(seconds_per(iters, [&] { pe.exe.execute({&pe.x}); }));
    }
    double R = median(raw), A = median(ta), S = median(ts), C = median(tc), D = median(td),
           E = median(te);
    if (rank == 0)
      std::printf(
          "  %10lld %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %8.2f %8.2f %8.2f %8.2f %12.1f\n",
          static_cast<long long>(bytes), R * 1e6, A * 1e6, S * 1e6, C * 1e6, D * 1e6, E * 1e6,
          A / R, S / R, C / R, D / R, bytes / R / 1e6);
    std::fflush(stdout);
  }
  return 0;
}
