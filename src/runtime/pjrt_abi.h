// Private to the runtime: our declarations of the PJRT C API, version 0.115 (the API of the
// default CPU plugin, lammps-jax-pjrt-cpu 0.11.2, and of the 0.11.x CUDA plugin).
//
// No registry package ships a pjrt_c_api.h this new (checked: xla-cpu-pjrt 0.0.1 ships the 0.81
// one; jaxlib, jax-cuda12-pjrt 0.12.0.1, lammps-jax-pjrt-cpu and fastatomstruct-xla-cpu ship none;
// pypjrt 0.1.1 ships generated Python layouts of 0.114; Debian has none; see docs/facts.md), so
// these are written here. They declare only what the runtime calls, under the C API's own names
// (the ABI is the contract); every other slot of the PJRT_Api table is an untyped placeholder of
// the same size.
//
// Layout rules the static_asserts pin (x86-64 / aarch64 Linux, LP64):
//  - every args struct starts with `struct_size` and `extension_start`; a plugin checks
//    struct_size against its own *_STRUCT_SIZE, which is offsetof(last field) + sizeof(last
//    field), without tail padding (kSize below). We always pass sizeof, which is >= kSize.
//  - PJRT_Api is struct_size, extension_start, pjrt_api_version, then one function pointer per
//    slot in declaration order; slot i is at 40 + 8 i. 0.115 has 138 slots (1144 bytes).
//  - older plugins (0.81 has 118 slots, 984 bytes) have a shorter table: call a function only
//    after HHLO_PJRT_FN (pjrt.h) checked api->struct_size covers its slot. Args structs grow at
//    the end only, so an older plugin reads the prefix it knows of a newer struct.
// Each size below equals what the 0.115, 0.106 and 0.81 CPU plugins ask for (they say so when
// given a smaller struct): tests/runtime/abi_test.cc checks that on the plugin under test.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hhlo::detail {
/// The PJRT C API version these declarations describe.
inline constexpr int kPjrtApiMajor = 0;
inline constexpr int kPjrtApiMinor = 115;
/// The oldest plugin minor version the runtime drives (the 0.81 CPU plugin, ctest label compat).
inline constexpr int kPjrtOldestPluginMinor = 81;
}  // namespace hhlo::detail

