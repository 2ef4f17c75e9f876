// Shardy ops built with hhlo/ir/spmd.h, partitioned by XLA (Shardy) and run over the CPU
// plugin's 4 devices. The shard_map case is the program tests/cli/gen_spmd_programs.py lowers
// with JAX (shard_map of psum and all_gather over x=4): our builder's version must reproduce the
// values JAX computed for it on 4 devices (generated at build time, never committed).
#include "hhlo/ir/spmd.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "exec_util.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/sharded_array.h"
#include "hhlo/session.h"
#include "spmd_util.h"

namespace hhlo {
namespace {

const DType F = DType::f32;
using test::run_sharded;

std::string spmd_file(const std::string& name) {
  return std::string(HHLO_GENERATED_DIR) + "/spmd/" + name;
}

void expect_near(const Array& got, const Array& want) {
  ASSERT_EQ(got.dims(), want.dims());
  auto g = got.to_vector<float>(), w = want.to_vector<float>();
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-5f * (1 + std::fabs(w[i]))) << i;
}

TEST(Spmd, ShardMapPsumAndAllGatherReproduceJax) {
  const ReplicaGroups all{{{0, 1, 2, 3}}};
  const CollectiveOptions global{ChannelHandle{1, 1}, true};
  Module m;
  m.add_mesh("mesh", Mesh{{{"x", 4}}, {}});
  m.set_attr({"mhlo.num_partitions", i32_attr(4)});
  Func& f = m.add_func("main", {{F, {8, 3}}});
  f.set_arg_attr(0, sdy_sharding("mesh", {{{"x"}, {}}}));
  auto r = manual_computation(
      m, {f.arg(0)}, "mesh", {Sharding{{{"x"}, {}}}},
      {Sharding::replicated(2), Sharding::replicated(2)}, {"x"}, [&](const std::vector<Value>& a) {
        return std::vector<Value>{
            all_reduce(
                a[0], all, [](Value x, Value y) { return add(x, y); }, global),
            all_gather(a[0], 0, all, global)};
      });
  f.ret(r);
  for (size_t i = 0; i < 2; ++i)
    f.set_result_attr(i, sdy_sharding("mesh", Sharding::replicated(2)));
  Array x = read_npy(spmd_file("shard_map_psum_all_gather.in0.npy"));
  auto out = run_sharded(m, {x});
  ASSERT_EQ(out.size(), 2u);
  expect_near(out[0], read_npy(spmd_file("shard_map_psum_all_gather.out0.npy")));
  expect_near(out[1], read_npy(spmd_file("shard_map_psum_all_gather.out1.npy")));
  // And by hand: the psum is the sum of the four 2x3 row blocks, the gather is x itself.
  auto xv = x.to_vector<float>(), p = out[0].to_vector<float>();
  for (size_t i = 0; i < 6; ++i)
    EXPECT_NEAR(p[i], xv[i] + xv[i + 6] + xv[i + 12] + xv[i + 18], 1e-5f);
  EXPECT_EQ(out[1].to_vector<float>(), xv);
}

TEST(Spmd, JaxsShardMapTextParsedAndReprintedByUsRunsToJaxsValues) {
  Module m = parse_module_file(spmd_file("shard_map_psum_all_gather.mlir"));
  Module reprinted = parse_module(to_mlir(m));  // our generic Shardy text, compiled as such
  auto out = run_sharded(reprinted, {read_npy(spmd_file("shard_map_psum_all_gather.in0.npy"))});
  ASSERT_EQ(out.size(), 2u);
  expect_near(out[0], read_npy(spmd_file("shard_map_psum_all_gather.out0.npy")));
  expect_near(out[1], read_npy(spmd_file("shard_map_psum_all_gather.out1.npy")));
}

TEST(Spmd, ShardingConstraintKeepsValuesAndSetsTheLayout) {
  Module m;
  m.add_mesh("mesh", Mesh{{{"x", 2}, {"y", 2}}, {}});
  m.set_attr({"mhlo.num_partitions", i32_attr(4)});
  Func& f = m.add_func("main", {{F, {4, 6}}});
  f.set_arg_attr(0, sdy_sharding("mesh", {{{"x"}, {"y"}}}));
  Value two = constant(f, 2.0f, F, {4, 6});
  Value c = sharding_constraint(m, multiply(f.arg(0), two), "mesh", {{{"y"}, {"x"}}});
  f.ret({sine(c)});
  std::vector<float> xs;
  for (int i = 0; i < 24; ++i) xs.push_back(0.25f * static_cast<float>(i) - 3.0f);
  auto out = run_sharded(m, {Array::from<float>({4, 6}, xs)});
  ASSERT_EQ(out.size(), 1u);
  auto got = out[0].to_vector<float>();
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(got[i], std::sin(2.0f * xs[i]), 1e-6f) << i;
}

TEST(Spmd, TensorParallelMlpEqualsTheSingleDeviceRun) {
  // Megatron-style: W1 split by columns, W2 by rows over x=4; each device computes
  // tanh(x W1_d) W2_d and an all_reduce sums the four partial products.
  const DotDimensionNumbers mm{.lhs_contracting_dimensions = {1},
                               .rhs_contracting_dimensions = {0}};
  auto mlp = [&](Value x, Value w1, Value w2) {
    return dot_general(tanh(dot_general(x, w1, mm)), w2, mm);
  };
  const TensorType tx{F, {4, 6}}, tw1{F, {6, 8}}, tw2{F, {8, 5}};
  Module tp;
  tp.add_mesh("mesh", Mesh{{{"x", 4}}, {}});
  tp.set_attr({"mhlo.num_partitions", i32_attr(4)});
  Func& f = tp.add_func("main", {tx, tw1, tw2});
  const Sharding rep = Sharding::replicated(2), cols{{{}, {"x"}}}, rows{{{"x"}, {}}};
  f.set_arg_attr(0, sdy_sharding("mesh", rep));
  f.set_arg_attr(1, sdy_sharding("mesh", cols));
  f.set_arg_attr(2, sdy_sharding("mesh", rows));
  auto y = manual_computation(
      tp, {f.arg(0), f.arg(1), f.arg(2)}, "mesh", {rep, cols, rows}, {rep}, {"x"},
      [&](const std::vector<Value>& a) {
        EXPECT_EQ(a[1].dims(), (Dims{6, 2}));
        EXPECT_EQ(a[2].dims(), (Dims{2, 5}));
        return std::vector<Value>{all_reduce(mlp(a[0], a[1], a[2]), ReplicaGroups{{{0, 1, 2, 3}}},
                                             [](Value p, Value q) { return add(p, q); },
                                             {ChannelHandle{1, 1}, true})};
      });
  f.ret(y);
  f.set_result_attr(0, sdy_sharding("mesh", rep));
  Module one;
  Func& g = one.add_func("main", {tx, tw1, tw2});
  g.ret({mlp(g.arg(0), g.arg(1), g.arg(2))});
  auto fill = [](const Dims& d, float scale) {
    std::vector<float> v;
    for (int64_t i = 0; i < d[0] * d[1]; ++i)
      v.push_back(scale * std::sin(0.7f * static_cast<float>(i) + scale));
    return Array::from<float>(d, v);
  };
  std::vector<Array> args{fill(tx.dims, 1.0f), fill(tw1.dims, 0.5f), fill(tw2.dims, 0.3f)};
  auto sharded = run_sharded(tp, args);
  auto single = test::run(one, args);
  ASSERT_EQ(sharded.size(), 1u);
  expect_near(sharded[0], single[0]);
}

// GSPMD (JAX with jax_use_shardy_partitioner=False, tests/cli/gen_spmd_programs.py): the typed
// form of each argument's and result's `mhlo.sharding` lays the array out exactly as the
// partitioner did, and splitting JAX's inputs by it and assembling the results by it reproduces
// the values JAX computed on 4 devices.
TEST(Spmd, GspmdShardingsOfJaxProgramsSplitAndGatherAsThePartitionerDoes) {
  const Client& client = default_session().client();
  for (const char* name :
       {"gspmd_elementwise", "gspmd_matmul_contracting", "gspmd_data_parallel_step",
        "gspmd_mesh_2d", "gspmd_reduce_scalar", "gspmd_mesh_2d_transposed"}) {
    SCOPED_TRACE(name);
    Module m = parse_module_file(spmd_file(std::string(name) + ".mlir"));
    const Func& f = *m.find("main");
    LoadedExecutable exe = compile(client, m, {.num_partitions = 4, .use_spmd_partitioning = true});
    ASSERT_TRUE(exe.input_layouts()) << exe.sharding_error();
    std::vector<ShardedArray> in;
    for (size_t i = 0; i < f.args().size(); ++i) {
      std::optional<GspmdSharding> s = gspmd_sharding_of(f.arg_attrs(i));
      ASSERT_TRUE(s) << "argument " << i;
      ShardLayout l = shard_layout(*s, f.arg_types()[i].dims, 4);
      EXPECT_TRUE(l.same_placement(exe.input_layouts()->at(i)))
          << "argument " << i << ": " << s->to_string() << " gives " << l.to_string();
      Array x = read_npy(spmd_file(fmt::format("{}.in{}.npy", name, i)));
      in.push_back(ShardedArray::from_host(client, x, l));
    }
    std::vector<const ShardedArray*> ptrs;
    for (const ShardedArray& a : in) ptrs.push_back(&a);
    std::vector<ShardedArray> out = exe.execute_sharded(ptrs);
    ASSERT_EQ(out.size(), f.result_types().size());
    for (size_t j = 0; j < out.size(); ++j) {
      std::optional<GspmdSharding> s = gspmd_sharding_of(f.result_attrs(j));
      ASSERT_TRUE(s) << "result " << j;
      EXPECT_TRUE(shard_layout(*s, f.result_types()[j].dims, 4).same_placement(out[j].layout()))
          << "result " << j << ": " << s->to_string();
      expect_near(out[j].to_host(), read_npy(spmd_file(fmt::format("{}.out{}.npy", name, j))));
    }
  }
}

}  // namespace
}  // namespace hhlo
