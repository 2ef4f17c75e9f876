// The collectives built by hhlo/ir/ops.h, executed across the CPU plugin's 4 in-process devices
// as 4 replicas (cross_replica groups) and as 4 partitions (flattened global device ids, the
// form JAX's shard_map writes). Device d holds x_d = {10 d, 10 d + 1, 10 d + 2, 10 d + 3}; every
// expected value is derived by hand from the spec's semantics of the op.
#include <gtest/gtest.h>

#include "exec_util.h"
#include "hhlo/ir/ops.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_options.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

using test::run_per_device;
const CompileOptions kReplicas{.num_replicas = 4};
const ReplicaGroups kAll4{{{0, 1, 2, 3}}};
const DType F = DType::f32;

std::vector<std::vector<Array>> per_device_x() {
  std::vector<std::vector<Array>> args;
  for (int d = 0; d < 4; ++d) {
    float b = 10.0f * static_cast<float>(d);
    args.push_back({Array::from<float>({4}, {b, b + 1, b + 2, b + 3})});
  }
  return args;
}

/// Builds @main(x: f32[4]) returning what `body` returns, runs it on 4 devices.
std::vector<std::vector<Array>> run4(const std::function<std::vector<Value>(Value)>& body,
                                     const CompileOptions& options = kReplicas) {
  Module m;
  Func& f = m.add_func("main", {{F, {4}}});
  f.ret(body(f.arg(0)));
  return run_per_device(m, options, per_device_x());
}

Value sum(Value a, Value b) { return add(a, b); }

TEST(Collectives, AllReduceSumsOverEachGroup) {
  auto out = run4([](Value x) {
    return std::vector<Value>{all_reduce(x, kAll4, sum),
                              all_reduce(x, ReplicaGroups{{{0, 1}, {2, 3}}},
                                         [](Value a, Value b) { return maximum(a, b); })};
  });
  ASSERT_EQ(out.size(), 4u);
  for (int d = 0; d < 4; ++d) {
    // sum_d {10 d + k} = 60 + 4 k
    EXPECT_EQ(out[d][0].to_vector<float>(), (std::vector<float>{60, 64, 68, 72})) << d;
    // max over {0, 1} is x_1, over {2, 3} is x_3
    float b = d < 2 ? 10.0f : 30.0f;
    EXPECT_EQ(out[d][1].to_vector<float>(), (std::vector<float>{b, b + 1, b + 2, b + 3})) << d;
  }
}

TEST(Collectives, AllReduceOfTwoOperandsAndIntegers) {
  Module m;
  Func& f = m.add_func("main", {{DType::i32, {2}}, {DType::i32, {1}}});
  auto r = all_reduce({f.arg(0), f.arg(1)}, kAll4, [](const std::vector<Value>& a) {
    return std::vector<Value>{multiply(a[0], a[1])};
  });
  f.ret(r);
  std::vector<std::vector<Array>> args;
  for (int32_t d = 0; d < 4; ++d)
    args.push_back({Array::from<int32_t>({2}, {d + 1, 2}), Array::from<int32_t>({1}, {-1})});
  auto out = run_per_device(m, kReplicas, args);
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(out[d][0].to_vector<int32_t>(), (std::vector<int32_t>{24, 16}));  // 4!, 2^4
    EXPECT_EQ(out[d][1].to_vector<int32_t>(), (std::vector<int32_t>{1}));       // (-1)^4
  }
}

TEST(Collectives, AllGatherConcatenatesInGroupOrder) {
  auto out = run4([](Value x) {
    Value two = slice(x, {0}, {2});  // {10 d, 10 d + 1}
    return std::vector<Value>{all_gather(two, 0, kAll4),
                              all_gather(two, 0, ReplicaGroups{{{1, 0}, {3, 2}}})};
  });
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(out[d][0].to_vector<float>(), (std::vector<float>{0, 1, 10, 11, 20, 21, 30, 31}));
    std::vector<float> want =
        d < 2 ? std::vector<float>{10, 11, 0, 1} : std::vector<float>{30, 31, 20, 21};
    EXPECT_EQ(out[d][1].to_vector<float>(), want) << d;
  }
}

