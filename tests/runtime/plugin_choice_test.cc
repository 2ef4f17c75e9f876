// Why the default CPU plugin is lammps-jax-pjrt-cpu 0.11.2 (docs/facts.md, "Choice of the CPU
// plugin"): it reads what current JAX emits. JAX 0.10's bytecode for lax.top_k is a composite op
// (vhlo.composite_v2), which the runner-up xla-cpu-pjrt 0.0.1 (StableHLO 1.13.3) cannot read.
// The bytecode and its expected values come from tests/runtime/gen_top_k_bytecode.py (JAX 0.10.2).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;

std::string top_k_bytecode() {
  std::ifstream in(std::string(HHLO_GENERATED_DIR) + "/top_k_2x5_k3.mlirbc", std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Client client_of(const std::string& relative_path) {
  return Client::create(Plugin::load(std::string(HHLO_THIRD_PARTY_DIR) + "/pjrt/" + relative_path),
                        {{"cpu_device_count", int64_t{1}}});
}

TEST(PluginChoice, JaxTopKBytecodeRunsOnTheDefaultPlugin) {
  std::string bytes = top_k_bytecode();
  ASSERT_GT(bytes.size(), 100u);
  ASSERT_EQ(bytes.substr(0, 4),
            "ML\xef"
            "R");  // MLIR bytecode
  Client cpu = client_of("cpu/pjrt_c_api_cpu_plugin.so");
  LoadedExecutable exe = compile(cpu, bytes);
  Buffer x = cpu.buffer_from_host(Array::from<float>({2, 5}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3}));
  std::vector<Buffer> out = exe.execute({&x});
  ASSERT_EQ(out.size(), 2u);
  // The three largest of each row, and where they were (JAX 0.10.2 gives the same).
  EXPECT_EQ(out[0].to_host().to_vector<float>(), (std::vector<float>{5, 4, 3, 9, 6, 5}));
  EXPECT_EQ(out[1].to_host().to_vector<int32_t>(), (std::vector<int32_t>{4, 2, 0, 0, 2, 3}));
}

TEST(PluginChoice, JaxTopKBytecodeRunsOn0_81ThroughOurReader) {
  // xla-cpu-pjrt 0.0.1 cannot read JAX 0.10's bytecode itself ("vhlo.composite_v2", seen before
  // our reader): bytecode is now read by us and compiled as text (issue 21), which it runs.
  Client cpu = client_of("cpu-0.81/xla_cpu_pjrt.so");
  LoadedExecutable exe = compile(cpu, top_k_bytecode());
  Buffer in = cpu.buffer_from_host(Array::from<float>({2, 5}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3}));
  std::vector<Buffer> out = exe.execute({&in});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].to_host().to_vector<float>(), (std::vector<float>{5, 4, 3, 9, 6, 5}));
  EXPECT_EQ(out[1].to_host().to_vector<int32_t>(), (std::vector<int32_t>{4, 2, 0, 0, 2, 3}));
}

}  // namespace
}  // namespace hhlo
