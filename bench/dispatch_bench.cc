// Per-call dispatch latency of a tiny program (2x2 f32 add, inputs already on the device), two
// ways in one run: our LoadedExecutable::execute (dispatch + await + output buffers released) and
// the same sequence written directly against the PJRT C API, without our wrappers (the floor).
// Then the same call with its result copied to the host each time: ours (Buffer::to_host) and
// the plugin's PJRT_Buffer_ToHostBuffer.
// The third way, jax.jit of the same function, is bench/dispatch_jax.py; bench/run.sh runs all
// three and prints the ratios (docs/benchmarks.md, "Dispatch latency").
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "runtime/pjrt_abi.h"  // the runtime's own PJRT C API declarations

namespace {

constexpr const char* kAdd = R"(module @add {
  func.func public @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = stablehlo.add %a, %b : tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}
)";

const std::vector<float> kA{1, 2, 3, 4}, kB{10, 20, 30, 40};

// ---- ours --------------------------------------------------------------------------------------

/// A one-device client, the add compiled and its two inputs on the device, through our API.
struct Ours {
  hhlo::Client client = hhlo::Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  hhlo::LoadedExecutable exe = compile(client, kAdd);
  hhlo::Buffer a = client.buffer_from_host(hhlo::Array::from<float>({2, 2}, kA));
  hhlo::Buffer b = client.buffer_from_host(hhlo::Array::from<float>({2, 2}, kB));
  std::vector<const hhlo::Buffer*> args{&a, &b};
};

void BM_Dispatch_Ours(benchmark::State& state) {
  Ours ours;
  if (ours.exe.execute(ours.args)[0].to_host().values<float>()[3] != 44.0f)
    throw std::runtime_error("ours: wrong result");
  for (auto _ : state) {
    std::vector<hhlo::Buffer> out = ours.exe.execute(ours.args);
    benchmark::DoNotOptimize(out.data());
  }
}

// ---- raw PJRT C API ----------------------------------------------------------------------------

template <typename T>
T make() {
  T a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  return a;
}

void check(const PJRT_Api* api, PJRT_Error* e, const char* what) {
  if (!e) return;
  auto m = make<PJRT_Error_Message_Args>();
  m.error = e;
  api->PJRT_Error_Message(&m);
  std::string msg(m.message, m.message_size);
  auto d = make<PJRT_Error_Destroy_Args>();
  d.error = e;
  api->PJRT_Error_Destroy(&d);
  throw std::runtime_error(std::string(what) + ": " + msg);
}

/// A client, executable and two input buffers made with the C API alone, on the plugin that
/// hhlo::Plugin::for_platform("cpu") finds (loaded once per process; dlopen returns it again).
struct Raw {
  const PJRT_Api* api = nullptr;
  PJRT_Client* client = nullptr;
  PJRT_LoadedExecutable* exe = nullptr;
  PJRT_Buffer* in[2] = {nullptr, nullptr};

  Raw() {
    std::string path = hhlo::Plugin::for_platform("cpu").path();
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw std::runtime_error(dlerror());
    auto get = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(lib, "GetPjrtApi"));
    api = get();
    PJRT_NamedValue opt;
    std::memset(&opt, 0, sizeof opt);
    opt.struct_size = sizeof opt;
    opt.name = "cpu_device_count";
    opt.name_size = std::strlen(opt.name);
    opt.type = PJRT_NamedValue_kInt64;
    opt.int64_value = 1;
    opt.value_size = 1;
    auto c = make<PJRT_Client_Create_Args>();
    c.create_options = &opt;
    c.num_options = 1;
    check(api, api->PJRT_Client_Create(&c), "PJRT_Client_Create");
    client = c.client;

    std::string options = hhlo::serialize_compile_options({});
    auto program = make<PJRT_Program>();
    program.code = const_cast<char*>(kAdd);
    program.code_size = std::strlen(kAdd);
    program.format = "mlir";
    program.format_size = 4;
    auto k = make<PJRT_Client_Compile_Args>();
    k.client = client;
    k.program = &program;
    k.compile_options = options.data();
    k.compile_options_size = options.size();
    check(api, api->PJRT_Client_Compile(&k), "PJRT_Client_Compile");
    exe = k.executable;

