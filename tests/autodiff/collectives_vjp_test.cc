// VJP rules of the collectives (src/autodiff/rules/collectives.cc) checked by central finite
// differences on the CPU plugin's 4 devices (4 replicas). SPMD semantics, as JAX's: device d
// holds x_d and computes y_d = op(x)_d; the loss is L = sum_d <c_d, y_d> for fixed per-device
// cotangents c_d, so dL/dx_d is what the VJP program returns on device d.
#include <gtest/gtest.h>

#include <functional>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/spmd.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/session.h"
#include "spmd_util.h"

namespace hhlo {
namespace {

const DType F = DType::f32;
const CompileOptions kReplicas{.num_replicas = 4};
const ReplicaGroups kAll4{{{0, 1, 2, 3}}};
const ReplicaGroups kPairs{{{0, 1}, {2, 3}}};
using Op1 = std::function<Value(Value)>;

std::vector<std::vector<Array>> run4(const LoadedExecutable& exe,
                                     const std::vector<std::vector<Array>>& args) {
  const Client& c = default_session().client();
  auto devs = exe.devices();
  std::vector<std::vector<Buffer>> bufs(4);
  std::vector<std::vector<const Buffer*>> ptrs(4);
  for (size_t d = 0; d < 4; ++d) {
    for (const Array& a : args[d]) bufs[d].push_back(c.buffer_from_host(a, devs[d]));
    for (const Buffer& b : bufs[d]) ptrs[d].push_back(&b);
  }
  std::vector<std::vector<Array>> out;
  for (auto& r : exe.execute_replicated(ptrs)) {
    out.emplace_back();
    for (const Buffer& b : r) out.back().push_back(b.to_host());
  }
  return out;
}

double dot(const Array& a, const Array& b) {
  double s = 0;
  auto x = a.to_vector<float>(), y = b.to_vector<float>();
  for (size_t i = 0; i < x.size(); ++i) s += static_cast<double>(x[i]) * y[i];
  return s;
}

/// Checks the VJP of `op` (per-device operand f32[`in`]) against finite differences.
void check(const std::string& name, const Dims& in, const Op1& op) {
  SCOPED_TRACE(name);
  Module fwd;
  Func& f = fwd.add_func("main", {{F, in}});
  Value y = op(f.arg(0));
  f.ret({y});
  verify(fwd);
  Dims out = y.dims();
  Module bwd;
  Func& g = bwd.add_func("main", {{F, in}, {F, out}});
  Value yb = op(g.arg(0));
  g.ret(ad::vjp({yb}, ad::Wrt{g.arg(0)}, ad::Cotangents{g.arg(1)}));
  verify(bwd);
  const Client& c = default_session().client();
  LoadedExecutable fe = compile(c, fwd, kReplicas), be = compile(c, bwd, kReplicas);
  int64_t n_in = 1, n_out = 1;
  for (int64_t d : in) n_in *= d;
  for (int64_t d : out) n_out *= d;
  std::vector<std::vector<float>> x(4), ct(4);
  for (int d = 0; d < 4; ++d) {
    for (int64_t k = 0; k < n_in; ++k) x[d].push_back(0.3f * d - 0.7f * k + 0.1f * k * k);
    for (int64_t k = 0; k < n_out; ++k) ct[d].push_back(1.0f + 0.5f * d + 0.25f * k);
  }
  auto arrays = [&](const std::vector<std::vector<float>>& xs, bool with_ct) {
    std::vector<std::vector<Array>> a(4);
    for (int d = 0; d < 4; ++d) {
      a[d].push_back(Array::from<float>(in, xs[d]));
      if (with_ct) a[d].push_back(Array::from<float>(out, ct[d]));
    }
    return a;
  };
  auto loss = [&](const std::vector<std::vector<float>>& xs) {
    auto y = run4(fe, arrays(xs, false));
    double s = 0;
    for (int d = 0; d < 4; ++d) s += dot(y[d][0], Array::from<float>(out, ct[d]));
    return s;
  };
  auto grads = run4(be, arrays(x, true));
  const float eps = 1e-2f;
  for (int d = 0; d < 4; ++d)
    for (int64_t k = 0; k < n_in; ++k) {
      auto hi = x, lo = x;
      hi[d][k] += eps;
      lo[d][k] -= eps;
      double fd = (loss(hi) - loss(lo)) / (2 * eps);
      EXPECT_NEAR(grads[d][0].to_vector<float>()[k], fd, 2e-2 * (1 + std::abs(fd)))
          << "device " << d << " element " << k;
    }
}

Value sum(Value a, Value b) { return add(a, b); }

TEST(CollectivesVjp, AllReduceSumIsPsumOfTheCotangent) {
  check("all_reduce", {3}, [](Value x) { return all_reduce(multiply(x, x), kAll4, sum); });
  check("all_reduce pairs", {2}, [](Value x) { return all_reduce(sine(x), kPairs, sum); });
}

TEST(CollectivesVjp, AllGatherAndReduceScatterTransposeIntoEachOther) {
  check("all_gather", {2, 2}, [](Value x) { return all_gather(multiply(x, x), 1, kAll4); });
  check("all_gather pairs", {3}, [](Value x) { return all_gather(x, 0, kPairs); });
  check("reduce_scatter", {8},
        [](Value x) { return reduce_scatter(multiply(x, x), 0, kAll4, sum); });
}

TEST(CollectivesVjp, AllToAllAndCollectivePermuteInvert) {
  check("all_to_all", {4, 2}, [](Value x) { return all_to_all(multiply(x, x), 0, 1, 4, kAll4); });
  check("collective_permute", {3}, [](Value x) {
    return collective_permute(multiply(x, x), {{0, 1}, {1, 2}, {2, 0}});  // device 3: zeros
  });
}

TEST(CollectivesVjp, NonSumReductionsAreRefused) {
  Module m;
  Func& f = m.add_func("main", {{F, {2}}});
  Value y = all_reduce(f.arg(0), kAll4, [](Value a, Value b) { return maximum(a, b); });
  try {
    ad::vjp({y}, ad::Wrt{f.arg(0)}, ad::Cotangents{y});
    FAIL() << "a max all_reduce was differentiated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sum"), std::string::npos) << e.what();
  }
}