extern "C" {

// ---- Opaque handles ---------------------------------------------------------------------------
struct PJRT_Error;
struct PJRT_Event;
struct PJRT_Client;
struct PJRT_Device;
struct PJRT_Memory;
struct PJRT_DeviceDescription;
struct PJRT_Executable;
struct PJRT_LoadedExecutable;
struct PJRT_Buffer;
struct PJRT_ExecuteContext;
struct PJRT_SerializedExecutable;
struct PJRT_CopyToDeviceStream;

// ---- Enums (values are ABI) -------------------------------------------------------------------
enum PJRT_Error_Code {
  PJRT_Error_Code_OK = 0,
  PJRT_Error_Code_CANCELLED = 1,
  PJRT_Error_Code_UNKNOWN = 2,
  PJRT_Error_Code_INVALID_ARGUMENT = 3,
  PJRT_Error_Code_DEADLINE_EXCEEDED = 4,
  PJRT_Error_Code_NOT_FOUND = 5,
  PJRT_Error_Code_ALREADY_EXISTS = 6,
  PJRT_Error_Code_PERMISSION_DENIED = 7,
  PJRT_Error_Code_RESOURCE_EXHAUSTED = 8,
  PJRT_Error_Code_FAILED_PRECONDITION = 9,
  PJRT_Error_Code_ABORTED = 10,
  PJRT_Error_Code_OUT_OF_RANGE = 11,
  PJRT_Error_Code_UNIMPLEMENTED = 12,
  PJRT_Error_Code_INTERNAL = 13,
  PJRT_Error_Code_UNAVAILABLE = 14,
  PJRT_Error_Code_DATA_LOSS = 15,
  PJRT_Error_Code_UNAUTHENTICATED = 16,
};

/// Element types. The values up to C128 are the ones the runtime maps (pjrt.cc); the later ones
/// are listed so that a plugin's answer can be named in an error.
enum PJRT_Buffer_Type {
  PJRT_Buffer_Type_INVALID = 0,
  PJRT_Buffer_Type_PRED = 1,
  PJRT_Buffer_Type_S8 = 2,
  PJRT_Buffer_Type_S16 = 3,
  PJRT_Buffer_Type_S32 = 4,
  PJRT_Buffer_Type_S64 = 5,
  PJRT_Buffer_Type_U8 = 6,
  PJRT_Buffer_Type_U16 = 7,
  PJRT_Buffer_Type_U32 = 8,
  PJRT_Buffer_Type_U64 = 9,
  PJRT_Buffer_Type_F16 = 10,
  PJRT_Buffer_Type_F32 = 11,
  PJRT_Buffer_Type_F64 = 12,
  PJRT_Buffer_Type_BF16 = 13,
  PJRT_Buffer_Type_C64 = 14,
  PJRT_Buffer_Type_C128 = 15,
  PJRT_Buffer_Type_F8E5M2 = 16,
  PJRT_Buffer_Type_F8E4M3FN = 17,
  PJRT_Buffer_Type_F8E4M3B11FNUZ = 18,
  PJRT_Buffer_Type_F8E5M2FNUZ = 19,
  PJRT_Buffer_Type_F8E4M3FNUZ = 20,
  PJRT_Buffer_Type_S4 = 21,
  PJRT_Buffer_Type_U4 = 22,
  PJRT_Buffer_Type_TOKEN = 23,
  PJRT_Buffer_Type_S2 = 24,
  PJRT_Buffer_Type_U2 = 25,
  PJRT_Buffer_Type_F8E4M3 = 26,
  PJRT_Buffer_Type_F8E3M4 = 27,
  PJRT_Buffer_Type_F8E8M0FNU = 28,
  PJRT_Buffer_Type_F4E2M1FN = 29,
  PJRT_Buffer_Type_S1 = 30,  // 0.94
  PJRT_Buffer_Type_U1 = 31,  // 0.94
  PJRT_Buffer_Type_F6E2M3FN = 32,
  PJRT_Buffer_Type_F6E3M2FN = 33,
};

enum PJRT_HostBufferSemantics {
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall = 0,
  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes = 1,
  PJRT_HostBufferSemantics_kImmutableZeroCopy = 2,
  PJRT_HostBufferSemantics_kMutableZeroCopy = 3,
};

/// Types of the extension chain (PJRT_Api::extension_start). The CPU plugins carry 4, 5, 6, 9
/// and (0.106 on) 19, (0.115) 24.
enum PJRT_Extension_Type {
  PJRT_Extension_Type_Gpu_Custom_Call = 0,
  PJRT_Extension_Type_Profiler = 1,
  PJRT_Extension_Type_Custom_Partitioner = 2,
  PJRT_Extension_Type_Stream = 3,
  PJRT_Extension_Type_Layouts = 4,
  PJRT_Extension_Type_FFI = 5,
  PJRT_Extension_Type_MemoryDescriptions = 6,
  PJRT_Extension_Type_Triton = 7,
  PJRT_Extension_Type_RawBuffer = 8,
  PJRT_Extension_Type_PhaseCompile = 9,
  PJRT_Extension_Type_Example = 10,
  PJRT_Extension_Type_Unknown = 11,
  PJRT_Extension_Type_CrossHostTransfers = 12,
  PJRT_Extension_Type_ExecutableMetadata = 13,
  PJRT_Extension_Type_Callback = 14,
  PJRT_Extension_Type_HostAllocator = 15,
  PJRT_Extension_Type_TpuTopology = 16,
  PJRT_Extension_Type_TpuExecutable = 17,
  PJRT_Extension_Type_Megascale = 18,
  PJRT_Extension_Type_Shardings = 19,
  PJRT_Extension_Type_AbiVersion = 20,
  PJRT_Extension_Type_Collectives = 21,
  PJRT_Extension_Type_MultiSlice = 22,
  PJRT_Extension_Type_HostMemoryAllocator = 23,
  PJRT_Extension_Type_XlaTransform = 24,
};

enum PJRT_NamedValue_Type {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64 = 1,
  PJRT_NamedValue_kInt64List = 2,
  PJRT_NamedValue_kFloat = 3,
  PJRT_NamedValue_kBool = 4,
};

enum PJRT_Buffer_MemoryLayout_Type {
  PJRT_Buffer_MemoryLayout_Type_Tiled = 0,
  PJRT_Buffer_MemoryLayout_Type_Strides = 1,
};

// ---- Common structs ---------------------------------------------------------------------------

/// Head of every extension in a plugin's chain.
struct PJRT_Extension_Base {
  size_t struct_size;
  PJRT_Extension_Type type;
  PJRT_Extension_Base* next;
};

struct PJRT_Api_Version {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int major_version;
  int minor_version;
};

/// A name and a value of one of PJRT_NamedValue_Type (client options, plugin attributes).
struct PJRT_NamedValue {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* name;
  size_t name_size;
  PJRT_NamedValue_Type type;
  union {
    const char* string_value;
    int64_t int64_value;
    const int64_t* int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size;  // elements of a list or string, 1 for a scalar
};

/// A program for PJRT_Client_Compile: `format` "mlir" (text or bytecode) or "hlo".
struct PJRT_Program {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  char* code;
  size_t code_size;
  const char* format;
  size_t format_size;
};

struct PJRT_Buffer_MemoryLayout_Tiled {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* minor_to_major;
  size_t minor_to_major_size;
  const int64_t* tile_dims;
  const size_t* tile_dim_sizes;
  size_t num_tiles;
};

struct PJRT_Buffer_MemoryLayout_Strides {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* byte_strides;
  size_t num_byte_strides;
};

struct PJRT_Buffer_MemoryLayout {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  union {
    PJRT_Buffer_MemoryLayout_Tiled tiled;
    PJRT_Buffer_MemoryLayout_Strides strides;
  };
  PJRT_Buffer_MemoryLayout_Type type;
};

/// Send/recv callbacks of PJRT_ExecuteOptions (host transfers); the runtime passes none.
struct PJRT_SendCallbackInfo;
struct PJRT_RecvCallbackInfo;

/// Options of one PJRT_LoadedExecutable_Execute. 0.81 ended at incarnation_ids (112 bytes);
/// 0.97 added multi_slice_config, later versions the last three fields (144 bytes at 0.114/5).
struct PJRT_ExecuteOptions {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_SendCallbackInfo** send_callbacks;
  PJRT_RecvCallbackInfo** recv_callbacks;
  size_t num_send_ops;
  size_t num_recv_ops;
  int launch_id;
  const int64_t* non_donatable_input_indices;
  size_t num_non_donatable_input_indices;
  PJRT_ExecuteContext* context;
  const char* call_location;
  size_t num_tasks;
  int* task_ids;
  int64_t* incarnation_ids;
  const void* multi_slice_config;
  bool use_major_to_minor_data_layout_for_callbacks;
  const void* hlo_output_callbacks;
  size_t num_hlo_output_callbacks;
};

// ---- Args structs of the functions the runtime calls -----------------------------------------
// Fields marked `out` are written by the plugin. Order within a struct is ABI.

struct PJRT_Error_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Error* error;
};
struct PJRT_Error_Message_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  const char* message;  // out, lives as long as `error`
  size_t message_size;  // out
};
struct PJRT_Error_GetCode_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  PJRT_Error_Code code;  // out
};

