// Shardings in the IR: a module-level mesh and per-argument/result shardings printed as Shardy
// (what JAX emits and XLA's Shardy partitioner reads). Compiled and run over 4 devices by
// tests/nn/demo_test.cc (DataParallel...) through the data-parallel trainer.
#include <gtest/gtest.h>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

TEST(Golden, MeshAndShardingsPrintAsShardy) {
  Module m;
  m.add_mesh("mesh", Mesh{{{"x", 2}, {"y", 2}}, {}});
  m.set_attr({"mhlo.num_partitions", IntAttr{4, DType::i32}});
  Func& f = m.add_func("main", {{DType::f32, {4, 6}}});
  f.set_arg_attr(0, sdy_sharding("mesh", {{{"x"}, {"y"}}}));
  f.ret({add(f.arg(0), f.arg(0))});
  f.set_result_attr(0, sdy_sharding("mesh", Sharding::replicated(2)));
  std::string text = to_mlir(m, {.locations = false});
  EXPECT_NE(text.find("module attributes {mhlo.num_partitions = 4 : i32} {\n  sdy.mesh @mesh = "
                      "<[\"x\"=2, \"y\"=2]>\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%arg0: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, "
                      "{\"y\"}]>}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("-> (tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})"),
            std::string::npos)
      << text;
}

TEST(Golden, MeshWithDeviceIdsAndBadMeshes) {
  Module m;
  m.add_mesh("m", Mesh{{{"x", 4}}, {3, 2, 1, 0}});
  Func& f = m.add_func("main", {{DType::f32, {4}}});
  f.ret({f.arg(0)});
  EXPECT_NE(to_mlir(m).find("sdy.mesh @m = <[\"x\"=4], device_ids=[3, 2, 1, 0]>"),
            std::string::npos);
  EXPECT_THROW(m.add_mesh("m", Mesh{{{"y", 2}}, {}}), Error);          // name taken
  EXPECT_THROW(m.add_mesh("n", Mesh{{{"x", 0}}, {}}), ShardingError);  // size 0
  EXPECT_THROW(m.add_mesh("n", Mesh{{{"x", 2}, {"x", 2}}, {}}), ShardingError);
}

}  // namespace
}  // namespace hhlo
