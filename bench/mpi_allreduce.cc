// Allreduce latency and bandwidth across processes (issue 24, item 7), run by
// bench/mpi_allreduce.sh under `mpirun -np P`: for each size from 8 B to 64 MiB (f32 elements;
// 8 B is two), the time of one sum allreduce as
//   raw       a loop of MPI_Allreduce(a, b) on MPI_COMM_WORLD (the floor: both buffers reused),
//   raw-ip    a loop of MPI_Allreduce(MPI_IN_PLACE, b) (the floor of an in-place allreduce),
//   async     one execution of a compiled program holding one hhlo::mpi::allreduce, on the CPU
//             plugin's default (asynchronous) client: execute() on a device buffer, waited for,
//   sync      the same on a synchronous client (asynchronous = false: no thread hop); the
//             argument is not donated, so XLA copies it into the result, which the allreduce
//             then reduces in place (hhlo::mpi::allreduce aliases its result to its operand),
//   checked   sync with checked mode on (the signature exchange first),
//   donated   sync with the argument donated to the result (tf.aliasing_output) and fed back:
//             MPI_IN_PLACE on one buffer that stays allocated, as raw-ip's,
//   oop       sync with the allreduce emitted as before it ran in place (the same custom call
//             without output_operand_aliases: MPI_Allreduce(x, y) into a fresh result),
//   exec      the sync program without the allreduce (a negate): what one execution costs.
// Each is timed in `rounds` rounds that alternate them (so they see the same load), each round a
// barrier then `iters` calls; a time is the median over rounds of rank 0's mean, a ratio the
// median over rounds of the per-round ratio. Prints one line per size: bytes, the times in us,
// the ratios sync/raw, donated/raw, donated/raw-ip and checked/raw, and raw's algorithm
// bandwidth (bytes / time). Not a Google Benchmark binary: every rank must run the same number
// of iterations, which Benchmark's adaptive counts do not guarantee.
// Usage: mpirun -np P hhlo_mpi_allreduce_bench [ROUNDS=5] [MAX_BYTES=64 MiB] [MIN_BYTES=8]
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

/// The allreduce as it was emitted before it ran in place: the same custom call without
/// output_operand_aliases, so MPI_Allreduce(x, y) writes a result buffer of its own.
hhlo::Value out_of_place_allreduce(hhlo::Func& f, hhlo::Value x) {
  hhlo::CustomCallOptions o;
  o.api_version = 4;
  o.has_side_effect = true;
  o.backend_config = hhlo::DictAttr{{{"groups", hhlo::I64ArrayAttr{}},
                                     {"group_size", hhlo::i64_attr(0)},
                                     {"op", hhlo::StringAttr{"sum"}}}};
  hhlo::Value token = hhlo::mpi::ordering_token(f);
  return hhlo::custom_call(f, "hhlo_mpi_allreduce", {x, token},
                           {x.type(), TensorType{DType::i8, {}}}, o)[0];
}

enum class Body { allreduce, out_of_place, negate };

Program allreduce_program(Client& client, int64_t n, Body body = Body::allreduce,
                          bool donated = false) {
  hhlo::Module m;
  hhlo::Func& f = m.add_func("main", {TensorType{DType::f32, {n}}});
  if (donated) f.set_arg_attr(0, {"tf.aliasing_output", hhlo::IntAttr{0, DType::i32}});
  hhlo::Value x = f.arg(0);
  f.ret({body == Body::negate         ? hhlo::Value(hhlo::negate(x))
         : body == Body::out_of_place ? out_of_place_allreduce(f, x)
                                      : hhlo::Value(hhlo::mpi::allreduce(x))});
  Program p{hhlo::compile(client, std::move(m), hhlo::CompileOptions{}),
            client.buffer_from_host(Array(DType::f32, {n}))};
  return p;
}