struct PJRT_Plugin_Initialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
};
struct PJRT_Plugin_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* attributes;  // out, lives as long as the process
  size_t num_attributes;              // out
};

struct PJRT_Event_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};
struct PJRT_Event_IsReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  bool is_ready;  // out
};
struct PJRT_Event_Await_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};
/// Called once the event is ready; owns `error` (destroy it with PJRT_Error_Destroy).
typedef void (*PJRT_Event_OnReadyCallback)(PJRT_Error* error, void* user_arg);
struct PJRT_Event_OnReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  PJRT_Event_OnReadyCallback callback;
  void* user_arg;
};

/// Made by the plugin for a caller's callback to return an error: copies `message`.
typedef PJRT_Error* (*PJRT_CallbackError)(PJRT_Error_Code code, const char* message,
                                          size_t message_size);
/// Frees a value a get callback returned; the plugin calls it once it has copied the value.
typedef void (*PJRT_KeyValueGetCallback_ValueDeleter)(char* value);
typedef void (*PJRT_KeyValueTryGetCallback_ValueDeleter)(char* value);

/// Key-value store callbacks of PJRT_Client_Create (multi-process clients): blocking get with a
/// timeout, put, and a non-blocking try_get that returns NOT_FOUND when absent (a later addition
/// at the end of PJRT_Client_Create_Args: a plugin older than it reads only get and put).
/// Implemented over hhlo::KeyValueStore in key_value_callbacks.cc.
struct PJRT_KeyValueGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  int timeout_in_ms;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;                                                   // out
  size_t value_size;                                             // out
  PJRT_KeyValueGetCallback_ValueDeleter value_deleter_callback;  // out
};
struct PJRT_KeyValuePutCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  const char* value;  // lives for the call only
  size_t value_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
};
struct PJRT_KeyValueTryGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;                                                      // out
  size_t value_size;                                                // out
  PJRT_KeyValueTryGetCallback_ValueDeleter value_deleter_callback;  // out
};
typedef PJRT_Error* (*PJRT_KeyValueGetCallback)(PJRT_KeyValueGetCallback_Args* args);
typedef PJRT_Error* (*PJRT_KeyValuePutCallback)(PJRT_KeyValuePutCallback_Args* args);
typedef PJRT_Error* (*PJRT_KeyValueTryGetCallback)(PJRT_KeyValueTryGetCallback_Args* args);

struct PJRT_Client_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* create_options;
  size_t num_options;
  PJRT_KeyValueGetCallback kv_get_callback;
  void* kv_get_user_arg;
  PJRT_KeyValuePutCallback kv_put_callback;
  void* kv_put_user_arg;
  PJRT_Client* client;  // out
  PJRT_KeyValueTryGetCallback kv_try_get_callback;
  void* kv_try_get_user_arg;
};
struct PJRT_Client_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
};
struct PJRT_Client_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_name;  // out, owned by the client
  size_t platform_name_size;  // out
};
struct PJRT_Client_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_version;  // out, owned by the client
  size_t platform_version_size;  // out
};
struct PJRT_Client_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* addressable_devices;  // out, owned by the client
  size_t num_addressable_devices;           // out
};
struct PJRT_Client_LookupDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int id;
  PJRT_Device* device;  // out
};
struct PJRT_Client_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const PJRT_Program* program;
  const char* compile_options;  // serialized xla.CompileOptionsProto
  size_t compile_options_size;
  PJRT_LoadedExecutable* executable;  // out
};
struct PJRT_Client_BufferFromHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const void* data;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  const int64_t* byte_strides;  // null: dense row-major
  size_t num_byte_strides;
  PJRT_HostBufferSemantics host_buffer_semantics;
  PJRT_Device* device;
  PJRT_Memory* memory;                      // null: the device's default memory
  PJRT_Buffer_MemoryLayout* device_layout;  // null: the default layout
  PJRT_Event* done_with_host_buffer;        // out
  PJRT_Buffer* buffer;                      // out
};