    auto dev = make<PJRT_Client_AddressableDevices_Args>();
    dev.client = client;
    check(api, api->PJRT_Client_AddressableDevices(&dev), "PJRT_Client_AddressableDevices");
    const std::vector<float>* host[2] = {&kA, &kB};
    int64_t dims[2] = {2, 2};
    for (int i = 0; i < 2; ++i) {
      auto h = make<PJRT_Client_BufferFromHostBuffer_Args>();
      h.client = client;
      h.data = host[i]->data();
      h.type = PJRT_Buffer_Type_F32;
      h.dims = dims;
      h.num_dims = 2;
      h.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
      h.device = dev.addressable_devices[0];
      check(api, api->PJRT_Client_BufferFromHostBuffer(&h), "PJRT_Client_BufferFromHostBuffer");
      await_and_destroy(h.done_with_host_buffer);
      in[i] = h.buffer;
    }
  }

  void await_and_destroy(PJRT_Event* event) const {
    auto w = make<PJRT_Event_Await_Args>();
    w.event = event;
    check(api, api->PJRT_Event_Await(&w), "PJRT_Event_Await");
    auto d = make<PJRT_Event_Destroy_Args>();
    d.event = event;
    check(api, api->PJRT_Event_Destroy(&d), "PJRT_Event_Destroy");
  }

  void destroy(PJRT_Buffer* b) const {
    auto d = make<PJRT_Buffer_Destroy_Args>();
    d.buffer = b;
    check(api, api->PJRT_Buffer_Destroy(&d), "PJRT_Buffer_Destroy");
  }

  ~Raw() {
    for (PJRT_Buffer* b : in)
      if (b) destroy(b);
    auto e = make<PJRT_LoadedExecutable_Destroy_Args>();
    e.executable = exe;
    api->PJRT_LoadedExecutable_Destroy(&e);
    auto c = make<PJRT_Client_Destroy_Args>();
    c.client = client;
    api->PJRT_Client_Destroy(&c);
  }
};

/// One execution of the add through the C API, its args structs filled once, as a hand-written C
/// caller would: run() executes, awaits and returns the output buffer (the caller's to destroy).
struct RawCall {
  const Raw& raw;
  PJRT_ExecuteOptions opts = make<PJRT_ExecuteOptions>();
  PJRT_Buffer* const* arg_lists[1];
  PJRT_Buffer* out[1] = {nullptr};
  PJRT_Buffer** out_lists[1] = {out};
  PJRT_Event* done[1] = {nullptr};
  PJRT_LoadedExecutable_Execute_Args a = make<PJRT_LoadedExecutable_Execute_Args>();

  explicit RawCall(const Raw& r) : raw(r), arg_lists{r.in} {
    a.executable = raw.exe;
    a.options = &opts;
    a.argument_lists = arg_lists;
    a.num_devices = 1;
    a.num_args = 2;
    a.output_lists = out_lists;
    a.device_complete_events = done;
  }
  PJRT_Buffer* run() {
    check(raw.api, raw.api->PJRT_LoadedExecutable_Execute(&a), "PJRT_LoadedExecutable_Execute");
    raw.await_and_destroy(done[0]);
    return out[0];
  }
};

void BM_Dispatch_RawCApi(benchmark::State& state) {
  Raw raw;
  RawCall call(raw);
  for (auto _ : state) raw.destroy(call.run());
}

// ---- the result to the host each call -------------------------------------------------------

// Ours: execute + Buffer::to_host, which on a CPU buffer reads its memory on the calling thread.
void BM_ToHost_Ours(benchmark::State& state) {
  Ours ours;
  for (auto _ : state) {
    hhlo::Array r = ours.exe.execute(ours.args)[0].to_host();
    if (r.values<float>()[3] != 44.0f) throw std::runtime_error("ours: wrong result");
  }
}

// The plugin's copy: execute + await, then PJRT_Buffer_ToHostBuffer + await (the plugin hands
// the copy to one of its threads).
void BM_ToHost_RawCApi(benchmark::State& state) {
  Raw raw;
  RawCall call(raw);
  float host[4] = {};
  for (auto _ : state) {
    PJRT_Buffer* out = call.run();
    auto copy = make<PJRT_Buffer_ToHostBuffer_Args>();
    copy.src = out;
    copy.dst = host;
    copy.dst_size = sizeof host;
    check(raw.api, raw.api->PJRT_Buffer_ToHostBuffer(&copy), "PJRT_Buffer_ToHostBuffer");
    raw.await_and_destroy(copy.event);
    raw.destroy(out);
    if (host[3] != 44.0f) throw std::runtime_error("raw: wrong result");
  }
}

BENCHMARK(BM_Dispatch_Ours)->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(BM_Dispatch_RawCApi)->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(BM_ToHost_Ours)->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(BM_ToHost_RawCApi)->Unit(benchmark::kMicrosecond)->MinTime(0.5);

}  // namespace

BENCHMARK_MAIN();
