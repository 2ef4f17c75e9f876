// vmap of every MPI collective (issue 24, item 2: batching rules), run whole under `mpirun -np 2`
// and `-np 4` with the rest of hhlo_mpi_tests (ctest label mpi): the vmapped collective over a
// batch of B examples must equal the unbatched collective applied to each example in turn (whose
// values collectives_test.cc checks against the host). Values are small integers, so every
// reduction order gives the same sums and the comparison is exact.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/mpi/collectives.h"
#include "hhlo/mpi/kernels.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/session.h"
#include "mpi_session.h"

namespace hhlo {
namespace {

using PerExample = std::function<Value(Value)>;

struct Case {
  std::string name;
  PerExample op;
};

/// Every collective with a per-example operand of shape [n, 2] (n = the world size).
std::vector<Case> cases(int n) {
  mpi::Comm world = mpi::Comm::world(n);
  std::vector<std::pair<int64_t, int64_t>> to_last;
  for (int64_t s = 0; s + 1 < n; ++s) to_last.push_back({s, s + 1});  // rank 0 gets zeros
  return {
      {"allreduce sum", [=](Value x) { return mpi::allreduce(x, mpi::ReduceOp::sum, world); }},
      {"allreduce max", [=](Value x) { return mpi::allreduce(x, mpi::ReduceOp::max, world); }},
      {"allgather", [=](Value x) { return mpi::allgather(x, world); }},
      {"reduce_scatter",
       [=](Value x) { return mpi::reduce_scatter(x, mpi::ReduceOp::sum, world); }},
      {"alltoall", [=](Value x) { return mpi::alltoall(x, world); }},
      {"bcast", [=](Value x) { return mpi::bcast(x, n - 1, world); }},
      {"sendrecv", [=](Value x) { return mpi::sendrecv(x, to_last, world); }},
      {"shift", [=](Value x) { return mpi::shift(x, 1, world); }},
  };
}

/// op applied to each X[b] of X [B, n, 2], the results stacked on a new dimension 0.
Value per_example(const PerExample& op, Value xs, int64_t batch) {
  std::vector<Value> ys;
  for (int64_t b = 0; b < batch; ++b) {
    Dims lim = xs.type().dims;
    lim[0] = b + 1;
    Value x = reshape(slice(xs, {b, 0, 0}, lim, {1, 1, 1}), {xs.dim(1), xs.dim(2)});
    Value y = op(x);
    Dims d = y.type().dims;
    d.insert(d.begin(), 1);
    ys.push_back(reshape(y, d));
  }
  return concatenate(ys, 0);
}

TEST(MpiBatching, EveryCollectiveVmappedEqualsThePerExampleOp) {
  const int n = mpi::world_size(), r = mpi::world_rank();
  constexpr int64_t kBatch = 3;
  for (const Case& c : cases(n)) {
    SCOPED_TRACE(c.name);
    Module m;
    Func& f = m.add_func("main", {TensorType{DType::f32, {kBatch, n, 2}}});
    Value batched = ad::vmap(
        [&](const std::vector<Value>& x) {
          Value y = c.op(x[0]);
          mpi::barrier(y.func());  // no batched operand: re-emitted as it is
          return std::vector<Value>{y};
        },
        {f.arg(0)})[0];
    Value looped = per_example(c.op, f.arg(0), kBatch);
    ASSERT_EQ(batched.type(), looped.type());
    f.ret({batched, looped});
    std::vector<float> x(static_cast<size_t>(kBatch * n * 2));
    std::iota(x.begin(), x.end(), float(100 * r));  // rank r: 100 r + flat index
    std::vector<Array> got = mpi_session().run(m, {Array::from<float>({kBatch, n, 2}, x)});
    EXPECT_EQ(got[0].to_vector<float>(), got[1].to_vector<float>());
  }
}

// vmap of grad (per-example gradients): the backward allreduce the VJP rule builds is batched
// too. L(x) = sum(allreduce(x) * x) on each rank; the vmapped gradient must equal the gradient of
// each example in turn.
TEST(MpiBatching, PerExampleGradientsThroughAnAllreduce) {
  const int r = mpi::world_rank();
  constexpr int64_t kBatch = 3;
  auto grad_of = [](Value x) {
    Value loss = np::sum(Tensor(mpi::allreduce(x)) * Tensor(x));
    return ad::grad(loss, {x})[0];
  };
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {kBatch, 4}}});
  Value batched =
      ad::vmap([&](const std::vector<Value>& x) { return std::vector<Value>{grad_of(x[0])}; },
               {f.arg(0)})[0];
  std::vector<Value> looped;
  for (int64_t b = 0; b < kBatch; ++b) {
    Value x = reshape(slice(f.arg(0), {b, 0}, {b + 1, 4}, {1, 1}), {4});
    looped.push_back(reshape(grad_of(x), {1, 4}));
  }
  f.ret({batched, concatenate(looped, 0)});
  std::vector<double> x(static_cast<size_t>(kBatch * 4));
  std::iota(x.begin(), x.end(), double(10 * r));
  std::vector<Array> got = mpi_session().run(m, {Array::from<double>({kBatch, 4}, x)});
  EXPECT_EQ(got[0].to_vector<double>(), got[1].to_vector<double>());
}

// A collective whose operand is the same for every example (closed over) is rebuilt unbatched;
// only its token may be batched (a collective after a vmapped one inside the same trace).
TEST(MpiBatching, AnUnbatchedOperandStaysUnbatched) {
  const int n = mpi::world_size(), r = mpi::world_rank();
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {2, 3}}, TensorType{DType::f32, {3}}});
  Value shared = f.arg(1);
  std::vector<Value> ys = ad::vmap(
      [&](const std::vector<Value>& x) {
        return std::vector<Value>{mpi::allreduce(x[0]), mpi::allreduce(shared)};
      },
      {f.arg(0)}, {0}, {0, std::nullopt});
  EXPECT_EQ(ys[1].type(), (TensorType{DType::f32, {3}}));
  f.ret(ys);
  std::vector<Array> got =
      mpi_session().run(m, {Array::from<float>({2, 3}, std::vector<float>(6, float(r))),
                            Array::from<float>({3}, std::vector<float>(3, float(r + 1)))});
  EXPECT_EQ(got[0].to_vector<float>(), std::vector<float>(6, float(n * (n - 1) / 2)));
  EXPECT_EQ(got[1].to_vector<float>(), std::vector<float>(3, float(n * (n + 1) / 2)));
}

}  // namespace
}  // namespace hhlo