struct PJRT_DeviceDescription_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int id;  // out
};
struct PJRT_DeviceDescription_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* device_kind;  // out
  size_t device_kind_size;  // out
};
struct PJRT_DeviceDescription_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* debug_string;  // out
  size_t debug_string_size;  // out
};
struct PJRT_DeviceDescription_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* to_string;  // out
  size_t to_string_size;  // out
};
struct PJRT_Device_GetDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_DeviceDescription* device_description;  // out
};
struct PJRT_Device_IsAddressable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  bool is_addressable;  // out
};
struct PJRT_Device_LocalHardwareId_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int local_hardware_id;  // out
};

struct PJRT_Executable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
};
struct PJRT_Executable_NumOutputs_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;  // out
};
struct PJRT_Executable_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Executable* executable;
  const char* serialized_bytes;                      // out, valid until the deleter is called
  size_t serialized_bytes_size;                      // out
  PJRT_SerializedExecutable* serialized_executable;  // out
  void (*serialized_executable_deleter)(PJRT_SerializedExecutable* exec);  // out
};
struct PJRT_Executable_OutputElementTypes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Buffer_Type* output_types;  // out
  size_t num_output_types;         // out
};
struct PJRT_Executable_OutputDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;       // out
  const int64_t* dims;      // out, all outputs' dimensions concatenated
  const size_t* dim_sizes;  // out, rank of each output
};
/// The compiled program; call once with program->code null for program->code_size, then with a
/// buffer that large. The CPU plugins answer format "hlo_with_config".
struct PJRT_Executable_OptimizedProgram_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Program* program;  // in: struct_size; out: format, code_size, code
};
struct PJRT_Executable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* executable_fingerprint;  // out
  size_t executable_fingerprint_size;  // out
};
/// 0.114 appended `load_options`; the 0.115 CPU plugin asks only up to
/// overridden_serialized_compile_options_size (64 bytes), and so do we.
struct PJRT_Executable_DeserializeAndLoad_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* serialized_executable;
  size_t serialized_executable_size;
  PJRT_LoadedExecutable* loaded_executable;  // out
  const char* overridden_serialized_compile_options;
  size_t overridden_serialized_compile_options_size;
};

struct PJRT_LoadedExecutable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
};
struct PJRT_LoadedExecutable_GetExecutable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* loaded_executable;
  PJRT_Executable* executable;  // out, destroy with PJRT_Executable_Destroy
};
struct PJRT_LoadedExecutable_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_Device* const* addressable_devices;  // out
  size_t num_addressable_devices;           // out
};
struct PJRT_LoadedExecutable_Fingerprint_Args {  // deprecated since 0.35: the 0.115 plugin refuses
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* executable_fingerprint;  // out
  size_t executable_fingerprint_size;  // out
};
struct PJRT_LoadedExecutable_Execute_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_ExecuteOptions* options;
  PJRT_Buffer* const* const* argument_lists;  // [num_devices][num_args]
  size_t num_devices;
  size_t num_args;
  PJRT_Buffer** const* output_lists;    // [num_devices][num_outputs], slots allocated by the caller
  PJRT_Event** device_complete_events;  // [num_devices] out, or null
  PJRT_Device* execute_device;          // portable executables only
};

struct PJRT_Buffer_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
struct PJRT_Buffer_ElementType_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_Type type;  // out
};
struct PJRT_Buffer_Dimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* dims;  // out, owned by the buffer
  size_t num_dims;      // out
};
struct PJRT_Buffer_OnDeviceSizeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  size_t on_device_size_in_bytes;  // out
};
struct PJRT_Buffer_Device_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* device;  // out
};
struct PJRT_Buffer_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
struct PJRT_Buffer_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_deleted;  // out
};
struct PJRT_Buffer_CopyToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* dst_device;
  PJRT_Buffer* dst_buffer;  // out
};
struct PJRT_Buffer_ToHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* src;
  PJRT_Buffer_MemoryLayout* host_layout;  // null: dense row-major
  void* dst;                              // null: only dst_size is written
  size_t dst_size;                        // in-out
  PJRT_Event* event;                      // out
};
struct PJRT_Buffer_ReadyEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Event* event;  // out
};
struct PJRT_Buffer_GetMemoryLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_MemoryLayout layout;  // out, owned by the buffer
};
struct PJRT_Buffer_IsOnCpu_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_on_cpu;  // out
};
struct PJRT_Buffer_UnsafePointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  uintptr_t buffer_pointer;  // out
};
struct PJRT_Buffer_IncreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
struct PJRT_Buffer_DecreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};

struct PJRT_ExecuteContext_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;  // out
};
struct PJRT_ExecuteContext_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;
};

/// A slot of PJRT_Api that the runtime never calls (same size as a function pointer).
typedef void (*PJRT_Unused_Fn)();

