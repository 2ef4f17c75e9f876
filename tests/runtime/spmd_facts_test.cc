// Facts about multi-device execution on the default CPU plugin (docs/facts.md, "Multi-device"):
// device counts, which collectives run across in-process devices, the partitioning compile
// options and one execute over N devices. Every expected value is derived by hand from the
// per-device inputs (device d holds {10 d, 10 d + 1}).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "hhlo/program/compile.h"
#include "runtime_util.h"

namespace hhlo {
namespace {

/// One f32[2] per device: device d gets {10 d, 10 d + 1}.
std::vector<Buffer> per_device_inputs(const LoadedExecutable& exe) {
  std::vector<Buffer> out;
  auto devs = exe.devices();
  for (std::size_t d = 0; d < devs.size(); ++d) {
    float base = 10.0f * static_cast<float>(d);
    out.push_back(test::cpu().buffer_from_host(Array::from<float>({2}, {base, base + 1}), devs[d]));
  }
  return out;
}

/// Runs a one-argument, one-result program on every device of `exe`; result per device.
std::vector<std::vector<float>> run_each(const LoadedExecutable& exe) {
  std::vector<Buffer> in = per_device_inputs(exe);
  std::vector<std::vector<const Buffer*>> args;
  for (const Buffer& b : in) args.push_back({&b});
  std::vector<std::vector<float>> out;
  for (auto& r : exe.execute_replicated(args)) out.push_back(r.at(0).to_host().to_vector<float>());
  return out;
}

std::string program(const std::string& op, const std::string& result_type) {
  return "func.func @main(%a: tensor<2xf32>) -> " + result_type + " {\n  %0 = " + op +
         "\n  return %0 : " + result_type + "\n}\n";
}

const CompileOptions kFourReplicas{.num_replicas = 4};

TEST(SpmdFacts, CpuPluginCreatesFourDevicesByDefaultAndCpuDeviceCountChangesIt) {
  EXPECT_EQ(Client::create("cpu").devices().size(), 4u);
  EXPECT_EQ(Client::create("cpu", {{"cpu_device_count", int64_t{2}}}).devices().size(), 2u);
  Client eight = Client::create("cpu", {{"cpu_device_count", int64_t{8}}});
  ASSERT_EQ(eight.devices().size(), 8u);
  EXPECT_EQ(eight.devices()[7].id(), 7);
}

TEST(SpmdFacts, AllReduceRunsAcrossInProcessDevices) {
  auto exe = test::compile(program(R"("stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xf32>) -> tensor<2xf32>)",
                                   "tensor<2xf32>"),
                           kFourReplicas);
  // sum over d of {10 d, 10 d + 1} = {60, 64}
  for (const auto& r : run_each(exe)) EXPECT_EQ(r, (std::vector<float>{60, 64}));
}

TEST(SpmdFacts, AllGatherRunsAcrossInProcessDevices) {
  auto exe = test::compile(
      program(
          R"("stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xf32>) -> tensor<8xf32>)",
          "tensor<8xf32>"),
      kFourReplicas);
  for (const auto& r : run_each(exe))
    EXPECT_EQ(r, (std::vector<float>{0, 1, 10, 11, 20, 21, 30, 31}));
}

TEST(SpmdFacts, ReduceScatterRunsAcrossInProcessDevices) {
  // Two groups of two: {0, 1} and {2, 3}; the sum {10, 12} (group 0) or {50, 52} (group 1) is
  // split in halves, one per member.
  auto exe = test::compile(program(R"("stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<1xf32>)",
                                   "tensor<1xf32>"),
                           kFourReplicas);
  auto out = run_each(exe);
  EXPECT_EQ(out, (std::vector<std::vector<float>>{{10}, {12}, {50}, {52}}));
}

TEST(SpmdFacts, AllToAllRunsAcrossInProcessDevices) {
  // Groups {0, 1}, {2, 3}: member i sends its element j to member j and receives element i of
  // each member, in member order.
  auto exe = test::compile(
      program(
          R"("stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>)",
          "tensor<2xf32>"),
      kFourReplicas);
  auto out = run_each(exe);
  EXPECT_EQ(out, (std::vector<std::vector<float>>{{0, 10}, {1, 11}, {20, 30}, {21, 31}}));
}

