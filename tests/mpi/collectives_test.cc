// hhlo::mpi collectives across processes (issue 24), run whole under `mpirun -np 2` and
// `mpirun -np 4 --oversubscribe` (ctest label mpi): every rank builds the same programs, compiles
// them on the real CPU plugin with the MPI kernels registered and runs them; results are checked
// against values derived on the host from every rank's inputs (rank q's a[s][c] = q + 2s + c + 1),
// exactly (all values are small integers, exact in every dtype). Every rank runs the same tests in
// the same order, so the collectives of each test match across processes.
#include "hhlo/mpi/collectives.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/core/error.h"
#include "hhlo/mpi/kernels.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/session.h"
#include "mpi_session.h"

namespace hhlo {
namespace {

using cd = std::complex<double>;

Session& session() { return mpi_session(); }

int N() { return mpi::world_size(); }
int R() { return mpi::world_rank(); }

/// Rank q's inputs a and b, [N, 2] row-major: a = q + j + 1, b = (q + j) % 2 + 1 (j the flat
/// index); for pred both are (q + j) % 2.
std::vector<double> input_a(int q, DType t) {
  std::vector<double> v(static_cast<size_t>(2 * N()));
  for (size_t j = 0; j < v.size(); ++j)
    v[j] = t == DType::pred ? double((q + j) % 2) : double(q) + double(j) + 1;
  return v;
}
std::vector<double> input_b(int q, DType t) {
  std::vector<double> v(static_cast<size_t>(2 * N()));
  for (size_t j = 0; j < v.size(); ++j) v[j] = double((q + j) % 2) + (t == DType::pred ? 0 : 1);
  return v;
}
/// The element rank q holds at flat index j: a (+ i b for complex).
cd elem(int q, size_t j, DType t) {
  return {input_a(q, t)[j], is_complex(t) ? input_b(q, t)[j] : 0.0};
}

/// The reduction of values over ranks as the kernels define it for dtype t.
cd reduce(const std::vector<cd>& v, mpi::ReduceOp op, DType t) {
  cd r = v[0];
  for (size_t i = 1; i < v.size(); ++i) {
    if (t == DType::pred) {
      bool a = r.real() != 0, b = v[i].real() != 0;
      bool orr = op == mpi::ReduceOp::sum || op == mpi::ReduceOp::max;
      r = (orr ? (a || b) : (a && b)) ? 1.0 : 0.0;
    } else if (op == mpi::ReduceOp::sum) {
      r += v[i];
    } else if (op == mpi::ReduceOp::prod) {
      r *= v[i];
    } else if (op == mpi::ReduceOp::min) {
      r = std::min(r.real(), v[i].real());
    } else {
      r = std::max(r.real(), v[i].real());
    }
  }
  return r;
}

/// Rank q's x (a, + i b for complex) as an array of dtype t, [N, 2]: inputs go in and results
/// come out in their own dtype, so the program holds nothing but the collectives (a convert per
/// output is an XLA fusion to compile: 5x the compile time of the whole test).
Array typed(int q, DType t, bool b_only) {
  std::vector<double> re = b_only ? input_b(q, t) : input_a(q, t), im = input_b(q, t);
  if (!is_complex(t) || b_only) im.assign(re.size(), 0.0);
  if (b_only && is_complex(t)) im = re;
  Array x(t, {N(), 2});
  for (size_t j = 0; j < re.size(); ++j) {
    auto* p = static_cast<std::byte*>(x.data()) + j * byte_size(t);
    auto put = [&](auto v) { std::memcpy(p, &v, sizeof(v)); };
    switch (t) {
      case DType::pred:
        put(uint8_t(re[j] != 0));
        break;
      case DType::i8:
        put(int8_t(re[j]));
        break;
      case DType::i16:
        put(int16_t(re[j]));
        break;
      case DType::i32:
        put(int32_t(re[j]));
        break;
      case DType::i64:
        put(int64_t(re[j]));
        break;
      case DType::ui8:
        put(uint8_t(re[j]));
        break;
      case DType::ui16:
        put(uint16_t(re[j]));
        break;
      case DType::ui32:
        put(uint32_t(re[j]));
        break;
      case DType::ui64:
        put(uint64_t(re[j]));
        break;
      case DType::f16:
        put(f16_t(float(re[j])));
        break;
      case DType::bf16:
        put(bf16_t(float(re[j])));
        break;
      case DType::f32:
        put(float(re[j]));
        break;
      case DType::f64:
        put(re[j]);
        break;
      case DType::c64:
        put(std::complex<float>(float(re[j]), float(im[j])));
        break;
      case DType::c128:
        put(cd(re[j], im[j]));
        break;
      default:  // the suite iterates kClassicDTypes
        throw Error("typed: no MPI test values of " + std::string(dtype_name(t)));
    }
  }
  return x;
}

/// Every element of `a` as a complex double.
std::vector<cd> elements(const Array& a) {
  std::vector<cd> v;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    double im = 0;
    if (a.dtype() == DType::c64) im = a.values<std::complex<float>>()[size_t(i)].imag();
    if (a.dtype() == DType::c128) im = a.values<cd>()[size_t(i)].imag();
    v.push_back({a.element_as_double(i), im});
  }
  return v;
}

/// Compares output `k` (advanced) with `expected` (flat).
void expect(const std::vector<Array>& got, size_t& k, const std::vector<cd>& expected, DType t,
            const std::string& what) {
  SCOPED_TRACE(what + " " + std::string(dtype_name(t)) + " rank " + std::to_string(R()) + "/" +
               std::to_string(N()));
  ASSERT_EQ(got.at(k).dtype(), t);
  std::vector<cd> v = elements(got.at(k++));
  ASSERT_EQ(v.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(v[i], expected[i]) << "element " << i;
}

/// {{0, 1}, {2, 3}} for 4 ranks, {{1, 0}} for 2 (listed out of order: the group's order is the
/// list's, MPI_Comm_split's key), one group of all otherwise.
std::vector<std::vector<int64_t>> test_groups() {
  if (N() == 4) return {{0, 1}, {2, 3}};
  if (N() == 2) return {{1, 0}};
  std::vector<int64_t> all(static_cast<size_t>(N()));
  for (int i = 0; i < N(); ++i) all[static_cast<size_t>(i)] = i;
  return {all};
}

class EveryDtype : public ::testing::TestWithParam<DType> {};

// One program per dtype holding every collective (also the proof that the ordering chain keeps
// a dozen collectives matched across ranks).
TEST_P(EveryDtype, EveryCollectiveMatchesTheHostDerivation) {
  const DType t = GetParam();
  const int n = N(), r = R();
  const bool cplx = is_complex(t);
  const mpi::Comm world = mpi::Comm::world(n);
  const auto groups = test_groups();
  const mpi::Comm gcomm = mpi::Comm::groups(groups);
  Module m;
  Func& f = m.add_func("main", {TensorType{t, {n, 2}}, TensorType{t, {n, 2}}});
  Value x = f.arg(0), p = f.arg(1);
  std::vector<Value> outs;
  auto out = [](std::vector<Value>& o, Value y) { o.push_back(y); };
  out(outs, mpi::allreduce(x, mpi::ReduceOp::sum, world));
  if (!cplx) {
    out(outs, mpi::allreduce(p, mpi::ReduceOp::prod, world));
    out(outs, mpi::allreduce(x, mpi::ReduceOp::min, world));
    out(outs, mpi::allreduce(x, mpi::ReduceOp::max, world));
  }
  out(outs, mpi::allgather(x, world));
  out(outs, mpi::reduce_scatter(x, mpi::ReduceOp::sum, world));
  out(outs, mpi::alltoall(x, world));
  out(outs, mpi::bcast(x, n - 1, world));
  out(outs, mpi::shift(x, 1, world));
  out(outs, mpi::sendrecv(x, {{0, 1}}, world));
  mpi::barrier(f, world);
  out(outs, mpi::allreduce(x, mpi::ReduceOp::sum, gcomm));
  out(outs, mpi::allgather(x, gcomm));
  f.ret(outs);

  std::vector<Array> got = session().run(m, {typed(r, t, false), typed(r, t, true)});
  const size_t J = static_cast<size_t>(2 * n);
  auto over_ranks = [&](size_t j, mpi::ReduceOp op, bool use_b, const std::vector<int64_t>& ranks) {
    std::vector<cd> v;
    for (int64_t q : ranks) {
      if (use_b) {
        double b = input_b(static_cast<int>(q), t)[j];
        v.push_back({b, cplx ? b : 0.0});
      } else {
        v.push_back(elem(static_cast<int>(q), j, t));
      }
    }
    return reduce(v, op, t);
  };
  std::vector<int64_t> all(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
  size_t k = 0;
  std::vector<cd> e(J);
  for (size_t j = 0; j < J; ++j) e[j] = over_ranks(j, mpi::ReduceOp::sum, false, all);
  expect(got, k, e, t, "allreduce sum");
  if (!cplx) {
    for (size_t j = 0; j < J; ++j) e[j] = over_ranks(j, mpi::ReduceOp::prod, true, all);
    expect(got, k, e, t, "allreduce prod");
    for (size_t j = 0; j < J; ++j) e[j] = over_ranks(j, mpi::ReduceOp::min, false, all);
    expect(got, k, e, t, "allreduce min");
    for (size_t j = 0; j < J; ++j) e[j] = over_ranks(j, mpi::ReduceOp::max, false, all);
    expect(got, k, e, t, "allreduce max");
  }
  std::vector<cd> g;  // allgather: [n, n, 2], block q = rank q's x
  for (int q = 0; q < n; ++q)
    for (size_t j = 0; j < J; ++j) g.push_back(elem(q, j, t));
  expect(got, k, g, t, "allgather");
  std::vector<cd> rs;  // reduce_scatter: block r of the sum
  for (size_t c = 0; c < 2; ++c)
    rs.push_back(over_ranks(static_cast<size_t>(2 * r) + c, mpi::ReduceOp::sum, false, all));
  expect(got, k, rs, t, "reduce_scatter");
  std::vector<cd> a2a;  // alltoall: block s = rank s's block r
  for (int s = 0; s < n; ++s)
    for (size_t c = 0; c < 2; ++c) a2a.push_back(elem(s, static_cast<size_t>(2 * r) + c, t));
  expect(got, k, a2a, t, "alltoall");
  for (size_t j = 0; j < J; ++j) e[j] = elem(n - 1, j, t);
  expect(got, k, e, t, "bcast from the last rank");
  for (size_t j = 0; j < J; ++j) e[j] = elem((r + n - 1) % n, j, t);
  expect(got, k, e, t, "shift by 1");
  for (size_t j = 0; j < J; ++j) e[j] = r == 1 ? elem(0, j, t) : cd{};
  expect(got, k, e, t, "sendrecv 0 -> 1");
  const std::vector<int64_t>* mine = nullptr;
  for (const auto& gr : groups)
    if (std::count(gr.begin(), gr.end(), r)) mine = &gr;
  ASSERT_NE(mine, nullptr);
  for (size_t j = 0; j < J; ++j) e[j] = over_ranks(j, mpi::ReduceOp::sum, false, *mine);
  expect(got, k, e, t, "allreduce sum over groups");
  std::vector<cd> gg;
  for (int64_t q : *mine)
    for (size_t j = 0; j < J; ++j) gg.push_back(elem(static_cast<int>(q), j, t));
  expect(got, k, gg, t, "allgather over groups (in the group's listed order)");
  EXPECT_EQ(k, got.size());
}

INSTANTIATE_TEST_SUITE_P(Mpi, EveryDtype, ::testing::ValuesIn(kClassicDTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// ---- Ordering ----------------------------------------------------------------------------------

const Op* producer(Value v) { return v.defining_op(); }

TEST(MpiOrdering, EachCollectiveReadsThePreviousOnesToken) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {3}}});
  Value a = mpi::allreduce(f.arg(0));
  mpi::barrier(f);
  Value b = mpi::bcast(a);
  const Op* first = producer(a);
  const Op* third = producer(b);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(third, nullptr);
  // The first reads a fresh constant; the barrier reads the first's token; bcast the barrier's.
  EXPECT_EQ(producer(first->operands()[1])->name(), "stablehlo.constant");
  const Op* bar = producer(third->operands()[1]);
  ASSERT_NE(bar, nullptr);
  EXPECT_EQ(bar->operands()[0], first->results()[1]);
  EXPECT_EQ(std::get<StringAttr>(bar->attr("call_target_name")->variant()).value,
            "hhlo_mpi_barrier");
  EXPECT_EQ(mpi::ordering_token(f), Tensor(third->results()[1]).value());
}

TEST(MpiOrdering, EveryBuilderTargetIsRegistered) {
  EXPECT_EQ(mpi::builder_targets(), mpi_kernel_targets());
}

// ---- Shape rules -------------------------------------------------------------------------------

template <typename F>
void expect_shape_error(F&& f, const std::string& op, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no ShapeError for " << op;
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.op(), op);
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(MpiShapes, ResultShapesFollowTheCommunicatorSize) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {4, 3}}});
  mpi::Comm w4 = mpi::Comm::world(4);
  EXPECT_EQ(mpi::allgather(f.arg(0), w4).shape(), (Dims{4, 4, 3}));
  EXPECT_EQ(mpi::reduce_scatter(f.arg(0), mpi::ReduceOp::sum, w4).shape(), (Dims{3}));
  EXPECT_EQ(mpi::alltoall(f.arg(0), w4).shape(), (Dims{4, 3}));
  EXPECT_EQ(mpi::allreduce(f.arg(0), mpi::ReduceOp::max).shape(), (Dims{4, 3}));
  mpi::Comm g = mpi::Comm::groups({{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  EXPECT_EQ(g.size(), 2);
  EXPECT_EQ(mpi::allgather(f.arg(0), g).shape(), (Dims{2, 4, 3}));
}

TEST(MpiShapes, BadInputIsAShapeErrorNamingTheOp) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {3}}, TensorType{DType::c64, {2}}});
  expect_shape_error([&] { mpi::allgather(f.arg(0), mpi::Comm::world()); }, "mpi.allgather",
                     "communicator size");
  expect_shape_error(
      [&] { mpi::reduce_scatter(f.arg(0), mpi::ReduceOp::sum, mpi::Comm::world(2)); },
      "mpi.reduce_scatter", "dimension 0");
  expect_shape_error([&] { mpi::alltoall(f.arg(0), mpi::Comm::world(2)); }, "mpi.alltoall",
                     "dimension 0");
  expect_shape_error([&] { mpi::allreduce(f.arg(1), mpi::ReduceOp::min); }, "mpi.allreduce",
                     "complex");
  expect_shape_error([&] { mpi::bcast(f.arg(0), 2, mpi::Comm::world(2)); }, "mpi.bcast", "root 2");
  expect_shape_error([&] { mpi::sendrecv(f.arg(0), {{0, 1}, {1, 1}}); }, "mpi.sendrecv", "twice");
  expect_shape_error([&] { mpi::Comm::groups({{0, 1}, {2}}); }, "mpi.comm", "one size");
  expect_shape_error([&] { mpi::Comm::groups({{0, 1}, {1, 3}}); }, "mpi.comm", "exactly once");
  expect_shape_error([&] { mpi::Comm::split({0, -1}, {0, 0}); }, "mpi.comm", "MPI_UNDEFINED");
}