// collective_broadcast: the CPU plugins cannot run it (docs/facts.md), so its rule is run on its
// own (the cotangent program it builds) and checked against an equivalent forward that runs (a
// sum of collective_permutes from each group's source: result@p = x@g[0] for p in g, zeros
// outside every group) through <c, B x> = <B^T c, x>, and by hand.
Value broadcast_equivalent(Value x, const ReplicaGroups& groups) {
  Value out;
  for (size_t k = 0; k < 4; ++k) {
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (const auto& g : groups.groups)
      if (g.size() > k) pairs.push_back({g[0], g[k]});
    if (pairs.empty()) break;
    Value part = collective_permute(x, pairs);
    out = out.valid() ? add(out, part) : part;
  }
  return out;
}

void check_broadcast(const ReplicaGroups& groups) {
  Module scratch;  // the forward op the rule reads; never compiled
  Func& s = scratch.add_func("main", {{F, {3}}});
  const Op& op = *collective_broadcast(s.arg(0), groups).defining_op();
  const ad::VjpRule* rule = ad::find_vjp("stablehlo.collective_broadcast");
  ASSERT_NE(rule, nullptr);
  Module bwd;
  Func& g = bwd.add_func("main", {{F, {3}}});
  std::vector<ad::Cotangent> cts = (*rule)(op, {g.arg(0)});
  ASSERT_EQ(cts.size(), 1u);
  ASSERT_TRUE(cts[0]);
  g.ret({*cts[0]});
  verify(bwd);
  for (const auto& o : g.body().ops()) EXPECT_NE(o->name(), "stablehlo.collective_broadcast");
  Module fwd;
  Func& f = fwd.add_func("main", {{F, {3}}});
  f.ret({broadcast_equivalent(f.arg(0), groups)});
  const Client& c = default_session().client();
  LoadedExecutable fe = compile(c, fwd, kReplicas), be = compile(c, bwd, kReplicas);
  std::vector<std::vector<Array>> xs(4), cs(4);
  for (int d = 0; d < 4; ++d) {
    float fd = static_cast<float>(d);
    xs[d].push_back(Array::from<float>({3}, {1 + fd, -2 * fd, 0.5f + fd * fd}));
    cs[d].push_back(Array::from<float>({3}, {10 * (fd + 1), -fd, 3 - fd}));
  }
  auto y = run4(fe, xs), gx = run4(be, cs);
  // By hand: a receiver holds its source's x; the source's cotangent is its group's sum.
  double lhs = 0, rhs = 0;
  for (int d = 0; d < 4; ++d) {
    std::vector<float> want_y(3, 0.0f), want_g(3, 0.0f);
    for (const auto& grp : groups.groups)
      for (int64_t member : grp) {
        if (member == d) want_y = xs[grp[0]][0].to_vector<float>();
        if (grp[0] == d)
          for (int k = 0; k < 3; ++k) want_g[k] += cs[member][0].to_vector<float>()[k];
      }
    EXPECT_EQ(y[d][0].to_vector<float>(), want_y) << "device " << d;
    EXPECT_EQ(gx[d][0].to_vector<float>(), want_g) << "device " << d;
    lhs += dot(cs[d][0], y[d][0]);
    rhs += dot(gx[d][0], xs[d][0]);
  }
  EXPECT_NEAR(lhs, rhs, 1e-4 * (1 + std::abs(lhs)));
}