TEST(SpmdFacts, CollectivePermuteRunsAcrossInProcessDevices) {
  // A ring 0 -> 1 -> 2 -> 3 -> 0.
  auto exe = test::compile(
      program(
          R"("stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>)",
          "tensor<2xf32>"),
      kFourReplicas);
  auto out = run_each(exe);
  EXPECT_EQ(out, (std::vector<std::vector<float>>{{30, 31}, {0, 1}, {10, 11}, {20, 21}}));
}

TEST(SpmdFacts, CollectiveBroadcastIsNotImplementedOnTheCpuPlugin) {
  try {
    auto exe = test::compile(
        program(
            R"("stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xf32>) -> tensor<2xf32>)",
            "tensor<2xf32>"),
        kFourReplicas);
    run_each(exe);
    FAIL() << "collective_broadcast ran";
  } catch (const PjrtError& e) {
    std::cerr << "collective_broadcast: " << e.what() << "\n";
    EXPECT_NE(std::string(e.what()).find("ollective"), std::string::npos) << e.what();
  }
}

TEST(SpmdFacts, ReplicaIdAndPartitionIdNameTheDevice) {
  auto exe = test::compile(R"(
func.func @main(%a: tensor<2xf32>) -> tensor<ui32> {
  %0 = stablehlo.replica_id : tensor<ui32>
  return %0 : tensor<ui32>
}
)",
                           kFourReplicas);
  std::vector<Buffer> in = per_device_inputs(exe);
  std::vector<std::vector<const Buffer*>> args;
  for (const Buffer& b : in) args.push_back({&b});
  auto out = exe.execute_replicated(args);
  for (uint32_t d = 0; d < 4; ++d)
    EXPECT_EQ(out[d][0].to_host().to_vector<uint32_t>(), (std::vector<uint32_t>{d}));
}

TEST(SpmdFacts, CompileOptionsCarryTheFieldsJaxlibWritesForSpmd) {
  // jaxlib 0.10.2: executable_build_options with num_partitions = 4, use_spmd_partitioning and
  // use_shardy_partitioner set writes field 6 = 1 and field 19 = 1 (after device_assignment,
  // field 9), and nothing when they are false.
  std::string s = serialize_compile_options({.num_partitions = 4,
                                             .use_spmd_partitioning = true,
                                             .use_shardy_partitioner = true,
                                             .xla_options = {}});
  std::string build = std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11) +
                      std::string("\x20\x01\x28\x04\x30\x01\x98\x01\x01", 9);
  EXPECT_EQ(s, std::string("\x1a") + static_cast<char>(build.size()) + build);
  std::string plain = serialize_compile_options({.num_partitions = 4, .xla_options = {}});
  EXPECT_EQ(plain.find("\x30\x01"), std::string::npos);
}

// A Shardy program written for the global shape f32[8]: argument and result split over the
// 4-device mesh axis "x", and a sum to a replicated scalar.
constexpr char kShardedProgram[] = R"(
module @sharded attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.multiply %a, %a : tensor<8xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    return %0, %1 : tensor<8xf32>, tensor<f32>
  }
}
)";

TEST(SpmdFacts, ShardyProgramIsPartitionedIntoPerDeviceShapes) {
  const CompileOptions spmd{
      .num_partitions = 4, .use_spmd_partitioning = true, .use_shardy_partitioner = true};
  auto exe = test::compile(kShardedProgram, spmd);
  ASSERT_EQ(exe.devices().size(), 4u);
  // The compiled program takes and gives per-device shards: f32[2] for f32[8] over 4 devices.
  ASSERT_TRUE(exe.input_types().has_value());
  EXPECT_EQ(*exe.input_types(), (std::vector<TensorType>{{DType::f32, {2}}}));
  EXPECT_EQ(exe.output_types(), (std::vector<TensorType>{{DType::f32, {2}}, {DType::f32, {}}}));
  // One execute over 4 devices, one argument list and one output list per device.
  std::vector<Buffer> in = per_device_inputs(exe);
  std::vector<std::vector<const Buffer*>> args;
  for (const Buffer& b : in) args.push_back({&b});
  auto out = exe.execute_replicated(args);
  ASSERT_EQ(out.size(), 4u);
  for (int d = 0; d < 4; ++d) {
    float b = 10.0f * d;
    EXPECT_EQ(out[d][0].to_host().to_vector<float>(),
              (std::vector<float>{b * b, (b + 1) * (b + 1)}));
    EXPECT_EQ(out[d][0].device().id(), d);
    // 0+1+10+11+20+21+30+31 = 124, the same on every device (replicated)
    EXPECT_EQ(out[d][1].to_host().to_vector<float>(), (std::vector<float>{124}));
  }
}