/// The plugin's function table (GetPjrtApi). Slot names and order are those of 0.115.
struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;
  void (*PJRT_Error_Destroy)(PJRT_Error_Destroy_Args* args);
  void (*PJRT_Error_Message)(PJRT_Error_Message_Args* args);
  PJRT_Error* (*PJRT_Error_GetCode)(PJRT_Error_GetCode_Args* args);
  PJRT_Error* (*PJRT_Plugin_Initialize)(PJRT_Plugin_Initialize_Args* args);
  PJRT_Error* (*PJRT_Plugin_Attributes)(PJRT_Plugin_Attributes_Args* args);
  PJRT_Error* (*PJRT_Event_Destroy)(PJRT_Event_Destroy_Args* args);
  PJRT_Error* (*PJRT_Event_IsReady)(PJRT_Event_IsReady_Args* args);
  PJRT_Unused_Fn PJRT_Event_Error;
  PJRT_Error* (*PJRT_Event_Await)(PJRT_Event_Await_Args* args);
  PJRT_Error* (*PJRT_Event_OnReady)(PJRT_Event_OnReady_Args* args);
  PJRT_Error* (*PJRT_Client_Create)(PJRT_Client_Create_Args* args);
  PJRT_Error* (*PJRT_Client_Destroy)(PJRT_Client_Destroy_Args* args);
  PJRT_Error* (*PJRT_Client_PlatformName)(PJRT_Client_PlatformName_Args* args);
  PJRT_Unused_Fn PJRT_Client_ProcessIndex;
  PJRT_Error* (*PJRT_Client_PlatformVersion)(PJRT_Client_PlatformVersion_Args* args);
  PJRT_Unused_Fn PJRT_Client_Devices;
  PJRT_Error* (*PJRT_Client_AddressableDevices)(PJRT_Client_AddressableDevices_Args* args);
  PJRT_Error* (*PJRT_Client_LookupDevice)(PJRT_Client_LookupDevice_Args* args);
  PJRT_Unused_Fn PJRT_Client_LookupAddressableDevice;
  PJRT_Unused_Fn PJRT_Client_AddressableMemories;
  PJRT_Error* (*PJRT_Client_Compile)(PJRT_Client_Compile_Args* args);
  PJRT_Unused_Fn PJRT_Client_DefaultDeviceAssignment;
  PJRT_Error* (*PJRT_Client_BufferFromHostBuffer)(PJRT_Client_BufferFromHostBuffer_Args* args);
  PJRT_Error* (*PJRT_DeviceDescription_Id)(PJRT_DeviceDescription_Id_Args* args);
  PJRT_Unused_Fn PJRT_DeviceDescription_ProcessIndex;
  PJRT_Unused_Fn PJRT_DeviceDescription_Attributes;
  PJRT_Error* (*PJRT_DeviceDescription_Kind)(PJRT_DeviceDescription_Kind_Args* args);
  PJRT_Error* (*PJRT_DeviceDescription_DebugString)(PJRT_DeviceDescription_DebugString_Args* args);
  PJRT_Error* (*PJRT_DeviceDescription_ToString)(PJRT_DeviceDescription_ToString_Args* args);
  PJRT_Error* (*PJRT_Device_GetDescription)(PJRT_Device_GetDescription_Args* args);
  PJRT_Error* (*PJRT_Device_IsAddressable)(PJRT_Device_IsAddressable_Args* args);
  PJRT_Error* (*PJRT_Device_LocalHardwareId)(PJRT_Device_LocalHardwareId_Args* args);
  PJRT_Unused_Fn PJRT_Device_AddressableMemories;
  PJRT_Unused_Fn PJRT_Device_DefaultMemory;
  PJRT_Unused_Fn PJRT_Device_MemoryStats;
  PJRT_Unused_Fn PJRT_Memory_Id;
  PJRT_Unused_Fn PJRT_Memory_Kind;
  PJRT_Unused_Fn PJRT_Memory_DebugString;
  PJRT_Unused_Fn PJRT_Memory_ToString;
  PJRT_Unused_Fn PJRT_Memory_AddressableByDevices;
  PJRT_Error* (*PJRT_Executable_Destroy)(PJRT_Executable_Destroy_Args* args);
  PJRT_Unused_Fn PJRT_Executable_Name;
  PJRT_Unused_Fn PJRT_Executable_NumReplicas;
  PJRT_Unused_Fn PJRT_Executable_NumPartitions;
  PJRT_Error* (*PJRT_Executable_NumOutputs)(PJRT_Executable_NumOutputs_Args* args);
  PJRT_Unused_Fn PJRT_Executable_SizeOfGeneratedCodeInBytes;
  PJRT_Unused_Fn PJRT_Executable_GetCostAnalysis;
  PJRT_Unused_Fn PJRT_Executable_OutputMemoryKinds;
  PJRT_Error* (*PJRT_Executable_OptimizedProgram)(PJRT_Executable_OptimizedProgram_Args* args);
  PJRT_Error* (*PJRT_Executable_Serialize)(PJRT_Executable_Serialize_Args* args);
  PJRT_Error* (*PJRT_LoadedExecutable_Destroy)(PJRT_LoadedExecutable_Destroy_Args* args);
  PJRT_Error* (*PJRT_LoadedExecutable_GetExecutable)(
      PJRT_LoadedExecutable_GetExecutable_Args* args);
  PJRT_Error* (*PJRT_LoadedExecutable_AddressableDevices)(
      PJRT_LoadedExecutable_AddressableDevices_Args* args);
  PJRT_Unused_Fn PJRT_LoadedExecutable_Delete;
  PJRT_Unused_Fn PJRT_LoadedExecutable_IsDeleted;
  PJRT_Error* (*PJRT_LoadedExecutable_Execute)(PJRT_LoadedExecutable_Execute_Args* args);
  PJRT_Error* (*PJRT_Executable_DeserializeAndLoad)(PJRT_Executable_DeserializeAndLoad_Args* args);
  PJRT_Error* (*PJRT_LoadedExecutable_Fingerprint)(PJRT_LoadedExecutable_Fingerprint_Args* args);
  PJRT_Error* (*PJRT_Buffer_Destroy)(PJRT_Buffer_Destroy_Args* args);
  PJRT_Error* (*PJRT_Buffer_ElementType)(PJRT_Buffer_ElementType_Args* args);
  PJRT_Error* (*PJRT_Buffer_Dimensions)(PJRT_Buffer_Dimensions_Args* args);
  PJRT_Unused_Fn PJRT_Buffer_UnpaddedDimensions;
  PJRT_Unused_Fn PJRT_Buffer_DynamicDimensionIndices;
  PJRT_Error* (*PJRT_Buffer_GetMemoryLayout)(PJRT_Buffer_GetMemoryLayout_Args* args);
  PJRT_Error* (*PJRT_Buffer_OnDeviceSizeInBytes)(PJRT_Buffer_OnDeviceSizeInBytes_Args* args);
  PJRT_Error* (*PJRT_Buffer_Device)(PJRT_Buffer_Device_Args* args);
  PJRT_Unused_Fn PJRT_Buffer_Memory;
  PJRT_Error* (*PJRT_Buffer_Delete)(PJRT_Buffer_Delete_Args* args);
  PJRT_Error* (*PJRT_Buffer_IsDeleted)(PJRT_Buffer_IsDeleted_Args* args);
  PJRT_Error* (*PJRT_Buffer_CopyToDevice)(PJRT_Buffer_CopyToDevice_Args* args);
  PJRT_Error* (*PJRT_Buffer_ToHostBuffer)(PJRT_Buffer_ToHostBuffer_Args* args);
  PJRT_Error* (*PJRT_Buffer_IsOnCpu)(PJRT_Buffer_IsOnCpu_Args* args);
  PJRT_Error* (*PJRT_Buffer_ReadyEvent)(PJRT_Buffer_ReadyEvent_Args* args);
  PJRT_Error* (*PJRT_Buffer_UnsafePointer)(PJRT_Buffer_UnsafePointer_Args* args);
  PJRT_Error* (*PJRT_Buffer_IncreaseExternalReferenceCount)(
      PJRT_Buffer_IncreaseExternalReferenceCount_Args* args);
  PJRT_Error* (*PJRT_Buffer_DecreaseExternalReferenceCount)(
      PJRT_Buffer_DecreaseExternalReferenceCount_Args* args);
  PJRT_Unused_Fn PJRT_Buffer_OpaqueDeviceMemoryDataPointer;
  PJRT_Unused_Fn PJRT_CopyToDeviceStream_Destroy;
  PJRT_Unused_Fn PJRT_CopyToDeviceStream_AddChunk;
  PJRT_Unused_Fn PJRT_CopyToDeviceStream_TotalBytes;
  PJRT_Unused_Fn PJRT_CopyToDeviceStream_GranuleSize;
  PJRT_Unused_Fn PJRT_CopyToDeviceStream_CurrentBytes;
  PJRT_Unused_Fn PJRT_TopologyDescription_Create;
  PJRT_Unused_Fn PJRT_TopologyDescription_Destroy;
  PJRT_Unused_Fn PJRT_TopologyDescription_PlatformName;
  PJRT_Unused_Fn PJRT_TopologyDescription_PlatformVersion;
  PJRT_Unused_Fn PJRT_TopologyDescription_GetDeviceDescriptions;
  PJRT_Unused_Fn PJRT_TopologyDescription_Serialize;
  PJRT_Unused_Fn PJRT_TopologyDescription_Attributes;
  PJRT_Unused_Fn PJRT_Compile;
  PJRT_Error* (*PJRT_Executable_OutputElementTypes)(PJRT_Executable_OutputElementTypes_Args* args);
  PJRT_Error* (*PJRT_Executable_OutputDimensions)(PJRT_Executable_OutputDimensions_Args* args);
  PJRT_Unused_Fn PJRT_Buffer_CopyToMemory;
  PJRT_Unused_Fn PJRT_Client_CreateViewOfDeviceBuffer;
  PJRT_Error* (*PJRT_Executable_Fingerprint)(PJRT_Executable_Fingerprint_Args* args);
  PJRT_Unused_Fn PJRT_Client_TopologyDescription;
  PJRT_Unused_Fn PJRT_Executable_GetCompiledMemoryStats;
  PJRT_Unused_Fn PJRT_Memory_Kind_Id;
  PJRT_Error* (*PJRT_ExecuteContext_Create)(PJRT_ExecuteContext_Create_Args* args);
  PJRT_Error* (*PJRT_ExecuteContext_Destroy)(PJRT_ExecuteContext_Destroy_Args* args);
  PJRT_Unused_Fn PJRT_Buffer_CopyRawToHost;
  PJRT_Unused_Fn PJRT_AsyncHostToDeviceTransferManager_Destroy;
  PJRT_Unused_Fn PJRT_AsyncHostToDeviceTransferManager_TransferData;
  PJRT_Unused_Fn PJRT_Client_CreateBuffersForAsyncHostToDevice;
  PJRT_Unused_Fn PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer;
  PJRT_Unused_Fn PJRT_AsyncHostToDeviceTransferManager_Device;
  PJRT_Unused_Fn PJRT_AsyncHostToDeviceTransferManager_BufferCount;
  PJRT_Unused_Fn PJRT_AsyncHostToDeviceTransferManager_BufferSize;
  PJRT_Unused_Fn PJRT_AsyncHostToDeviceTransferManager_SetBufferError;
  PJRT_Unused_Fn PJRT_AsyncHostToDeviceTransferManager_AddMetadata;
  PJRT_Unused_Fn PJRT_Client_DmaMap;
  PJRT_Unused_Fn PJRT_Client_DmaUnmap;
  PJRT_Unused_Fn PJRT_Client_CreateUninitializedBuffer;
  PJRT_Unused_Fn PJRT_Client_UpdateGlobalProcessInfo;
  PJRT_Unused_Fn PJRT_TopologyDescription_Deserialize;
  PJRT_Unused_Fn PJRT_Client_CreateAliasBuffer;
  PJRT_Unused_Fn PJRT_Client_FulfillAliasBuffer;
  PJRT_Unused_Fn PJRT_LoadedExecutable_GetDeviceAssignment;
  PJRT_Unused_Fn PJRT_Client_CreateErrorBuffer;
  PJRT_Unused_Fn PJRT_AsyncHostToDeviceTransferManager_TransferLiteral;
  PJRT_Unused_Fn PJRT_Buffer_CopyRawToHostFuture;
  PJRT_Unused_Fn PJRT_Device_PoisonExecution;
  PJRT_Unused_Fn PJRT_Device_CreateAsyncTrackingEvent;
  PJRT_Unused_Fn PJRT_AsyncTrackingEvent_Destroy;
  PJRT_Unused_Fn PJRT_Executable_GetCompileOptions;
  PJRT_Unused_Fn PJRT_Buffer_DonateWithControlDependency;
  PJRT_Unused_Fn PJRT_Event_Create;
  PJRT_Unused_Fn PJRT_Event_Set;
  PJRT_Unused_Fn PJRT_Device_GetAttributes;
  PJRT_Unused_Fn PJRT_Client_Load;
  PJRT_Unused_Fn PJRT_LoadedExecutable_AddressableDeviceLogicalIds;
  PJRT_Unused_Fn PJRT_Buffer_Bitcast;
  PJRT_Unused_Fn PJRT_Error_ForEachPayload;
  PJRT_Unused_Fn PJRT_TopologyDescription_Fingerprint;
  PJRT_Unused_Fn PJRT_Executable_ParameterMemoryKinds;
  PJRT_Unused_Fn PJRT_Device_ClearMemoryStats;
  PJRT_Unused_Fn PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace;
  PJRT_Unused_Fn PJRT_TopologyDescription_GetMemorySpaceKindIds;
};

}  // extern "C"