TEST(CollectivesVjp, CollectiveBroadcastSumsTheReceiversCotangentsIntoTheSource) {
  check_broadcast(ReplicaGroups{{{2, 0, 1}}});  // device 3 in no group: zeros, no cotangent
  check_broadcast(ReplicaGroups{{{1, 0}, {3, 2}}});
}

TEST(CollectivesVjp, CollectiveBroadcastJvpBroadcastsTheTangent) {
  Module m;
  Func& f = m.add_func("main", {{F, {3}}, {F, {3}}});
  Value y = collective_broadcast(f.arg(0), ReplicaGroups{{{0, 1, 2, 3}}}, ChannelHandle{1, 1});
  Value t = ad::jvp({y}, ad::Wrt{f.arg(0)}, ad::Tangents{f.arg(1)})[0];
  const Op* d = t.defining_op();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->name(), "stablehlo.collective_broadcast");
  EXPECT_EQ(d->operands()[0], f.arg(1));
  EXPECT_EQ(*d->attr("channel_handle")->get_if<ChannelHandle>(), (ChannelHandle{1, 1}));
  f.ret({t});
  verify(m);
}

// sdy.manual_computation (shard_map) over x=4, Shardy-partitioned on 4 devices, in f64:
// F(x [8,3] split by rows, w [3] replicated) = (psum(sin(a) w) [2,3] replicated, a * a [8,3]
// split, all_gather(a w) [8,3] replicated), a = this device's two rows of x. Its VJP and JVP
// are checked against central finite differences of the partitioned forward program.
const DType D = DType::f64;
const TensorType kX{D, {8, 3}}, kW{D, {3}}, kY1{D, {2, 3}}, kY2{D, {8, 3}}, kY3{D, {8, 3}};

std::vector<Value> shard_map_program(Module& m, Value x, Value w) {
  const ReplicaGroups all{{{0, 1, 2, 3}}};
  const CollectiveOptions global{ChannelHandle{1, 1}, true};
  const Sharding rows{{{"x"}, {}}}, rep1 = Sharding::replicated(1), rep2 = Sharding::replicated(2);
  return manual_computation(
      m, {x, w}, "mesh", {rows, rep1}, {rep2, rows, rep2}, {"x"}, [&](const std::vector<Value>& a) {
        Value wb = broadcast_in_dim(a[1], {2, 3}, {1});
        return std::vector<Value>{all_reduce(multiply(sine(a[0]), wb), all, sum, global),
                                  multiply(a[0], a[0]),
                                  all_gather(multiply(a[0], wb), 0, all, global)};
      });
}

Module spmd_module(const std::vector<TensorType>& args,
                   const std::function<std::vector<Value>(Module&, Func&)>& body) {
  Module m;
  m.add_mesh("mesh", Mesh{{{"x", 4}}, {}});
  m.set_attr({"mhlo.num_partitions", i32_attr(4)});
  Func& f = m.add_func("main", args);
  f.ret(body(m, f));
  verify(m);
  return m;
}