/// The plugin's own behaviour: the module compiled as it is, without the partitioning the program
/// stage derives from mhlo.num_partitions (hhlo::compile).
LoadedExecutable compile_as_given(const std::string& text, const CompileOptions& o = {}) {
  return compile(test::cpu(), read_program(text).module, o);
}

TEST(SpmdFacts, PartitionsWithoutSpmdPartitioningAreRefused) {
  // num_partitions > 1 needs use_spmd_partitioning: XLA refuses at compile time.
  try {
    compile_as_given(kShardedProgram, {.num_partitions = 4});
    FAIL();
  } catch (const PjrtError& e) {
    EXPECT_EQ(e.error_code(), PjrtErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("num_partitions=4 but SPMD partitioning not enabled"),
              std::string::npos)
        << e.what();
  }
  // With one partition the annotations are ignored: the global program runs on one device.
  auto exe = compile_as_given(kShardedProgram);
  EXPECT_EQ(*exe.input_types(), (std::vector<TensorType>{{DType::f32, {8}}}));
  EXPECT_FALSE(exe.input_layouts().has_value());
  // The program stage reads mhlo.num_partitions and partitions over that many devices.
  auto partitioned = compile(test::cpu(), kShardedProgram);
  ASSERT_TRUE(partitioned.input_layouts().has_value());
  EXPECT_EQ(partitioned.devices().size(), 4u);
}

TEST(SpmdFacts, DeviceAssignmentPlacesPartitions) {
  const CompileOptions spmd{.num_partitions = 4,
                            .use_spmd_partitioning = true,
                            .use_shardy_partitioner = true,
                            .device_assignment = {3, 2, 1, 0}};
  auto exe = test::compile(kShardedProgram, spmd);
  auto devs = exe.devices();
  ASSERT_EQ(devs.size(), 4u);
  EXPECT_EQ(devs[0].id(), 3);
  EXPECT_EQ(devs[3].id(), 0);
}

TEST(SpmdFacts, ShardMapNeedsTheShardyPartitioner) {
  // JAX's shard_map (sdy.manual_computation; tests/cli/gen_spmd_programs.py) through GSPMD
  // fails on the custom calls Shardy leaves for it; with Shardy it compiles.
  std::ifstream in(std::string(HHLO_GENERATED_DIR) + "/spmd/shard_map_psum_all_gather.mlir");
  ASSERT_TRUE(in) << "generated program missing";
  std::stringstream text;
  text << in.rdbuf();
  try {  // no partitioning at all: the issue's error
    compile_as_given(text.str());
    FAIL();
  } catch (const PjrtError& e) {
    EXPECT_EQ(e.error_code(), PjrtErrorCode::not_found);
    EXPECT_NE(std::string(e.what()).find("xla.sdy.GlobalToLocalShape"), std::string::npos)
        << e.what();
  }
  try {  // GSPMD: a RET_CHECK in the partitioner (its wording differs between the plugins)
    compile_as_given(text.str(), {.num_partitions = 4, .use_spmd_partitioning = true});
    FAIL();
  } catch (const PjrtError& e) {
    EXPECT_EQ(e.error_code(), PjrtErrorCode::internal);
    EXPECT_NE(std::string(e.what()).find("custom call named 'xla.sdy.*'"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(compile_as_given(
      text.str(),
      {.num_partitions = 4, .use_spmd_partitioning = true, .use_shardy_partitioner = true}));
}

}  // namespace
}  // namespace hhlo
