#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hhlo/runtime/client.h"
#include "runtime_util.h"

namespace hhlo {
namespace {

TEST(Plugin, LoadsTheCpuPluginAndReadsItsAttributes) {
  Plugin p = Plugin::for_platform("cpu");
  EXPECT_EQ(p.api_major(), 0);
  EXPECT_GE(p.api_minor(), 81);  // the oldest plugin the runtime drives (compat label)
  EXPECT_EQ(p.stablehlo_current_version().size(), 3u);
  EXPECT_EQ(p.stablehlo_minimum_version().size(), 3u);
  EXPECT_TRUE(p.attributes().contains("xla_version"));
  EXPECT_TRUE(p.has_extension(PluginExtension::ffi));
  EXPECT_FALSE(p.has_extension(PluginExtension::gpu_custom_call));
  // Loading again returns the same process-lifetime plugin.
  EXPECT_EQ(&Plugin::load(p.path()).state(), &p.state());
}

// Facts of the two pinned CPU plugins (docs/facts.md, "Choice of the CPU plugin"), loaded by their
// set-up paths whatever HHLO_PJRT_PLUGIN_CPU says: the default parses StableHLO up to 1.20.0
// (what JAX 0.10 emits, e.g. vhlo.composite_v2), the runner-up stops at 1.13.3.
TEST(Plugin, PinnedCpuPluginsHaveTheRecordedVersions) {
  std::string dir = std::string(HHLO_THIRD_PARTY_DIR) + "/pjrt/";
  Plugin def = Plugin::load(dir + "cpu/pjrt_c_api_cpu_plugin.so");
  EXPECT_EQ(def.api_minor(), 115);
  EXPECT_EQ(def.stablehlo_current_version(), (std::vector<int64_t>{1, 20, 0}));
  EXPECT_EQ(def.stablehlo_minimum_version(), (std::vector<int64_t>{0, 9, 0}));
  Plugin old = Plugin::load(dir + "cpu-0.81/xla_cpu_pjrt.so");
  EXPECT_EQ(old.api_minor(), 81);
  EXPECT_EQ(old.stablehlo_current_version(), (std::vector<int64_t>{1, 13, 3}));
  for (const Plugin* p : {&def, &old}) {
    EXPECT_TRUE(p->has_extension(PluginExtension::ffi));
    EXPECT_TRUE(p->has_extension(PluginExtension::layouts));
  }
}

void expect_plugin_error(const std::string& path, const std::string& needle) {
  try {
    Plugin::load(path);
    FAIL() << "no error for " << path;
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Plugin, MissingFileIsAClearError) {
  expect_plugin_error("/nonexistent/libplugin.so", "does not exist");
}

TEST(Plugin, FileThatIsNotALibraryIsAClearError) {
  expect_plugin_error(HHLO_SOURCE_DIR "/README.md", "cannot load PJRT plugin");
}

// Issue 44: an object file was "truncated (its program headers lie past the end)".
TEST(Plugin, ARelocatableObjectFileIsNamedAsOne) {
  // (The path in the message is the canonical one.)
  expect_plugin_error(HHLO_FIXTURE_OBJECT_FILE,
                      "not_a_plugin.cc.o': it is an ELF relocatable object file (gcc -c output), "
                      "not a shared library: link it into one");
}

TEST(Plugin, LibraryWithoutGetPjrtApiIsNotAPlugin) {
  expect_plugin_error(HHLO_FIXTURE_NOT_A_PLUGIN, "does not export GetPjrtApi");
}

TEST(Plugin, PluginOlderThanOurHeadersIsRefused) {
  expect_plugin_error(HHLO_FIXTURE_OLD_PLUGIN, "implements PJRT C API 0.1");
}

TEST(Plugin, ATableOfNullFunctionsIsRefusedWithTheFunctionsNamed) {
  expect_plugin_error(HHLO_FIXTURE_NULL_TABLE_PLUGIN,
                      "(PJRT C API 0.115) leaves PJRT_Error_Destroy, PJRT_Error_Message, "
                      "PJRT_Error_GetCode, PJRT_Plugin_Initialize");
}

TEST(Plugin, UnknownPlatformIsAClearError) {
  EXPECT_THROW(Plugin::for_platform("tpu9"), PluginError);
}

/// Whether `make setup-cuda` put the CUDA plugin in the set-up folder (then it cannot be missing;
/// CliDevices.CudaWithoutAnNvidiaGpuSaysSoInOneLine runs instead).
bool cuda_is_set_up() {
  return std::filesystem::exists(std::string(HHLO_THIRD_PARTY_DIR) +
                                 "/pjrt/cuda/xla_cuda_plugin.so");
}

TEST(Plugin, MissingCudaPluginSaysWhereToGetIt) {
  unsetenv("HHLO_PJRT_PLUGIN_CUDA");
  if (cuda_is_set_up()) GTEST_SKIP() << "the CUDA plugin is set up (make setup-cuda): not missing";
  try {
    Plugin::for_platform("cuda");
    FAIL() << "a CUDA plugin was found in the set-up folder";
  } catch (const PluginError& e) {
    EXPECT_NE(
        std::string(e.what()).find("set HHLO_PJRT_PLUGIN_CUDA to the path of xla_cuda_plugin.so"),
        std::string::npos)
        << e.what();
  }
}

// Without the variable, the error names every share/hhlo/plugins path tried and the set-up step.
TEST(Plugin, MissingPluginErrorListsEveryPlaceLookedAt) {
  unsetenv("HHLO_PJRT_PLUGIN_CUDA");
  if (cuda_is_set_up()) GTEST_SKIP() << "the CUDA plugin is set up (make setup-cuda): not missing";
  try {
    Plugin::for_platform("cuda");
    FAIL() << "a CUDA plugin was found";
  } catch (const PluginError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("HHLO_PJRT_PLUGIN_CUDA is not set"), std::string::npos) << what;
    EXPECT_NE(what.find("share/hhlo/plugins/cuda/xla_cuda_plugin.so"), std::string::npos) << what;
    EXPECT_NE(what.find("scripts/setup.sh --cuda"), std::string::npos) << what;
    // The build tree's share/hhlo/plugins is a link to the set-up folder: the path tried through
    // it is named with where it leads, the folder `make setup-cuda` fills (README).
    std::string setup_folder =
        (std::filesystem::weakly_canonical(std::string(HHLO_THIRD_PARTY_DIR) + "/pjrt") / "cuda" /
         "xla_cuda_plugin.so")
            .string();
    EXPECT_NE(what.find("/share/hhlo/plugins/cuda/xla_cuda_plugin.so (= " + setup_folder + ")"),
              std::string::npos)
        << what;
  }
}

// The default CPU plugin is found through the build tree's share/hhlo (links to the set-up).
TEST(Plugin, CpuPluginIsFoundThroughTheShareFolder) {
  const char* env = std::getenv("HHLO_PJRT_PLUGIN_CPU");
  std::string saved = env ? env : "";
  unsetenv("HHLO_PJRT_PLUGIN_CPU");
  Plugin p = Plugin::for_platform("cpu");
  if (!saved.empty()) setenv("HHLO_PJRT_PLUGIN_CPU", saved.c_str(), 1);  // the compat label's
  EXPECT_EQ(p.path(), std::filesystem::canonical(std::string(HHLO_THIRD_PARTY_DIR) +
                                                 "/pjrt/cpu/pjrt_c_api_cpu_plugin.so")
                          .string());
}

TEST(Plugin, EnvironmentVariableOverridesThePath) {
  setenv("HHLO_PJRT_PLUGIN_CPU", "/nonexistent/env.so", 1);
  try {
    Plugin::for_platform("cpu");
    ADD_FAILURE() << "no PluginError";
  } catch (const PluginError& e) {  // the path's source named (issue 44)
    EXPECT_EQ(std::string(e.what()),
              "PJRT plugin '/nonexistent/env.so' (from HHLO_PJRT_PLUGIN_CPU) does not exist");
  }
  unsetenv("HHLO_PJRT_PLUGIN_CPU");
  EXPECT_NO_THROW(Plugin::for_platform("cpu"));
}

TEST(Client, ReportsPlatformAndDevices) {
  const Client& c = test::cpu();
  EXPECT_EQ(c.platform_name(), "cpu");
  EXPECT_FALSE(c.platform_version().empty());
  auto devs = c.devices();
  ASSERT_EQ(devs.size(), 4u);
  for (std::size_t i = 0; i < devs.size(); ++i) {
    EXPECT_EQ(devs[i].id(), static_cast<int>(i));
    EXPECT_EQ(devs[i].kind(), "cpu");
    EXPECT_TRUE(devs[i].is_addressable());
    EXPECT_FALSE(devs[i].to_string().empty());
    EXPECT_FALSE(devs[i].debug_string().empty());
  }
  EXPECT_EQ(c.device(2), devs[2]);
  EXPECT_THROW(c.device(99), PjrtError);
}

TEST(Client, CpuDeviceCountOptionIsHonoured) {
  Client c = Client::create("cpu", {{"cpu_device_count", int64_t{2}}});
  EXPECT_EQ(c.devices().size(), 2u);
}

}  // namespace
}  // namespace hhlo
