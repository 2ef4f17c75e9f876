// hhlo::mpi::allreduce runs in place (issue 24 item 7): the builder aliases its result to its
// operand (output_operand_aliases), so the kernel gets one buffer and calls MPI_Allreduce with
// MPI_IN_PLACE, and XLA copies the operand first only when it is read again after the call.
// Values are checked against sums derived by hand over the ranks (rank q's x[j] = q + j + 1, so
// the sum over N ranks is N(N-1)/2 + N(j+1), exact in f32), for each way the operand can reach the
// call: an argument still read afterwards (XLA must copy it, the argument must not change), an
// intermediate (no copy), and a donated argument fed back execution after execution (the raw
// loop's case: one buffer all along).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hhlo/ir/printer.h"
#include "hhlo/mpi/collectives.h"
#include "hhlo/mpi/kernels.h"
#include "hhlo/program/compile.h"
#include "hhlo/session.h"
#include "mpi_session.h"

namespace hhlo {
namespace {

constexpr int64_t kLen = 1000;  // above XLA:CPU's small-buffer sizes

int N() { return mpi::world_size(); }
int R() { return mpi::world_rank(); }

/// Rank q's operand: q + j + 1.
Array rank_input(int q) {
  std::vector<float> v(kLen);
  for (int64_t j = 0; j < kLen; ++j) v[size_t(j)] = float(q + j + 1);
  return Array::from<float>({kLen}, v);
}

/// The sum over ranks of rank_input, times `scale`.
std::vector<float> summed(double scale = 1) {
  std::vector<float> v(kLen);
  const double n = N();
  for (int64_t j = 0; j < kLen; ++j) v[size_t(j)] = float(scale * (n * (n - 1) / 2 + n * (j + 1)));
  return v;
}

void expect_values(const Array& got, const std::vector<float>& want, const std::string& what) {
  SCOPED_TRACE(what + ", rank " + std::to_string(R()) + "/" + std::to_string(N()));
  ASSERT_EQ(got.dtype(), DType::f32);
  auto v = got.values<float>();
  ASSERT_EQ(v.size(), want.size());
  for (size_t j = 0; j < want.size(); ++j) ASSERT_EQ(v[j], want[j]) << "element " << j;
}

std::vector<float> scaled_input(float s) {
  std::vector<float> v(kLen);
  for (int64_t j = 0; j < kLen; ++j) v[size_t(j)] = s * float(R() + j + 1);
  return v;
}

TEST(MpiInPlace, TheAllreduceAliasesItsResultToItsOperand) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {kLen}}});
  f.ret({mpi::allreduce(f.arg(0))});
  EXPECT_NE(to_mlir(m).find("output_operand_aliases = [#stablehlo.output_operand_alias<"
                            "output_tuple_indices = [0], operand_index = 0, "
                            "operand_tuple_indices = []>]"),
            std::string::npos)
      << to_mlir(m);
}

TEST(MpiInPlace, AnArgumentReadAgainAfterTheAllreduceKeepsItsValue) {
  // y1 = allreduce(x); z = 3 x; y2 = allreduce(x); x itself returned: XLA must reduce a copy.
  Session& s = mpi_session();
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {kLen}}});
  Tensor x = f.arg(0);
  Tensor y1 = mpi::allreduce(x);
  Tensor z = np::multiply(x, np::full_like(x, 3.0f));
  Tensor y2 = mpi::allreduce(x);
  f.ret({y1, z, y2, negate(negate(x))});
  const LoadedExecutable& exe = s.compile(m);
  Buffer xb = s.client().buffer_from_host(rank_input(R()));
  for (int run = 0; run < 2; ++run) {  // the argument buffer is unchanged by the first run
    const int64_t before = mpi::in_place_collectives();
    std::vector<Buffer> out = exe.execute({&xb});
    EXPECT_EQ(mpi::in_place_collectives() - before, 2);
    expect_values(out.at(0).to_host(), summed(), "first allreduce of x");
    expect_values(out.at(1).to_host(), scaled_input(3), "3 x after it");
    expect_values(out.at(2).to_host(), summed(), "second allreduce of x");
    expect_values(out.at(3).to_host(), scaled_input(1), "x returned");
    expect_values(xb.to_host(), scaled_input(1), "the argument buffer");
  }
}

TEST(MpiInPlace, AnIntermediateIsReducedInPlace) {
  // allreduce(allreduce(2 x)): both operands are intermediates, dead after their call.
  Session& s = mpi_session();
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {kLen}}});
  Tensor twice = np::add(Tensor(f.arg(0)), Tensor(f.arg(0)));
  f.ret({mpi::allreduce(mpi::allreduce(twice))});
  const int64_t before = mpi::in_place_collectives();
  std::vector<Array> got = s.run(m, {rank_input(R())});
  EXPECT_EQ(mpi::in_place_collectives() - before, 2);
  expect_values(got.at(0), summed(2.0 * N()), "allreduce(allreduce(2 x))");
}

void donated_runs(const Client& client) {
  // x <- allreduce(x), x donated: after k executions x = N^(k-1) * sum, one buffer reused.
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {kLen}}});
  f.set_arg_attr(0, {"tf.aliasing_output", IntAttr{0, DType::i32}});
  f.ret({mpi::allreduce(f.arg(0))});
  LoadedExecutable exe = compile(client, m);
  Buffer x = client.buffer_from_host(rank_input(R()));
  double scale = 1;
  for (int k = 0; k < 3; ++k) {
    const int64_t before = mpi::in_place_collectives();
    std::vector<Buffer> out = exe.execute({&x});
    EXPECT_EQ(mpi::in_place_collectives() - before, 1);
    EXPECT_TRUE(x.is_deleted()) << "the argument was not donated";
    x = std::move(out.at(0));
    expect_values(x.to_host(), summed(scale), "execution " + std::to_string(k));
    scale *= N();
  }
}

TEST(MpiInPlace, ADonatedArgumentIsReducedInPlaceExecutionAfterExecution) {
  donated_runs(mpi_session().client());  // the asynchronous client
  static Client sync = [] {
    Client c = Client::create("cpu", std::vector<ClientOption>{{"asynchronous", false}});
    register_mpi_kernels(c);
    return c;
  }();
  donated_runs(sync);
}

}  // namespace
}  // namespace hhlo
