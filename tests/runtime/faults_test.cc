// Faults (docs/reliability.md): broken plugin files, corrupt serialized executables and a device
// allocation too large to satisfy are each a clear hhlo::Error, never a crash, and the client
// keeps working afterwards. (A missing file, a non-library file, a library without GetPjrtApi and
// a too-old plugin are in plugin_test.cc; a plugin without the GPU custom-call extension in
// tests/custom_call.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime_util.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

constexpr char kAdd[] = R"(
func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %a, %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}
)";

/// The client still compiles and executes correctly.
void expect_client_works() {
  auto out = test::run(test::compile(kAdd), {Array::from<float>({3}, {1, -2, 0.5f})});
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{2, -4, 1}));
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Faults, TruncatedPluginLibraryIsAPluginErrorNamingThePath) {
  std::string plugin = read(test::cpu().plugin().path());
  ASSERT_GT(plugin.size(), 1u << 20);
  for (size_t keep : {size_t{0}, size_t{64}, size_t{4096}, plugin.size() / 2}) {
    fs::path p = fs::temp_directory_path() / ("hhlo-truncated-plugin-" + std::to_string(getpid()) +
                                              "-" + std::to_string(keep) + ".so");
    std::ofstream(p, std::ios::binary).write(plugin.data(), static_cast<std::streamsize>(keep));
    try {
      Plugin::load(p.string());
      ADD_FAILURE() << "loaded a plugin truncated to " << keep << " bytes";
    } catch (const PluginError& e) {
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
    fs::remove(p);
  }
  expect_client_works();
}

TEST(Faults, CorruptSerializedExecutableIsAPjrtErrorAndTheClientKeepsWorking) {
  std::string bytes = test::compile(kAdd).serialize();
  ASSERT_GT(bytes.size(), 64u);
  int refused = 0;
  // Truncations: the plugin parses a proto first; a cut one never deserializes.
  for (size_t keep :
       {size_t{1}, size_t{16}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 1}) {
    try {
      test::cpu().deserialize(bytes.substr(0, keep));
      ADD_FAILURE() << "deserialized an executable truncated to " << keep << " bytes";
    } catch (const PjrtError& e) {
      EXPECT_EQ(e.function(), "PJRT_Executable_DeserializeAndLoad") << e.what();
      ++refused;
    }
  }
  // Bytes at the start flipped (the proto's framing): refused, never a crash.
  for (size_t at : {size_t{0}, size_t{1}, size_t{2}}) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0xff);
    try {
      test::cpu().deserialize(bad);
    } catch (const PjrtError&) {
      ++refused;
    }
  }
  EXPECT_GE(refused, 5);
  expect_client_works();
}

TEST(Faults, DeviceAllocationTooLargeIsAnErrorNotACrash) {
  // 2^40 f32 = 4 TiB: more than this machine's memory.
  LoadedExecutable exe;
  try {
    exe = test::compile(R"(
func.func @main(%x: tensor<f32>) -> tensor<1099511627776xf32> {
  %0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<1099511627776xf32>
  return %0 : tensor<1099511627776xf32>
}
)");
  } catch (const PjrtError& e) {
    // Refused at compile time: also a clear error, and the client keeps working.
    EXPECT_NE(std::string(e.what()), "");
    expect_client_works();
    return;
  }
  Buffer x = test::cpu().buffer_from_host(Array::from<float>({}, {1}));
  try {
    exe.execute({&x});
    ADD_FAILURE() << "allocated 4 TiB";
  } catch (const PjrtError& e) {
    EXPECT_NE(std::string(e.what()).find("llocat"), std::string::npos) << e.what();
  }
  expect_client_works();
}

}  // namespace
}  // namespace hhlo