/// The median over rounds of num[r] / den[r].
double ratio(const std::vector<double>& num, const std::vector<double>& den) {
  std::vector<double> q;
  for (size_t r = 0; r < num.size(); ++r) q.push_back(num[r] / den[r]);
  return median(q);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::stoi(argv[1]) : 5;
  const int64_t max_bytes = argc > 2 ? std::stoll(argv[2]) : (int64_t{64} << 20);
  const int64_t min_bytes = argc > 3 ? std::stoll(argv[3]) : 8;
  Client async = Client::create("cpu");
  Client sync = Client::create("cpu", std::vector<hhlo::ClientOption>{{"asynchronous", false}});
  hhlo::register_mpi_kernels(async);
  hhlo::register_mpi_kernels(sync);
  const int rank = hhlo::mpi::world_rank();
  if (rank == 0)
    std::printf(
        "# %d processes, %d rounds; times in us (median over rounds of rank 0's mean), ratios "
        "(median over rounds)\n"
        "# %10s %9s %9s %9s %9s %9s %9s %9s %9s %7s %7s %7s %7s %10s\n",
        hhlo::mpi::world_size(), rounds, "bytes", "raw", "raw-ip", "async", "sync", "checked",
        "donated", "oop", "exec", "sync/r", "don/r", "don/rip", "chk/r", "raw MB/s");
  // min_bytes, x8, ..., and max_bytes last.
  for (int64_t bytes = min_bytes; bytes <= max_bytes;
       bytes = bytes == max_bytes ? max_bytes + 1 : std::min(bytes * 8, max_bytes)) {
    const int64_t n = bytes / 4;
    // About 0.2 s per variant and round at the raw loop's speed, at least 5 calls.
    const int iters = static_cast<int>(std::clamp<int64_t>((int64_t{1} << 26) / bytes, 5, 2000));
    Program pa = allreduce_program(async, n), ps = allreduce_program(sync, n),
            pd = allreduce_program(sync, n, Body::allreduce, /*donated=*/true),
            po = allreduce_program(sync, n, Body::out_of_place),
            pe = allreduce_program(sync, n, Body::negate);
    std::vector<float> a(static_cast<size_t>(n), 1.0f), b(a.size()), c(a.size());
    std::vector<double> raw, rip, ta, ts, tc, td, to, te;
    for (int r = 0; r < rounds; ++r) {
      raw.push_back(seconds_per(iters, [&] {
        MPI_Allreduce(a.data(), b.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      }));
      rip.push_back(seconds_per(iters, [&] {
        MPI_Allreduce(MPI_IN_PLACE, c.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
      }));
      hhlo::mpi::set_checked(false);
      ta.push_back(seconds_per(iters, [&] { pa.exe.execute({&pa.x}); }));
      ts.push_back(seconds_per(iters, [&] { ps.exe.execute({&ps.x}); }));
      hhlo::mpi::set_checked(true);
      tc.push_back(seconds_per(iters, [&] { ps.exe.execute({&ps.x}); }));
      hhlo::mpi::set_checked(false);
      td.push_back(seconds_per(iters, [&] { pd.x = std::move(pd.exe.execute({&pd.x})[0]); }));
      to.push_back(seconds_per(iters, [&] { po.exe.execute({&po.x}); }));
      te.push_back(seconds_per(iters, [&] { pe.exe.execute({&pe.x}); }));
    }
    const double R = median(raw);
    if (rank == 0)
      std::printf(
          "  %10lld %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %7.2f %7.2f %7.2f %7.2f "
          "%10.1f\n",
          static_cast<long long>(bytes), R * 1e6, median(rip) * 1e6, median(ta) * 1e6,
          median(ts) * 1e6, median(tc) * 1e6, median(td) * 1e6, median(to) * 1e6, median(te) * 1e6,
          ratio(ts, raw), ratio(td, raw), ratio(td, rip), ratio(tc, raw), bytes / R / 1e6);
    std::fflush(stdout);
  }
  return 0;
}