TEST(MpiShapes, SplitGroupsByColorThenKeyThenRank) {
  mpi::Comm c = mpi::Comm::split({1, 0, 1, 0}, {0, 5, 0, 2});
  // color 0: ranks 1 (key 5), 3 (key 2) -> {3, 1}; color 1: ranks 0, 2 (key 0 both) -> {0, 2}.
  EXPECT_EQ(c.members, (std::vector<int64_t>{3, 1, 0, 2}));
  EXPECT_EQ(c.group_size, 2);
}

// ---- Failures at run time: every rank gets the same clear error, none hangs
// ----------------------

void expect_run_error(const std::function<void(Func&)>& body, const std::string& part) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {2}}});
  body(f);
  try {
    session().run(m, {Array::from<float>({2}, {1.0f, 2.0f})});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(MpiFailures, AProgramBuiltForAnotherWorldSizeIsRefused) {
  expect_run_error([](Func& f) { f.ret({mpi::allgather(f.arg(0), mpi::Comm::world(N() + 1))}); },
                   "built for a communicator of " + std::to_string(N() + 1) + " processes");
}

TEST(MpiFailures, GroupsThatDoNotCoverTheJobAreRefused) {
  std::vector<int64_t> g(static_cast<size_t>(N() + 2));
  for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<int64_t>(i);
  expect_run_error(
      [&](Func& f) {
        f.ret({mpi::allreduce(f.arg(0), mpi::ReduceOp::sum, mpi::Comm::groups({g}))});
      },
      "but the job has " + std::to_string(N()) + " processes");
}

// Checked mode (on for the whole suite, main): ranks that build different collectives all get
// the same error naming every rank's signature, where MPI would mix data or wait forever.
TEST(MpiFailures, RanksThatDisagreeOnAShapeAllFailInCheckedMode) {
  ASSERT_TRUE(mpi::checked());
  const int64_t len = R() == 0 ? 2 : 3;  // a rank-dependent program: what checked mode is for
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {len}}});
  f.ret({mpi::allreduce(f.arg(0))});
  try {
    session().run(m, {Array(DType::f32, {len})});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("the ranks disagree on this collective"), std::string::npos) << w;
    EXPECT_NE(w.find("rank 0: hhlo_mpi_allreduce f32[2]"), std::string::npos) << w;
    EXPECT_NE(
        w.find(std::string(N() == 2 ? "rank 1" : "ranks 1, 2, 3") + ": hhlo_mpi_allreduce f32[3]"),
        std::string::npos)
        << w;
  }
}

