// Shared by the SPMD tests of several layers: compile a Module with the Shardy partitioner over
// the CPU plugin's 4 devices and run it on global arrays.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/ir/module.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/sharded_array.h"
#include "hhlo/session.h"

namespace hhlo::test {

/// Compile options of a Shardy-partitioned program over 4 partitions.
inline const CompileOptions kShardy4{
    .num_partitions = 4, .use_spmd_partitioning = true, .use_shardy_partitioner = true};

/// Runs the compiled SPMD `exe` on the global `args` (each split by the layout the partitioner
/// chose) and returns the global results.
inline std::vector<Array> run_sharded(const LoadedExecutable& exe, const std::vector<Array>& args) {
  const Client& client = default_session().client();
  EXPECT_TRUE(exe.input_layouts()) << exe.sharding_error();
  std::vector<ShardedArray> in;
  for (size_t i = 0; i < args.size(); ++i)
    in.push_back(ShardedArray::from_host(client, args[i], exe.input_layouts()->at(i)));
  std::vector<const ShardedArray*> ptrs;
  for (const ShardedArray& a : in) ptrs.push_back(&a);
  std::vector<Array> out;
  for (const ShardedArray& r : exe.execute_sharded(ptrs)) out.push_back(r.to_host());
  return out;
}

/// Verifies `m`, compiles it with Shardy over 4 partitions and runs it on the global `args`.
inline std::vector<Array> run_sharded(const Module& m, const std::vector<Array>& args) {
  verify(m);
  return run_sharded(compile(default_session().client(), m, kShardy4), args);
}

}  // namespace hhlo::test