TEST(Collectives, ReduceScatterKeepsTheDevicesPartOfTheSum) {
  auto out = run4([](Value x) { return std::vector<Value>{reduce_scatter(x, 0, kAll4, sum)}; });
  for (int d = 0; d < 4; ++d)
    EXPECT_EQ(out[d][0].to_vector<float>(), (std::vector<float>{60.0f + 4.0f * d})) << d;
}

TEST(Collectives, AllToAllSendsPartIToDeviceI) {
  auto out = run4([](Value x) {
    Value m = reshape(x, {1, 4});
    return std::vector<Value>{all_to_all(x, 0, 0, 4, kAll4), all_to_all(m, 1, 0, 4, kAll4)};
  });
  for (int d = 0; d < 4; ++d) {
    // device d receives element d of every sender s: 10 s + d
    float e = static_cast<float>(d);
    std::vector<float> want{e, 10 + e, 20 + e, 30 + e};
    EXPECT_EQ(out[d][0].to_vector<float>(), want) << d;
    EXPECT_EQ(out[d][1].dims(), (Dims{4, 1}));
    EXPECT_EQ(out[d][1].to_vector<float>(), want) << d;
  }
}

TEST(Collectives, CollectivePermuteShiftsAndZeroFillsUntargetedDevices) {
  auto out = run4([](Value x) {
    return std::vector<Value>{collective_permute(x, {{0, 1}, {1, 2}, {2, 3}}),
                              collective_permute(x, {{0, 3}, {1, 0}, {2, 1}, {3, 2}})};
  });
  for (int d = 0; d < 4; ++d) {
    float b = 10.0f * static_cast<float>(d - 1);
    std::vector<float> want =
        d == 0 ? std::vector<float>{0, 0, 0, 0} : std::vector<float>{b, b + 1, b + 2, b + 3};
    EXPECT_EQ(out[d][0].to_vector<float>(), want) << d;
    float c = 10.0f * static_cast<float>((d + 1) % 4);
    EXPECT_EQ(out[d][1].to_vector<float>(), (std::vector<float>{c, c + 1, c + 2, c + 3})) << d;
  }
}

TEST(Collectives, ReplicaIdAndPartitionIdNameTheDevice) {
  auto out = run4([](Value x) {
    Func& f = x.func();
    return std::vector<Value>{replica_id(f), partition_id(f)};
  });
  for (uint32_t d = 0; d < 4; ++d) {
    EXPECT_EQ(out[d][0].to_vector<uint32_t>(), (std::vector<uint32_t>{d}));
    EXPECT_EQ(out[d][1].to_vector<uint32_t>(), (std::vector<uint32_t>{0}));  // one partition
  }
}

TEST(Collectives, FlattenedGlobalIdsAcrossFourPartitions) {
  // channel_handle + use_global_device_ids: groups of global device ids, as shard_map writes; in
  // a program without shardings, compiled with SPMD partitioning over 4 partitions.
  const CompileOptions parts{.num_partitions = 4, .use_spmd_partitioning = true};
  const CollectiveOptions global{ChannelHandle{1, 1}, true};
  auto out = run4(
      [&](Value x) {
        return std::vector<Value>{all_reduce(x, kAll4, sum, global),
                                  all_gather(slice(x, {0}, {1}), 0, kAll4, global)};
      },
      parts);
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(out[d][0].to_vector<float>(), (std::vector<float>{60, 64, 68, 72})) << d;
    EXPECT_EQ(out[d][1].to_vector<float>(), (std::vector<float>{0, 10, 20, 30})) << d;
  }
  // partition_id outside a manual computation is refused by the SPMD partitioner (docs/facts.md).
  Module m;
  Func& f = m.add_func("main", {{F, {4}}});
  f.ret({partition_id(f)});
  try {
    compile(default_session().client(), m, parts);
    ADD_FAILURE() << "partition_id compiled under SPMD partitioning";
  } catch (const PjrtError& e) {
    EXPECT_NE(std::string(e.what()).find("PartitionId instruction is not supported for SPMD"),
              std::string::npos)
        << e.what();
  }
}

TEST(Collectives, CollectiveBroadcastIsRefusedByTheCpuPlugin) {
  Module m;
  Func& f = m.add_func("main", {{F, {4}}});
  f.ret({collective_broadcast(f.arg(0), ReplicaGroups{{{2, 1}}})});
  test::expect_refused_by_plugin(m, kReplicas, "collective-broadcast");
}

}  // namespace
}  // namespace hhlo
