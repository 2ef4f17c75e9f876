// Sharded arrays and SPMD execution: layouts from a Mesh and a Sharding, split and assemble,
// layouts read from the compiled program, one execute over 4 devices, and the errors.
#include <gtest/gtest.h>

#include <numeric>

#include "hhlo/core/sharding.h"
#include "runtime_util.h"

namespace hhlo {
namespace {

Array iota_f32(Dims dims) {
  Array a(DType::f32, dims);
  auto v = a.values<float>();
  std::iota(v.begin(), v.end(), 0.0f);
  return a;
}

const Mesh kLine{{{"x", 4}}, {}};
const Mesh kGrid{{{"x", 2}, {"y", 2}}, {}};

TEST(Sharding, LayoutOfARowShardedMatrix) {
  ShardLayout l = shard_layout(kLine, {{{"x"}, {}}}, {8, 3});
  EXPECT_EQ(l.shard, (Dims{2, 3}));
  EXPECT_EQ(l.devices, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(l.offsets, (std::vector<Dims>{{0, 0}, {2, 0}, {4, 0}, {6, 0}}));
}

TEST(Sharding, LayoutOnATwoDimensionalMeshWithAReplicatedAxis) {
  // dim 1 split over "y", replicated over "x": mesh position (x, y) = device 2x + y.
  ShardLayout l = shard_layout(kGrid, {{{}, {"y"}}}, {4, 6});
  EXPECT_EQ(l.shard, (Dims{4, 3}));
  EXPECT_EQ(l.offsets, (std::vector<Dims>{{0, 0}, {0, 3}, {0, 0}, {0, 3}}));
  // both axes on one dimension, major first: tile = 2x + y
  ShardLayout both = shard_layout(kGrid, {{{"x", "y"}}}, {8});
  EXPECT_EQ(both.offsets, (std::vector<Dims>{{0}, {2}, {4}, {6}}));
  ShardLayout swapped = shard_layout(kGrid, {{{"y", "x"}}}, {8});
  EXPECT_EQ(swapped.offsets, (std::vector<Dims>{{0}, {4}, {2}, {6}}));
}

TEST(Sharding, ExplicitDeviceIdsPlaceMeshPositions) {
  Mesh m{{{"x", 4}}, {3, 2, 1, 0}};
  ShardLayout l = shard_layout(m, {{{"x"}}}, {4});
  EXPECT_EQ(l.devices, (std::vector<int64_t>{3, 2, 1, 0}));
  EXPECT_EQ(m.to_string(), "<[\"x\"=4], device_ids=[3, 2, 1, 0]>");
}

TEST(Sharding, DimensionNotDivisibleByItsAxesNamesDimensionAxisAndSizes) {
  try {
    shard_layout(kGrid, {{{}, {"x", "y"}}}, {4, 6});
    FAIL();
  } catch (const ShardingError& e) {
    EXPECT_EQ(e.dimension(), 1);
    EXPECT_EQ(e.axis(), "x");
    std::string m = e.what();
    EXPECT_NE(m.find("dimension 1 has size 6"), std::string::npos) << m;
    EXPECT_NE(m.find("\"x\"=2 x \"y\"=2 (product 4)"), std::string::npos) << m;
  }
}

TEST(Sharding, BadShardingsAreShardingErrors) {
  EXPECT_THROW(shard_layout(kLine, {{{"z"}}}, {8}), ShardingError);            // unknown axis
  EXPECT_THROW(shard_layout(kGrid, {{{"x"}, {"x"}}}, {4, 4}), ShardingError);  // axis twice
  EXPECT_THROW(shard_layout(kLine, {{{"x"}}}, {4, 4}), ShardingError);         // rank
  EXPECT_THROW(shard_layout(Mesh{{{"x", 2}}, {0, 0}}, {{{"x"}}}, {4}), ShardingError);
}

TEST(Sharding, BlocksRoundTrip) {
  Array a = iota_f32({4, 6});
  Array b = extract_block(a, {2, 3}, {2, 3});
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{15, 16, 17, 21, 22, 23}));
  Array z(DType::f32, {4, 6});
  insert_block(z, b, {2, 3});
  EXPECT_EQ(z.to_vector<float>()[15], 15.0f);
  EXPECT_EQ(z.to_vector<float>()[0], 0.0f);
  EXPECT_THROW(extract_block(a, {3, 0}, {2, 3}), ShapeError);
}

TEST(ShardedArray, SplitsAndAssemblesBack) {
  const Client& c = test::cpu();
  Array a = iota_f32({4, 6});
  ShardedArray s = ShardedArray::from_host(c, a, shard_layout(kGrid, {{{"x"}, {"y"}}}, {4, 6}));
  ASSERT_EQ(s.shards().size(), 4u);
  EXPECT_EQ(s.type(), (TensorType{DType::f32, {4, 6}}));
  // device 3 = (x 1, y 1): rows 2..3, columns 3..5
  EXPECT_EQ(s.shard_on(3).to_host().to_vector<float>(),
            (std::vector<float>{15, 16, 17, 21, 22, 23}));
  EXPECT_EQ(s.shard_on(3).device().id(), 3);
  EXPECT_EQ(s.to_host(), a);
}

TEST(ShardedArray, MeshLargerThanTheClientIsAnError) {
  Client two = Client::create("cpu", {{"cpu_device_count", int64_t{2}}});
  try {
    ShardedArray::from_host(two, iota_f32({8}), shard_layout(kLine, {{{"x"}}}, {8}));
    FAIL();
  } catch (const ShardingError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 4 devices"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("only 2 are available"), std::string::npos) << e.what();
  }
}

TEST(ShardedArray, ShardOnTheWrongDeviceIsAnError) {
  const Client& c = test::cpu();
  ShardLayout l = shard_layout(Mesh{{{"x", 2}}, {}}, {{{"x"}}}, {4});
  std::vector<Buffer> shards;
  shards.push_back(c.buffer_from_host(Array::from<float>({2}, {0, 1}), c.devices()[0]));
  shards.push_back(c.buffer_from_host(Array::from<float>({2}, {2, 3}), c.devices()[3]));
  try {
    ShardedArray::from_shards(DType::f32, l, std::move(shards), c.devices());
    FAIL();
  } catch (const ShardingError& e) {
    EXPECT_NE(std::string(e.what()).find("is on device 3, expected device 1"), std::string::npos)
        << e.what();
  }
}

// Global program: y = x @ w with x f32[4,6] split over "x" x "y" and w f32[6,2] split over "y"
// on its contracting dimension: the partitioner inserts the all_reduce over "y". The result is
// replicated over "y" and split over "x".
constexpr char kMatmul[] = R"(
module @matmul attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %w: tensor<6x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> (tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x6xf32>, tensor<6x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
)";

const CompileOptions kSpmd{
    .num_partitions = 4, .use_spmd_partitioning = true, .use_shardy_partitioner = true};

TEST(ShardedArray, ExecutableReportsThePartitionedLayouts) {
  LoadedExecutable exe = test::compile(kMatmul, kSpmd);
  ASSERT_TRUE(exe.input_layouts().has_value()) << exe.sharding_error();
  ASSERT_EQ(exe.input_layouts()->size(), 2u);
  EXPECT_EQ((*exe.input_layouts())[0], shard_layout(kGrid, {{{"x"}, {"y"}}}, {4, 6}));
  // XLA lists replicated tiles in its own order: compare device by device.
  EXPECT_TRUE((*exe.input_layouts())[1].same_placement(shard_layout(kGrid, {{{"y"}, {}}}, {6, 2})));
  EXPECT_NE((*exe.input_layouts())[1], shard_layout(kGrid, {{{"y"}, {}}}, {6, 2}));
  EXPECT_TRUE(
      (*exe.output_layouts())[0].same_placement(shard_layout(kGrid, {{{"x"}, {}}}, {4, 2})));
  EXPECT_FALSE(
      (*exe.output_layouts())[0].same_placement(shard_layout(kGrid, {{{"y"}, {}}}, {4, 2})));
}

TEST(ShardedArray, MatmulWithShardedContractingDimensionMatchesTheHostProduct) {
  LoadedExecutable exe = test::compile(kMatmul, kSpmd);
  Array x = iota_f32({4, 6});
  Array w = Array::from<float>({6, 2}, {1, 0, 0, 1, 1, 1, 2, 0, 0, 2, -1, 1});
  const Client& c = test::cpu();
  // Laid out from our own Mesh and Sharding, as a user would.
  ShardedArray sx = ShardedArray::from_host(c, x, shard_layout(kGrid, {{{"x"}, {"y"}}}, {4, 6}));
  ShardedArray sw = ShardedArray::from_host(c, w, shard_layout(kGrid, {{{"y"}, {}}}, {6, 2}));
  std::vector<ShardedArray> out = exe.execute_sharded({&sx, &sw});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want(8, 0.0f);  // host reference
  auto xv = x.to_vector<float>(), wv = w.to_vector<float>();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 6; ++k) want[i * 2 + j] += xv[i * 6 + k] * wv[k * 2 + j];
  EXPECT_EQ(out[0].to_host().to_vector<float>(), want);
}

TEST(ShardedArray, ArgumentLaidOutOtherwiseIsAnError) {
  LoadedExecutable exe = test::compile(kMatmul, kSpmd);
  const Client& c = test::cpu();
  ShardedArray sx =
      ShardedArray::from_host(c, iota_f32({4, 6}), shard_layout(kGrid, {{{"y"}, {"x"}}}, {4, 6}));
  ShardedArray sw = ShardedArray::from_host(c, iota_f32({6, 2}), (*exe.input_layouts())[1]);
  EXPECT_THROW(exe.execute_sharded({&sx, &sw}), ShardingError);
  EXPECT_THROW(test::compile(kMatmul).execute_sharded({&sx, &sw}), Error);  // not partitioned
}

}  // namespace
}  // namespace hhlo