namespace hhlo::detail {

/// A plugin's *_STRUCT_SIZE of args struct T: the offset of `last` plus its size.
#define HHLO_PJRT_SIZE(T, last) (offsetof(T, last) + sizeof(T::last))

// The sizes the plugins check (equal on the 0.81, 0.106 and 0.115 CPU plugins).
static_assert(sizeof(PJRT_Extension_Base) == 24 && offsetof(PJRT_Extension_Base, next) == 16);
static_assert(sizeof(PJRT_Api_Version) == 24);
static_assert(sizeof(PJRT_NamedValue) == 56 && offsetof(PJRT_NamedValue, int64_value) == 40);
static_assert(sizeof(PJRT_Program) == 48);
static_assert(sizeof(PJRT_Buffer_MemoryLayout_Tiled) == 56);
static_assert(offsetof(PJRT_Buffer_MemoryLayout, type) == 72 &&
              sizeof(PJRT_Buffer_MemoryLayout) == 80);
static_assert(offsetof(PJRT_ExecuteOptions, launch_id) == 48 &&
              offsetof(PJRT_ExecuteOptions, context) == 72 &&
              offsetof(PJRT_ExecuteOptions, incarnation_ids) == 104 &&
              offsetof(PJRT_ExecuteOptions, multi_slice_config) == 112 &&
              offsetof(PJRT_ExecuteOptions, hlo_output_callbacks) == 128 &&
              sizeof(PJRT_ExecuteOptions) == 144);
static_assert(HHLO_PJRT_SIZE(PJRT_Error_GetCode_Args, code) == 28);
static_assert(HHLO_PJRT_SIZE(PJRT_Error_Message_Args, message_size) == 40);
static_assert(HHLO_PJRT_SIZE(PJRT_Plugin_Initialize_Args, extension_start) == 16);
static_assert(HHLO_PJRT_SIZE(PJRT_Plugin_Attributes_Args, num_attributes) == 32);
static_assert(HHLO_PJRT_SIZE(PJRT_Event_IsReady_Args, is_ready) == 25);
static_assert(HHLO_PJRT_SIZE(PJRT_Event_Await_Args, event) == 24);
static_assert(HHLO_PJRT_SIZE(PJRT_Event_OnReady_Args, user_arg) == 40);
static_assert(offsetof(PJRT_KeyValueGetCallback_Args, callback_error) == 40 &&
              HHLO_PJRT_SIZE(PJRT_KeyValueGetCallback_Args, value_deleter_callback) == 80);
static_assert(HHLO_PJRT_SIZE(PJRT_KeyValuePutCallback_Args, user_arg) == 64);
static_assert(HHLO_PJRT_SIZE(PJRT_KeyValueTryGetCallback_Args, value_deleter_callback) == 72);
static_assert(HHLO_PJRT_SIZE(PJRT_Client_Create_Args, client) == 72 &&
              HHLO_PJRT_SIZE(PJRT_Client_Create_Args, kv_try_get_user_arg) == 88);
static_assert(HHLO_PJRT_SIZE(PJRT_Client_PlatformName_Args, platform_name_size) == 40);
static_assert(HHLO_PJRT_SIZE(PJRT_Client_AddressableDevices_Args, num_addressable_devices) == 40);
static_assert(HHLO_PJRT_SIZE(PJRT_Client_LookupDevice_Args, device) == 40);
static_assert(HHLO_PJRT_SIZE(PJRT_Client_Compile_Args, executable) == 56);
static_assert(offsetof(PJRT_Client_BufferFromHostBuffer_Args, host_buffer_semantics) == 72 &&
              HHLO_PJRT_SIZE(PJRT_Client_BufferFromHostBuffer_Args, buffer) == 120);
static_assert(HHLO_PJRT_SIZE(PJRT_DeviceDescription_Id_Args, id) == 28);
static_assert(HHLO_PJRT_SIZE(PJRT_DeviceDescription_Kind_Args, device_kind_size) == 40);
static_assert(HHLO_PJRT_SIZE(PJRT_Device_IsAddressable_Args, is_addressable) == 25);
static_assert(HHLO_PJRT_SIZE(PJRT_Device_LocalHardwareId_Args, local_hardware_id) == 28);
static_assert(HHLO_PJRT_SIZE(PJRT_Executable_Serialize_Args, serialized_executable_deleter) == 56);
static_assert(HHLO_PJRT_SIZE(PJRT_Executable_OptimizedProgram_Args, program) == 32);
static_assert(HHLO_PJRT_SIZE(PJRT_Executable_OutputDimensions_Args, dim_sizes) == 48);
static_assert(HHLO_PJRT_SIZE(PJRT_Executable_DeserializeAndLoad_Args,
                             overridden_serialized_compile_options_size) == 64);
static_assert(HHLO_PJRT_SIZE(PJRT_LoadedExecutable_Execute_Args, execute_device) == 80);
static_assert(HHLO_PJRT_SIZE(PJRT_Buffer_ElementType_Args, type) == 28);
static_assert(HHLO_PJRT_SIZE(PJRT_Buffer_IsDeleted_Args, is_deleted) == 25);
static_assert(HHLO_PJRT_SIZE(PJRT_Buffer_ToHostBuffer_Args, event) == 56);
static_assert(HHLO_PJRT_SIZE(PJRT_Buffer_CopyToDevice_Args, dst_buffer) == 40);
static_assert(HHLO_PJRT_SIZE(PJRT_Buffer_GetMemoryLayout_Args, layout) == 104);
static_assert(HHLO_PJRT_SIZE(PJRT_Buffer_IsOnCpu_Args, is_on_cpu) == 25);
static_assert(HHLO_PJRT_SIZE(PJRT_Buffer_UnsafePointer_Args, buffer_pointer) == 32);
static_assert(HHLO_PJRT_SIZE(PJRT_Buffer_IncreaseExternalReferenceCount_Args, buffer) == 24);

// The table: slot i at 40 + 8 i, 138 slots in 0.115; 0.81 ends after slot 117 (984 bytes).
constexpr std::size_t pjrt_slot(std::size_t offset) { return (offset - 40) / sizeof(void*); }
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Error_Destroy)) == 0);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Plugin_Attributes)) == 4);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Client_Compile)) == 20);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Client_BufferFromHostBuffer)) == 22);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_LoadedExecutable_Execute)) == 55);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Buffer_ToHostBuffer)) == 70);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Executable_OutputDimensions)) == 91);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_ExecuteContext_Create)) == 98);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_LoadedExecutable_GetDeviceAssignment)) == 117);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_TopologyDescription_GetMemorySpaceKindIds)) == 137);
static_assert(sizeof(PJRT_Api) == 1144);
// Destructors and the error functions are called without HHLO_PJRT_FN's table check: they must be
// in the table of the oldest plugin we accept (0.81: 118 slots).
inline constexpr std::size_t kOldestPluginSlots = 118;
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Error_GetCode)) < kOldestPluginSlots);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Client_Destroy)) < kOldestPluginSlots);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Event_Await)) < kOldestPluginSlots);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Executable_Destroy)) < kOldestPluginSlots);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_LoadedExecutable_Destroy)) < kOldestPluginSlots);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_Buffer_Destroy)) < kOldestPluginSlots);
static_assert(pjrt_slot(offsetof(PJRT_Api, PJRT_ExecuteContext_Destroy)) < kOldestPluginSlots);

}  // namespace hhlo::detail