std::vector<double> values(const Array& a) { return a.to_vector<double>(); }

Array f64_array(const Dims& d, double scale, double shift) {
  std::vector<double> v;
  int64_t n = 1;
  for (int64_t k : d) n *= k;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(scale * std::sin(0.9 * static_cast<double>(i) + shift));
  return Array::from<double>(d, v);
}

TEST(ManualComputationAd, VjpIsAManualComputationOfTheBodysVjpAndMatchesFiniteDifferences) {
  Module fwd = spmd_module(
      {kX, kW}, [](Module& m, Func& f) { return shard_map_program(m, f.arg(0), f.arg(1)); });
  Module bwd = spmd_module({kX, kW, kY1, kY2, kY3}, [](Module& m, Func& f) {
    std::vector<Value> y = shard_map_program(m, f.arg(0), f.arg(1));
    return ad::vjp(y, ad::Wrt{f.arg(0), f.arg(1)}, ad::Cotangents{f.arg(2), f.arg(3), f.arg(4)});
  });
  // Structure: the backward manual computation takes (x, w, c1, c2, c3) with the output
  // shardings as the cotangents' in_shardings, and returns (dx, dw) sharded as x and w came in.
  const Op* back = nullptr;
  for (const auto& o : bwd.find("main")->body().ops())
    if (o->name() == "sdy.manual_computation") back = o.get();
  ASSERT_NE(back, nullptr);
  const auto& ins = back->attr("in_shardings")->get_if<ShardingPerValueAttr>()->shardings;
  const auto& outs = back->attr("out_shardings")->get_if<ShardingPerValueAttr>()->shardings;
  ASSERT_EQ(ins.size(), 5u);
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(ins[3].sharding, (Sharding{{{"x"}, {}}}));
  EXPECT_EQ(ins[4].sharding, Sharding::replicated(2));
  EXPECT_EQ(outs[0].sharding, (Sharding{{{"x"}, {}}}));
  EXPECT_EQ(outs[1].sharding, Sharding::replicated(1));

  const Client& c = default_session().client();
  LoadedExecutable fe = compile(c, fwd, test::kShardy4), be = compile(c, bwd, test::kShardy4);
  Array x = f64_array(kX.dims, 1.0, 0.0), w = f64_array(kW.dims, 0.7, 1.0);
  std::vector<Array> cts = {f64_array(kY1.dims, 1.0, 2.0), f64_array(kY2.dims, 0.5, 3.0),
                            f64_array(kY3.dims, 0.8, 4.0)};
  auto loss = [&](const Array& xv, const Array& wv) {
    std::vector<Array> y = test::run_sharded(fe, {xv, wv});
    double s = 0;
    for (size_t j = 0; j < 3; ++j) {
      auto a = values(y[j]), b = values(cts[j]);
      for (size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
    }
    return s;
  };
  std::vector<Array> g = test::run_sharded(be, {x, w, cts[0], cts[1], cts[2]});
  ASSERT_EQ(g.size(), 2u);
  const double eps = 1e-6;
  for (int which = 0; which < 2; ++which) {
    Array base = which == 0 ? x : w;
    auto got = values(g[which]);
    for (int64_t k = 0; k < base.num_elements(); ++k) {
      auto hi = base.to_vector<double>(), lo = hi;
      hi[k] += eps;
      lo[k] -= eps;
      Array h = Array::from<double>(base.dims(), hi), l = Array::from<double>(base.dims(), lo);
      double fd = which == 0 ? (loss(h, w) - loss(l, w)) / (2 * eps)
                             : (loss(x, h) - loss(x, l)) / (2 * eps);
      EXPECT_NEAR(got[k], fd, 1e-6 * (1 + std::abs(fd))) << (which ? "w" : "x") << "[" << k << "]";
    }
  }
}

TEST(ManualComputationAd, VjpEqualsJaxsGradientOfTheSameShardMap) {
  // JAX's jax.vjp of the same shard_map in f32 (tests/cli/gen_spmd_programs.py, check_vma=False,
  // generated at build time) for the same cotangents.
  auto npy = [](const std::string& key) {
    return read_npy(std::string(HHLO_GENERATED_DIR) + "/spmd/shard_map_vjp." + key + ".npy");
  };
  std::vector<TensorType> types;
  std::vector<Array> args;
  for (const char* key : {"x", "w", "c1", "c2", "c3"}) {
    args.push_back(npy(key));
    types.push_back(args.back().type());
  }
  Module bwd = spmd_module(types, [](Module& m, Func& f) {
    std::vector<Value> y = shard_map_program(m, f.arg(0), f.arg(1));
    return ad::vjp(y, ad::Wrt{f.arg(0), f.arg(1)}, ad::Cotangents{f.arg(2), f.arg(3), f.arg(4)});
  });
  std::vector<Array> g = test::run_sharded(bwd, args);
  ASSERT_EQ(g.size(), 2u);
  int k = 0;
  for (const char* key : {"dx", "dw"}) {
    Array want = npy(key);
    ASSERT_EQ(g[k].type(), want.type()) << key;
    auto got = g[k].to_vector<float>(), w = want.to_vector<float>();
    for (size_t i = 0; i < w.size(); ++i)
      EXPECT_NEAR(got[i], w[i], 1e-5f * (1 + std::abs(w[i]))) << key << "[" << i << "]";
    ++k;
  }
}

TEST(ManualComputationAd, JvpIsAManualComputationOfTheBodysJvpAndMatchesFiniteDifferences) {
  Module fwd = spmd_module(
      {kX, kW}, [](Module& m, Func& f) { return shard_map_program(m, f.arg(0), f.arg(1)); });
  Module jvp_module = spmd_module({kX, kW, kX, kW}, [](Module& m, Func& f) {
    std::vector<Value> y = shard_map_program(m, f.arg(0), f.arg(1));
    return ad::jvp(y, ad::Wrt{f.arg(0), f.arg(1)}, ad::Tangents{f.arg(2), f.arg(3)});
  });
  const Client& c = default_session().client();
  LoadedExecutable fe = compile(c, fwd, test::kShardy4),
                   te = compile(c, jvp_module, test::kShardy4);
  Array x = f64_array(kX.dims, 1.0, 0.0), w = f64_array(kW.dims, 0.7, 1.0);
  Array tx = f64_array(kX.dims, 0.3, 5.0), tw = f64_array(kW.dims, 0.6, 6.0);
  const double eps = 1e-6;
  auto shifted = [&](const Array& a, const Array& t, double e) {
    auto v = values(a), dv = values(t);
    for (size_t k = 0; k < v.size(); ++k) v[k] += e * dv[k];
    return Array::from<double>(a.dims(), v);
  };
  std::vector<Array> hi = test::run_sharded(fe, {shifted(x, tx, eps), shifted(w, tw, eps)});
  std::vector<Array> lo = test::run_sharded(fe, {shifted(x, tx, -eps), shifted(w, tw, -eps)});
  std::vector<Array> t = test::run_sharded(te, {x, w, tx, tw});
  ASSERT_EQ(t.size(), 3u);
  for (size_t j = 0; j < 3; ++j) {
    auto a = values(hi[j]), b = values(lo[j]), got = values(t[j]);
    ASSERT_EQ(got.size(), a.size());
    for (size_t k = 0; k < a.size(); ++k) {
      double fd = (a[k] - b[k]) / (2 * eps);
      EXPECT_NEAR(got[k], fd, 1e-6 * (1 + std::abs(fd))) << "output " << j << " element " << k;
    }
  }
}

TEST(ManualComputationAd, PartlyManualWithAReplicatedOperandIsRefused) {
  Module m;
  m.add_mesh("mesh", Mesh{{{"x", 2}, {"y", 2}}, {}});
  Func& f = m.add_func("main", {{D, {4}}});
  auto y = manual_computation(m, {f.arg(0)}, "mesh", {Sharding::replicated(1)}, {Sharding{{{"x"}}}},
                              {"x"},
                              [](const std::vector<Value>& a) { return std::vector<Value>{a[0]}; });
  try {
    ad::vjp(y, ad::Wrt{f.arg(0)}, ad::Cotangents{y[0]});
    FAIL() << "differentiated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("automatic"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hhlo
