// GPU custom calls executed on the CUDA plugin: examples/custom_call_gpu/vector_add.cu in both
// ABIs (legacy through PJRT_Gpu_Custom_Call api_version 0, typed FFI through api_version 1 and
// through the FFI extension with platform "CUDA"). Built only where nvcc exists; runs only with
// HHLO_TEST_GPU=1 on a machine with an NVIDIA GPU and the CUDA plugin (HHLO_PJRT_PLUGIN_CUDA or
// third_party/pjrt/cuda/xla_cuda_plugin.so). tests/gpu/run_gpu_checks.sh does all of it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/custom_call.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;

constexpr char kLib[] = HHLO_CUSTOM_CALL_GPU_LIB;
constexpr int64_t kN = 1 << 20;

bool gpu_enabled() {
  const char* v = std::getenv("HHLO_TEST_GPU");
  return v && std::string(v) == "1";
}

#define REQUIRE_GPU() \
  if (!gpu_enabled()) GTEST_SKIP() << "set HHLO_TEST_GPU=1 on a machine with an NVIDIA GPU"

const Client& gpu() {
  // The GPU plugin preallocates 75% of the GPU by default: not for tests.
  static const Client client = Client::create("cuda", {{"preallocate", false}});
  return client;
}

/// (a + b) * a with the add as `add_op` (a full op line, result %s) on tensor<kN x f32>.
std::string program(const std::string& add_op) {
  const std::string t = "tensor<" + std::to_string(kN) + "xf32>";
  return "func.func @main(%a: " + t + ", %b: " + t + ") -> " + t + " {\n  %s = " + add_op +
         "\n  %r = stablehlo.multiply %s, %a : " + t + "\n  return %r : " + t + "\n}\n";
}

std::string custom_add(const std::string& target, int api_version, const std::string& config) {
  const std::string t = "tensor<" + std::to_string(kN) + "xf32>";
  return "stablehlo.custom_call @" + target +
         "(%a, %b) {api_version = " + std::to_string(api_version) + " : i32" + config + "} : (" +
         t + ", " + t + ") -> " + t;
}

/// Runs `mlir` on inputs a[i] = i % 100 - 50, b[i] = 1 + i % 3 and checks (a + b) * a exactly.
void run_and_check(const std::string& mlir) {
  Array a(DType::f32, {kN}), b(DType::f32, {kN});
  auto av = a.values<float>(), bv = b.values<float>();
  for (int64_t i = 0; i < kN; ++i) {
    av[i] = static_cast<float>(i % 100 - 50);
    bv[i] = static_cast<float>(1 + i % 3);
  }
  LoadedExecutable exe = compile(gpu(), mlir);
  Buffer da = gpu().buffer_from_host(a), db = gpu().buffer_from_host(b);
  std::vector<Buffer> out = exe.execute({&da, &db});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> got = out[0].to_host().to_vector<float>();
  ASSERT_EQ(got.size(), static_cast<std::size_t>(kN));
  int64_t bad = 0;
  for (int64_t i = 0; i < kN; ++i)
    if (got[i] != (av[i] + bv[i]) * av[i] && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want "
                    << (av[i] + bv[i]) * av[i];
  EXPECT_EQ(bad, 0);
}

TEST(GpuCustomCall, PluginHasTheGpuCustomCallAndFfiExtensions) {
  REQUIRE_GPU();
  const Plugin& p = gpu().plugin();
  std::cout << "CUDA plugin " << p.path() << ", PJRT C API " << p.api_major() << "."
            << p.api_minor() << ", platform " << gpu().platform_name() << " "
            << gpu().platform_version() << "\n";
  EXPECT_TRUE(p.has_extension(PluginExtension::gpu_custom_call));
  EXPECT_TRUE(p.has_extension(PluginExtension::ffi));
}

TEST(GpuCustomCall, NativeAddRuns) {
  REQUIRE_GPU();
  const std::string t = "tensor<" + std::to_string(kN) + "xf32>";
  run_and_check(program("stablehlo.add %a, %b : " + t));
}

TEST(GpuCustomCall, TypedFfiKernelThroughTheGpuExtension) {
  REQUIRE_GPU();
  register_gpu_custom_call(gpu().plugin(), kLib, "hhlo_gpu_add_typed", GpuCustomCallApi::typed,
                           "hhlo_gpu_vector_add_typed");
  run_and_check(program(custom_add("hhlo_gpu_add_typed", 4, "")));
}

TEST(GpuCustomCall, LegacyKernelThroughTheGpuExtension) {
  REQUIRE_GPU();
  register_gpu_custom_call(gpu().plugin(), kLib, "hhlo_gpu_add_legacy", GpuCustomCallApi::legacy,
                           "hhlo_gpu_vector_add_legacy");
  // Legacy ABI: no shapes reach the kernel; the element count travels as the opaque string.
  run_and_check(program(
      custom_add("hhlo_gpu_add_legacy", 2, ", backend_config = \"" + std::to_string(kN) + "\"")));
}

TEST(GpuCustomCall, TypedFfiKernelThroughTheFfiExtension) {
  REQUIRE_GPU();
  CustomCallLibrary lib = load_custom_call_library(kLib);
  register_custom_call(gpu().plugin(), "hhlo_gpu_add_ffi", lib.symbol("hhlo_gpu_vector_add_typed"),
                       "CUDA");
  run_and_check(program(custom_add("hhlo_gpu_add_ffi", 4, "")));
}

TEST(GpuCustomCall, UnregisteredTargetNamesTheTarget) {
  REQUIRE_GPU();
  try {
    run_and_check(program(custom_add("hhlo_gpu_never_registered", 4, "")));
    FAIL() << "a call to an unregistered target ran";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("hhlo_gpu_never_registered"));
  }
}

}  // namespace
}  // namespace hhlo
