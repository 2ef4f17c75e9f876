// Our PJRT C API declarations (src/runtime/pjrt_abi.h) against the plugin under test: for every
// function the runtime calls, the plugin asks for an args struct no larger than ours. A plugin
// checks `struct_size` first and names the size it expects ("Unexpected PJRT_X_Args size:
// expected N, got 8"), so calling with struct_size 8 makes it tell us without doing anything.
// Runs on the default plugin (0.115) and, under the compat label, on the 0.81 one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "hhlo/runtime/client.h"
#include "runtime/pjrt.h"

namespace hhlo {
namespace {

struct Probe {
  const char* function;
  std::size_t slot_offset;  // offsetof(PJRT_Api, function)
  std::size_t ours;         // sizeof our args struct
};
#define HHLO_PROBE(fn) \
  Probe { #fn, offsetof(PJRT_Api, fn), sizeof(fn##_Args) }

// Every PJRT_Api function the runtime calls through its args struct, except the error
// functions (they take no size-checked args) and PJRT_LoadedExecutable_Fingerprint (deprecated:
// the 0.115 plugin refuses it whatever the size, and the runtime falls back to the next one).
const std::vector<Probe> kProbes = {
    HHLO_PROBE(PJRT_Error_GetCode),
    HHLO_PROBE(PJRT_Plugin_Initialize),
    HHLO_PROBE(PJRT_Plugin_Attributes),
    HHLO_PROBE(PJRT_Event_Destroy),
    HHLO_PROBE(PJRT_Event_IsReady),
    HHLO_PROBE(PJRT_Event_Await),
    HHLO_PROBE(PJRT_Event_OnReady),
    HHLO_PROBE(PJRT_Client_Create),
    HHLO_PROBE(PJRT_Client_Destroy),
    HHLO_PROBE(PJRT_Client_PlatformName),
    HHLO_PROBE(PJRT_Client_PlatformVersion),
    HHLO_PROBE(PJRT_Client_AddressableDevices),
    HHLO_PROBE(PJRT_Client_LookupDevice),
    HHLO_PROBE(PJRT_Client_Compile),
    HHLO_PROBE(PJRT_Client_BufferFromHostBuffer),
    HHLO_PROBE(PJRT_DeviceDescription_Id),
    HHLO_PROBE(PJRT_DeviceDescription_Kind),
    HHLO_PROBE(PJRT_DeviceDescription_DebugString),
    HHLO_PROBE(PJRT_DeviceDescription_ToString),
    HHLO_PROBE(PJRT_Device_GetDescription),
    HHLO_PROBE(PJRT_Device_IsAddressable),
    HHLO_PROBE(PJRT_Device_LocalHardwareId),
    HHLO_PROBE(PJRT_Executable_Destroy),
    HHLO_PROBE(PJRT_Executable_NumOutputs),
    HHLO_PROBE(PJRT_Executable_Serialize),
    HHLO_PROBE(PJRT_Executable_OutputElementTypes),
    HHLO_PROBE(PJRT_Executable_OutputDimensions),
    HHLO_PROBE(PJRT_Executable_Fingerprint),
    HHLO_PROBE(PJRT_Executable_OptimizedProgram),
    HHLO_PROBE(PJRT_Executable_DeserializeAndLoad),
    HHLO_PROBE(PJRT_LoadedExecutable_Destroy),
    HHLO_PROBE(PJRT_LoadedExecutable_GetExecutable),
    HHLO_PROBE(PJRT_LoadedExecutable_AddressableDevices),
    HHLO_PROBE(PJRT_LoadedExecutable_Execute),
    HHLO_PROBE(PJRT_Buffer_Destroy),
    HHLO_PROBE(PJRT_Buffer_ElementType),
    HHLO_PROBE(PJRT_Buffer_Dimensions),
    HHLO_PROBE(PJRT_Buffer_OnDeviceSizeInBytes),
    HHLO_PROBE(PJRT_Buffer_Device),
    HHLO_PROBE(PJRT_Buffer_Delete),
    HHLO_PROBE(PJRT_Buffer_IsDeleted),
    HHLO_PROBE(PJRT_Buffer_CopyToDevice),
    HHLO_PROBE(PJRT_Buffer_ToHostBuffer),
    HHLO_PROBE(PJRT_Buffer_ReadyEvent),
    HHLO_PROBE(PJRT_Buffer_GetMemoryLayout),
    HHLO_PROBE(PJRT_Buffer_IsOnCpu),
    HHLO_PROBE(PJRT_Buffer_UnsafePointer),
    HHLO_PROBE(PJRT_Buffer_IncreaseExternalReferenceCount),
    HHLO_PROBE(PJRT_Buffer_DecreaseExternalReferenceCount),
    HHLO_PROBE(PJRT_ExecuteContext_Create),
    HHLO_PROBE(PJRT_ExecuteContext_Destroy),
};

const Plugin& plugin() {
  static const Plugin p = Plugin::for_platform("cpu");
  return p;
}

TEST(PjrtAbi, EveryArgsStructIsAtLeastThePluginsSize) {
  const PJRT_Api* api = plugin().state().api;
  const std::regex expected(R"(expected (\d+), got 8)");
  int probed = 0;
  for (const Probe& p : kProbes) {
    if (p.slot_offset + sizeof(void*) > api->struct_size) continue;  // older plugin: not called
    auto fn = *reinterpret_cast<PJRT_Error* (*const*)(void*)>(reinterpret_cast<const char*>(api) +
                                                              p.slot_offset);
    ASSERT_NE(fn, nullptr) << p.function;
    alignas(16) unsigned char zeros[256] = {};
    std::size_t tiny = 8;
    std::memcpy(zeros, &tiny, sizeof(tiny));
    PJRT_Error* error = fn(zeros);
    ASSERT_NE(error, nullptr) << p.function << " accepted an 8-byte args struct";
    std::string message = detail::take_error(api, error).message;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(message, m, expected)) << p.function << ": " << message;
    EXPECT_LE(std::stoul(m[1].str()), p.ours)
        << p.function << ": the plugin (PJRT C API " << plugin().api_minor()
        << ") expects a larger args struct than our declarations: " << message;
    ++probed;
  }
  EXPECT_EQ(probed, static_cast<int>(kProbes.size()));  // 0.81 already has every one of them
}

// The plugin's table covers every slot the runtime names up to its own version, and our table
// is the 0.115 one: a plugin newer than 0.115 has at least our 138 slots.
TEST(PjrtAbi, TableSizeMatchesThePluginVersion) {
  const PJRT_Api* api = plugin().state().api;
  int minor = plugin().api_minor();
  EXPECT_EQ(Plugin::header_api_minor(), 115);
  if (minor == 115) {
    EXPECT_EQ(api->struct_size, sizeof(PJRT_Api));
  } else if (minor == 81) {
    EXPECT_EQ(api->struct_size, 984u);  // 118 slots
  } else if (minor > 115) {
    EXPECT_GE(api->struct_size, sizeof(PJRT_Api));
  }
}

}  // namespace
}  // namespace hhlo