TEST(MpiFailures, RanksAtDifferentCollectivesAllFailInCheckedMode) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {2}}});
  f.ret({R() == 0 ? mpi::allreduce(f.arg(0)) : mpi::bcast(f.arg(0))});
  try {
    session().run(m, {Array(DType::f32, {2})});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("rank 0: hhlo_mpi_allreduce"), std::string::npos) << w;
    EXPECT_NE(w.find(std::string(N() == 2 ? "rank 1" : "ranks 1, 2, 3") + ": hhlo_mpi_bcast"),
              std::string::npos)
        << w;
  }
}

// ---- Derivatives -------------------------------------------------------------------------------

// sum over ranks of L_r with L_r = sum(w * op(x_r)); the gradient each rank gets is the one of
// the global loss with respect to its own x (mpi4jax's convention: allreduce-sum transposes to
// itself).
TEST(MpiAutodiff, GradientsOfAllreduceAllgatherAndReduceScatter) {
  const int n = N(), r = R();
  mpi::Comm world = mpi::Comm::world(n);
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {n, 2}}});
  Value x = f.arg(0);
  // d/dx_r sum(allreduce(x)) = n everywhere.
  Value l1 = np::sum(mpi::allreduce(x, mpi::ReduceOp::sum, world));
  // allgather: L_q = sum_s (s + 1) sum(x_s) -> d/dx_r = n (r + 1).
  Value gathered = mpi::allgather(x, world);  // [n, n, 2]
  Value w = constant(f, Scalar(1.0), DType::f64, {n, n, 2});
  std::vector<double> wv;
  for (int s = 0; s < n; ++s)
    for (int j = 0; j < 2 * n; ++j) wv.push_back(s + 1);
  w = constant(f, Array::from<double>({n, n, 2}, wv));
  Value l2 = np::sum(Tensor(gathered) * Tensor(w));
  // reduce_scatter: L_q = sum(rs(x)_q) -> d/dx_r = allgather(ones) = ones.
  Value l3 = np::sum(mpi::reduce_scatter(x, mpi::ReduceOp::sum, world));
  std::vector<Value> g1 = ad::grad(l1, {x});
  std::vector<Value> g2 = ad::grad(l2, {x});
  std::vector<Value> g3 = ad::grad(l3, {x});
  // JVP of allreduce with tangent ones: n.
  std::vector<Value> t =
      ad::jvp({Value(mpi::allreduce(x, mpi::ReduceOp::sum, world))}, ad::Wrt{x},
              ad::Tangents{ad::Tangent(constant(f, Scalar(1.0), DType::f64, {n, 2}))});
  f.ret({g1[0], g2[0], g3[0], t[0]});
  std::vector<double> xs(static_cast<size_t>(2 * n), 1.0);
  std::vector<Array> got = session().run(m, {Array::from<double>({n, 2}, xs)});
  for (double v : got[0].to_vector<double>()) EXPECT_EQ(v, n);
  for (double v : got[1].to_vector<double>()) EXPECT_EQ(v, n * (r + 1));
  for (double v : got[2].to_vector<double>()) EXPECT_EQ(v, 1.0);
  for (double v : got[3].to_vector<double>()) EXPECT_EQ(v, n);
}

TEST(MpiAutodiff, OnlyTheSumReductionIsDifferentiable) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {2}}});
  Value y = np::sum(mpi::allreduce(f.arg(0), mpi::ReduceOp::max));
  EXPECT_THROW(ad::grad(y, {f.arg(0)}), Error);
}

}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {

// Sixteen allreduces of 32 KiB each with no data between them but the token chain: big enough and
// many enough that XLA:CPU runs independent thunks concurrently (tests/mpi/ordering_fact_test.cc).
// Only the token chain keeps every rank issuing them in one order; each result checks that sums
// were not mixed.
TEST(MpiOrdering, ManyLargeIndependentCollectivesStayMatched) {
  const int n = N(), r = R();
  constexpr int kCalls = 16;
  constexpr int64_t kLen = 1 << 13;
  // One argument per call (rank + k): no arithmetic in the program, nothing to compile but the
  // calls.
  Module m;
  Func& f = m.add_func("main", std::vector<TensorType>(kCalls, TensorType{DType::f32, {kLen}}));
  std::vector<Value> outs;
  std::vector<Array> args;
  for (int k = 0; k < kCalls; ++k) {
    outs.push_back(mpi::allreduce(f.arg(size_t(k)), mpi::ReduceOp::sum));
    args.push_back(Array::from<float>({kLen}, std::vector<float>(kLen, float(r + k))));
  }
  // The tokens are results too: XLA gives dead tokens one shared buffer, whose writes would order
  // the calls by accident and hide a broken chain (measured: with the chain cut and the tokens
  // returned, ranks mix the sums on 2 and 4 processes; docs/distributed.md).
  std::vector<Value> all = outs;
  for (Value v : outs) all.push_back(v.defining_op()->results()[1]);
  f.ret(all);
  std::vector<Array> got = session().run(m, args);
  for (int k = 0; k < kCalls; ++k) {
    // sum over ranks q of (q + k)
    float want = float(n * (n - 1) / 2 + n * k);
    auto v = got[size_t(k)].values<float>();
    EXPECT_EQ(std::count(v.begin(), v.end(), want), kLen) << "allreduce " << k << ": " << v[0];
  }
}

}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {

// A collective inside a while body reads the token of the collective before the loop (a value of
// the enclosing block); the collective after the loop is ordered after the whole loop through one
// of the loop's results (ordering_token): x = rank + 1, one allreduce-sum before, two inside (i =
// 0, 1), one after.
TEST(MpiOrdering, CollectivesInAndAfterAWhileLoop) {
  const int n = N(), r = R();
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {2}}});
  Value before = mpi::allreduce(f.arg(0));  // S = sum over q of (q + 1)
  Value i0 = constant(f, Scalar(0), DType::i32);
  std::vector<Value> loop = while_loop(
      {i0, before},
      [&](const std::vector<Value>& a) {
        return std::vector<Value>{
            compare(a[0], constant(f, Scalar(2), DType::i32), ComparisonDirection::LT)};
      },
      [&](const std::vector<Value>& a) {
        return std::vector<Value>{add(a[0], constant(f, Scalar(1), DType::i32)),
                                  mpi::allreduce(a[1])};
      });
  Value after = mpi::allreduce(loop[1]);
  const Op* op = after.defining_op();
  ASSERT_NE(op, nullptr);
  EXPECT_NE(op->operands()[1].defining_op()->name(), "stablehlo.constant")
      << "the collective after the loop must read a token that depends on the loop";
  f.ret({before, loop[1], after});
  std::vector<Array> got =
      session().run(m, {Array::from<double>({2}, {double(r + 1), double(r + 1)})});
  const double S = n * (n + 1) / 2.0;
  EXPECT_EQ(got[0].to_vector<double>(), std::vector<double>(2, S));
  EXPECT_EQ(got[1].to_vector<double>(), std::vector<double>(2, S * n * n));
  EXPECT_EQ(got[2].to_vector<double>(), std::vector<double>(2, S * n * n * n));
}

}  // namespace
}  // namespace hhlo

namespace {

/// The report of ranks other than 0: each failed assertion, with the rank and test name (rank 0
/// prints the usual report; a rank's failure fails the job through its exit code).
class RankFailures : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailures(int rank) : rank_(rank) {}
  // The name is kept here: UnitTest::current_test_info() inside OnTestPartResult waits on the
  // lock gtest holds while reporting (a deadlock, seen).
  void OnTestStart(const ::testing::TestInfo& t) override {
    test_ = std::string(t.test_suite_name()) + "." + t.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s: %s:%d: %s\n", rank_, test_.c_str(),
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.message());
  }

 private:
  int rank_;
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  hhlo::mpi::set_checked(true);  // issue 24: on by default in the tests
  if (int rank = hhlo::mpi::world_rank(); rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailures(rank));
  }
  return RUN_ALL_TESTS();
}
