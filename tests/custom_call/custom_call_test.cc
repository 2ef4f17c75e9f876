// Custom calls executed for real on the CPU plugin: typed XLA FFI handlers from the example kernel
// library (examples/custom_call_cpu), registered through the plugin's FFI extension and called
// from StableHLO programs between ordinary ops.
#include "hhlo/runtime/custom_call.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "kernels.h"
#include "runtime/pjrt.h"  // for the tests that pin raw plugin behaviour
#include "runtime/pjrt_extensions.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;

constexpr char kLib[] = HHLO_CUSTOM_CALL_CPU_LIB;

const Client& cpu() {
  static const Client client = Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  return client;
}
const Plugin& plugin() { return cpu().plugin(); }

/// Registers every handler of the example library once for the whole test binary.
void register_examples() {
  static const bool done = [] {
    register_custom_call_library(plugin(), kLib,
                                 {"hhlo_example_rms_norm",
                                  "hhlo_example_vector_add",
                                  "hhlo_example_copy",
                                  "hhlo_example_scale",
                                  "hhlo_example_fail",
                                  "hhlo_example_throw",
                                  {"my_add", "hhlo_example_vector_add"}});
    return true;
  }();
  (void)done;
}

std::vector<Array> run(const LoadedExecutable& exe, const std::vector<Array>& args,
                       const ExecuteOptions& options = {}) {
  std::vector<Buffer> buffers;
  std::vector<const Buffer*> ptrs;
  for (const Array& a : args) buffers.push_back(cpu().buffer_from_host(a));
  for (const Buffer& b : buffers) ptrs.push_back(&b);
  std::vector<Array> out;
  for (const Buffer& b : exe.execute(ptrs, options)) out.push_back(b.to_host());
  return out;
}

std::vector<float> run1(const std::string& mlir, const std::vector<Array>& args) {
  return run(compile(cpu(), mlir), args).at(0).to_vector<float>();
}

// ---- Kernels that run ---------------------------------------------------------------------------

// x -> 2x -> rms_norm(epsilon = 6) -> +1, the norm as a custom call between ordinary ops.
constexpr char kRmsNormCustom[] = R"(
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<2x4xf32>
  %x2 = stablehlo.multiply %x, %two : tensor<2x4xf32>
  %n = stablehlo.custom_call @hhlo_example_rms_norm(%x2) {api_version = 4 : i32, backend_config = {epsilon = 6.0 : f32}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<2x4xf32>
  %r = stablehlo.add %n, %one : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
)";

// The same computation with ordinary ops only.
constexpr char kRmsNormNative[] = R"(
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<2x4xf32>
  %x2 = stablehlo.multiply %x, %two : tensor<2x4xf32>
  %sq = stablehlo.multiply %x2, %x2 : tensor<2x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
  %four = stablehlo.constant dense<4.0> : tensor<2xf32>
  %m = stablehlo.divide %s, %four : tensor<2xf32>
  %eps = stablehlo.constant dense<6.0> : tensor<2xf32>
  %me = stablehlo.add %m, %eps : tensor<2xf32>
  %inv = stablehlo.rsqrt %me : tensor<2xf32>
  %b = stablehlo.broadcast_in_dim %inv, dims = [0] : (tensor<2xf32>) -> tensor<2x4xf32>
  %n = stablehlo.multiply %x2, %b : tensor<2x4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<2x4xf32>
  %r = stablehlo.add %n, %one : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
)";

TEST(CustomCallCpu, RmsNormWithEpsilonAttributeRunsBetweenOrdinaryOps) {
  // register_custom_call itself, with a handler symbol taken from the loaded library.
  CustomCallLibrary lib = load_custom_call_library(kLib);
  register_custom_call(plugin(), "hhlo_example_rms_norm", lib.symbol("hhlo_example_rms_norm"));
  // Rows chosen so that 2x has mean square 30: 1/sqrt(30 + 6) = 1/6 exactly.
  Array x = Array::from<float>({2, 4}, {1, 2, 3, 4, -4, 3, -2, 1});
  std::vector<float> got = run1(kRmsNormCustom, {x});
  std::vector<float> want = {2 / 6.f + 1, 4 / 6.f + 1,  2,          8 / 6.f + 1, -8 / 6.f + 1,
                             2,           -4 / 6.f + 1, 2 / 6.f + 1};
  std::vector<float> native = run1(kRmsNormNative, {x});
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-6) << i;
    EXPECT_NEAR(got[i], native[i], 1e-6) << i;
  }
}

TEST(CustomCallCpu, RmsNormEpsilonReallyComesFromBackendConfig) {
  register_examples();
  std::string eps0 = kRmsNormCustom;
  eps0.replace(eps0.find("6.0 : f32"), 3, "0.0");
  // Mean square 30, epsilon 0: 1/sqrt(30).
  std::vector<float> got = run1(eps0, {Array::from<float>({2, 4}, {1, 2, 3, 4, -4, 3, -2, 1})});
  EXPECT_NEAR(got[0], 2 / std::sqrt(30.f) + 1, 1e-6);
}

/// (a + b) * a on `type`, the add as custom call `target`, or as stablehlo.add when it is empty.
std::string add_program(const std::string& target, const std::string& type) {
  std::string add = target.empty() ? "stablehlo.add %a, %b : " + type
                                   : "stablehlo.custom_call @" + target +
                                         "(%a, %b) {api_version = 4 : i32} : (" + type + ", " +
                                         type + ") -> " + type;
  return "func.func @main(%a: " + type + ", %b: " + type + ") -> " + type + " {\n" +
         "  %s = " + add + "\n" + "  %r = stablehlo.multiply %s, %a : " + type + "\n" +
         "  return %r : " + type + "\n}\n";
}

TEST(CustomCallCpu, VectorAddTakesItsLengthFromTheBuffers) {
  register_examples();
  // (a + b) * a, for two lengths and a rank-2 shape, against the native add and by hand.
  for (const auto& [type, dims] : std::vector<std::pair<std::string, Dims>>{
           {"tensor<5xf32>", {5}}, {"tensor<1000xf32>", {1000}}, {"tensor<2x3xf32>", {2, 3}}}) {
    Array a(DType::f32, dims), b(DType::f32, dims);
    auto av = a.values<float>(), bv = b.values<float>();
    for (std::size_t i = 0; i < av.size(); ++i) {
      av[i] = 0.5f * static_cast<float>(i) - 3;
      bv[i] = 100.0f - static_cast<float>(i);
    }
    std::vector<float> got = run1(add_program("hhlo_example_vector_add", type), {a, b});
    std::vector<float> want_native = run1(add_program("", type), {a, b});
    ASSERT_EQ(got.size(), av.size()) << type;
    for (std::size_t i = 0; i < av.size(); ++i) {
      EXPECT_EQ(got[i], (av[i] + bv[i]) * av[i]) << type << " " << i;
      EXPECT_EQ(got[i], want_native[i]) << type << " " << i;
    }
  }
}

TEST(CustomCallCpu, TargetNameCanDifferFromTheSymbol) {
  register_examples();  // registers "my_add" -> hhlo_example_vector_add
  std::vector<float> got =
      run1(add_program("my_add", "tensor<3xf32>"),
           {Array::from<float>({3}, {1, 2, 3}), Array::from<float>({3}, {10, 20, 30})});
  EXPECT_EQ(got, (std::vector<float>{11, 44, 99}));
}

TEST(CustomCallCpu, AnyBufferHandlerTakesAnyDtypeAndRank) {
  register_examples();
  LoadedExecutable i32 = compile(cpu(), R"(
func.func @main(%x: tensor<2x1x3xi32>) -> tensor<2x1x3xi32> {
  %c = stablehlo.custom_call @hhlo_example_copy(%x) {api_version = 4 : i32} : (tensor<2x1x3xi32>) -> tensor<2x1x3xi32>
  %r = stablehlo.add %c, %x : tensor<2x1x3xi32>
  return %r : tensor<2x1x3xi32>
}
)");
  auto out = run(i32, {Array::from<int32_t>({2, 1, 3}, {1, -2, 3, -4, 5, 1 << 20})});
  EXPECT_EQ(out.at(0).to_vector<int32_t>(), (std::vector<int32_t>{2, -4, 6, -8, 10, 1 << 21}));
  LoadedExecutable f64 = compile(cpu(), R"(
func.func @main(%x: tensor<f64>) -> tensor<f64> {
  %c = stablehlo.custom_call @hhlo_example_copy(%x) {api_version = 4 : i32} : (tensor<f64>) -> tensor<f64>
  return %c : tensor<f64>
}
)");
  EXPECT_EQ(run(f64, {Array::scalar<double>(0.1)}).at(0).to_vector<double>(),
            (std::vector<double>{0.1}));
}

constexpr char kScale[] = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = stablehlo.custom_call @hhlo_example_scale(%x) {api_version = 4 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
)";

int64_t scale_type_id() {
  static const int64_t id = [] {
    int64_t id = register_custom_call_type(plugin(), "hhlo_example::Scale");
    auto set = reinterpret_cast<void (*)(int64_t)>(
        load_custom_call_library(kLib).symbol("hhlo_example_set_scale_type_id"));
    set(id);
    return id;
  }();
  return id;
}

TEST(CustomCallCpu, UserDataReachesTheHandlerThroughTheExecuteContext) {
  register_examples();
  int64_t id = scale_type_id();
  EXPECT_GT(id, 0);
  // The same name again: the same id (type_id 0 asks XLA to look it up or assign one).
  EXPECT_EQ(register_custom_call_type(plugin(), "hhlo_example::Scale", id), id);
  LoadedExecutable exe = compile(cpu(), kScale);
  HhloExampleScale scale;
  scale.factor = 2.5f;
  ExecuteOptions options{.user_data = {{id, &scale}}};
  auto out = run(exe, {Array::from<float>({4}, {1, 2, -4, 0})}, options);
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{2.5f, 5, -10, 0}));
  EXPECT_EQ(scale.calls, 1);

  // Asynchronous: the context lives until the event is ready.
  scale.factor = -1;
  Buffer in = cpu().buffer_from_host(Array::from<float>({4}, {1, 2, 3, 4}));
  ExecuteResult r = exe.execute_async({&in}, options);
  r.done.await();
  EXPECT_EQ(r.outputs.at(0).to_host().to_vector<float>(), (std::vector<float>{-1, -2, -3, -4}));
  EXPECT_EQ(scale.calls, 2);
}

// ---- Bad input ----------------------------------------------------------------------------------

TEST(CustomCallErrors, UserDataOfAnotherTypeIsAnExecuteError) {
  register_examples();
  scale_type_id();
  int64_t other = register_custom_call_type(plugin(), "hhlo_test::Other");
  ASSERT_NE(other, scale_type_id());
  int unrelated = 7;
  LoadedExecutable exe = compile(cpu(), kScale);
  try {
    run(exe, {Array::from<float>({4}, {1, 2, 3, 4})}, {.user_data = {{other, &unrelated}}});
    FAIL() << "executed without its user data";
  } catch (const PjrtError& e) {
    EXPECT_THAT(e.what(), HasSubstr("custom call target 'hhlo_example_scale' needs user data of "
                                    "type 'hhlo_example::Scale'"))
        << e.what();
  }
}

TEST(CustomCallErrors, HandlerNeedingUserDataExecutedWithoutAnyIsRefusedNamingTheTarget) {
  // Fact (xla-cpu-pjrt 0.0.1 and the 0.115 CPU plugin): a handler that decodes ffi::UserData<T>,
  // executed without any execute context, dies with SIGSEGV inside the plugin's
  // XLA_FFI_ExecutionContext_Get. Once a handler is registered, every execution gets a context, so
  // the plugin refuses instead, and the error names the target the program calls and the type.
  register_examples();
  int64_t id = scale_type_id();
  LoadedExecutable exe = compile(cpu(), kScale);
  for (int i = 0; i < 2; ++i) {  // the same executable again: still an error, still no crash
    try {
      run(exe, {Array::from<float>({4}, {1, 2, 3, 4})});
      FAIL() << "executed without its user data";
    } catch (const PjrtError& e) {
      EXPECT_THAT(e.what(), HasSubstr("custom call target 'hhlo_example_scale' needs user data of "
                                      "type 'hhlo_example::Scale' (type id " +
                                      std::to_string(id) + ")"));
      EXPECT_THAT(e.what(), HasSubstr("ExecuteOptions::user_data"));
    }
  }
  // Asynchronously: refused at launch or reported by the event, never a crash.
  Buffer in = cpu().buffer_from_host(Array::from<float>({4}, {1, 2, 3, 4}));
  EXPECT_THROW(
      {
        ExecuteResult r = exe.execute_async({&in});
        r.done.await();
      },
      Error);
  // Programs without custom calls still run, now with an (empty) execute context.
  LoadedExecutable plain = compile(cpu(), R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.add %x, %x : tensor<2xf32>
  return %r : tensor<2xf32>
}
)");
  EXPECT_EQ(run(plain, {Array::from<float>({2}, {1, -3})}).at(0).to_vector<float>(),
            (std::vector<float>{2, -6}));
}

TEST(CustomCallErrors, LibraryPathMissingNamesThePathAndTheDlerror) {
  const std::string path = "/nonexistent/libno_such_kernels.so";
  try {
    load_custom_call_library(path);
    FAIL();
  } catch (const PluginError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path));
    EXPECT_THAT(e.what(), HasSubstr("No such file or directory"));
  }
  EXPECT_THROW(register_custom_call_library(plugin(), path, {"x"}), PluginError);
}

TEST(CustomCallErrors, MissingSymbolNamesSymbolAndLibraryAndRegistersNothing) {
  try {
    register_custom_call_library(
        plugin(), kLib, {{"hhlo_t_partial", "hhlo_example_negate"}, "hhlo_example_no_such_kernel"});
    FAIL();
  } catch (const PluginError& e) {
    EXPECT_THAT(e.what(), HasSubstr("hhlo_example_no_such_kernel"));
    EXPECT_THAT(e.what(), HasSubstr(kLib));
  }
  // The symbols are all looked up first: the valid one before the missing one was not registered.
  EXPECT_THROW(compile(cpu(), R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.custom_call @hhlo_t_partial(%x) {api_version = 4 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)"),
               Error);
}

TEST(CustomCallErrors, UnregisteredTargetFailsAtCompileNamingTheTarget) {
  try {
    compile(cpu(), R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.custom_call @hhlo_never_registered(%x) {api_version = 4 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)");
    FAIL() << "compiled a call to a target nobody registered";
  } catch (const PjrtError& e) {
    // Fact (xla-cpu-pjrt 0.0.1): the compile fails, not the execution.
    EXPECT_EQ(e.function(), "PJRT_Client_Compile");
    EXPECT_THAT(e.what(), HasSubstr("hhlo_never_registered"));
  }
}

TEST(CustomCallErrors, HandlerErrorReachesTheUserAsPjrtError) {
  register_examples();
  LoadedExecutable exe = compile(cpu(), R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.custom_call @hhlo_example_fail(%x) {api_version = 4 : i32, backend_config = {reason = "the input is not sorted"}} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)");
  try {
    run(exe, {Array::from<float>({2}, {2, 1})});
    FAIL();
  } catch (const PjrtError& e) {
    EXPECT_THAT(e.what(), HasSubstr("hhlo_example_fail: the input is not sorted"));
    EXPECT_EQ(e.error_code(), PjrtErrorCode::failed_precondition)
        << e.what();  // the code the handler returned
  }
}

TEST(CustomCallErrors, ExceptionInHandlerBecomesAnErrorAndTheProcessSurvives) {
  register_examples();
  LoadedExecutable exe = compile(cpu(), R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.custom_call @hhlo_example_throw(%x) {api_version = 4 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)");
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      run(exe, {Array::from<float>({2}, {1, 2})});
      FAIL();
    } catch (const PjrtError& e) {
      EXPECT_THAT(e.what(),
                  HasSubstr("hhlo_example_throw: C++ exception: thrown inside the kernel"));
    }
  }
  // Still alive and executing.
  EXPECT_EQ(run1(add_program("hhlo_example_vector_add", "tensor<2xf32>"),
                 {Array::from<float>({2}, {1, 2}), Array::from<float>({2}, {3, 4})}),
            (std::vector<float>{4, 12}));
}

TEST(CustomCallErrors, WrongOperandDtypeForATypedHandler) {
  register_examples();
  std::string mlir = add_program("hhlo_example_vector_add", "tensor<3xf64>");
  std::vector<Array> args = {Array::from<double>({3}, {1, 2, 3}),
                             Array::from<double>({3}, {1, 2, 3})};
  try {
    run(compile(cpu(), mlir), args);
    FAIL() << "an f32 handler ran on f64 buffers";
  } catch (const PjrtError& e) {
    EXPECT_THAT(e.what(), HasSubstr("dtype")) << e.what();
  }
}

TEST(CustomCallErrors, NullHandlerOrEmptyTargetIsRefusedBeforeThePlugin) {
  EXPECT_THROW(register_custom_call(plugin(), "hhlo_null", nullptr), Error);
  EXPECT_THROW(register_custom_call(plugin(), "",
                                    load_custom_call_library(kLib).symbol("hhlo_example_negate")),
               Error);
}

constexpr char kTwice[] = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.custom_call @TARGET(%x) {api_version = 4 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)";

std::string call_of(const std::string& target) {
  std::string s = kTwice;
  return s.replace(s.find("TARGET"), 6, target);
}

TEST(CustomCallErrors, RegisteringATargetTwiceWithAnotherHandlerIsRefused) {
  CustomCallLibrary lib = load_custom_call_library(kLib);
  register_custom_call(plugin(), "hhlo_twice", lib.symbol("hhlo_example_negate"));
  // The same handler again: a no-op.
  EXPECT_NO_THROW(register_custom_call(plugin(), "hhlo_twice", lib.symbol("hhlo_example_negate")));
  // A different handler under the same target and platform (any spelling of the platform).
  try {
    register_custom_call(plugin(), "hhlo_twice", lib.symbol("hhlo_example_copy"), "host");
    FAIL() << "a second, different handler was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'hhlo_twice' is already registered"));
  }
  EXPECT_EQ(run1(call_of("hhlo_twice"), {Array::from<float>({2}, {1, -2})}),
            (std::vector<float>{-1, 2}));
}

TEST(CustomCallErrors, PluginKeepsTheFirstHandlerAndIgnoresASecondSilently) {
  // Fact (xla-cpu-pjrt 0.0.1), through the raw extension call that register_custom_call guards:
  // a second, different handler for a registered target returns success and changes nothing.
  CustomCallLibrary lib = load_custom_call_library(kLib);
  register_custom_call(plugin(), "hhlo_twice_raw", lib.symbol("hhlo_example_negate"));
  const auto* ffi = reinterpret_cast<const detail::FfiExtension*>(
      detail::find_extension(plugin().state().api, PJRT_Extension_Type_FFI));
  ASSERT_NE(ffi, nullptr);
  detail::FfiRegisterHandlerArgs a{};
  a.struct_size = detail::kFfiRegisterHandlerArgsSize;
  a.target_name = "hhlo_twice_raw";
  a.target_name_size = 14;
  a.handler = lib.symbol("hhlo_example_copy");
  a.platform_name = "Host";
  a.platform_name_size = 4;
  EXPECT_EQ(ffi->register_handler(&a), nullptr);
  EXPECT_EQ(run1(call_of("hhlo_twice_raw"), {Array::from<float>({2}, {1, -2})}),
            (std::vector<float>{-1, 2}));  // still negate, not copy
}

TEST(CustomCallErrors, PluginNamesItsRegisterHandlerArgsSize) {
  // Fact (xla-cpu-pjrt 0.0.1): its PJRT_FFI_Register_Handler_Args is the 52-byte form without
  // api_version; given a smaller struct it says so (the basis of our layout choice).
  const auto* ffi = reinterpret_cast<const detail::FfiExtension*>(
      detail::find_extension(plugin().state().api, PJRT_Extension_Type_FFI));
  ASSERT_NE(ffi, nullptr);
  EXPECT_EQ(ffi->base.struct_size, sizeof(detail::FfiExtension));
  detail::FfiRegisterHandlerArgs a{};
  a.struct_size = 8;
  PJRT_Error* error = ffi->register_handler(&a);
  ASSERT_NE(error, nullptr);
  std::string message = detail::take_error(plugin().state().api, error).message;
  EXPECT_THAT(message, HasSubstr("PJRT_FFI_Register_Handler_Args size: expected 52"));
}

TEST(CustomCallErrors, HandlerBuiltWithNewerFfiHeadersIsRefusedNotSilentlyDropped) {
  // Fact: a plugin's register_handler returns success for a handler reporting a newer XLA FFI
  // minor version than its own but does not register it (compiling a call then fails with "No
  // FFI handler registered for ..."; seen on xla-cpu-pjrt 0.0.1), so register_custom_call checks
  // the versions itself. The plugins implement XLA FFI 0.4 (lammps-jax-pjrt-cpu 0.11.2, PJRT C
  // API 0.115, the default) and 0.2 (xla-cpu-pjrt 0.0.1, PJRT 0.81, compat); set-up pins the 0.2
  // headers (jaxlib 0.9.0), which both accept. The test handler reports the plugin's version + 1.
  // XLA FFI minor version measured per PJRT C API minor version (docs/facts.md).
  const std::map<int, int> recorded = {{81, 2}, {106, 3}, {115, 4}};
  CustomCallLibrary lib = load_custom_call_library(kLib);
  try {
    register_custom_call(plugin(), "hhlo_ffi_newer", lib.symbol("hhlo_example_negate_newer_ffi"));
    FAIL() << "a handler with newer XLA FFI headers was accepted";
  } catch (const PluginError& e) {
    std::smatch m;
    std::string what = e.what();
    ASSERT_TRUE(std::regex_search(
        what, m,
        std::regex(R"(built with XLA FFI API 0\.(\d+) headers.*implements XLA FFI API 0\.(\d+))")))
        << what;
    int got = std::stoi(m[1].str()), want = std::stoi(m[2].str());
    EXPECT_EQ(got, want + 1) << what;
    auto it = recorded.find(plugin().api_minor());
    if (it != recorded.end()) {
      EXPECT_EQ(want, it->second) << what;
    }
  }
}

TEST(CustomCallErrors, GpuRegistrationOnTheCpuPluginIsAPluginError) {
  try {
    register_gpu_custom_call(plugin(), kLib, "hhlo_example_vector_add", GpuCustomCallApi::typed);
    FAIL();
  } catch (const PluginError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the CPU plugin has no GPU custom-call extension"));
  }
}

// ---- Faults: the process and the client keep working (docs/reliability.md) --------------------

TEST(CustomCallFaults, AfterAHandlerErrorOrAnUnregisteredTargetTheNextExecuteIsRight) {
  register_examples();
  LoadedExecutable failing = compile(cpu(), R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.custom_call @hhlo_example_fail(%x) {api_version = 4 : i32, backend_config = {reason = "refused"}} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)");
  LoadedExecutable add = compile(cpu(), add_program("hhlo_example_vector_add", "tensor<2xf32>"));
  for (int round = 0; round < 3; ++round) {
    try {
      run(failing, {Array::from<float>({2}, {1, 2})});
      FAIL() << "the failing handler succeeded";
    } catch (const PjrtError& e) {
      EXPECT_THAT(e.what(), HasSubstr("hhlo_example_fail"));
    }
    // (a + b) * a with the custom-call add, right after the failure.
    EXPECT_EQ(
        run(add, {Array::from<float>({2}, {1, 2 + float(round)}), Array::from<float>({2}, {3, 4})})
            .at(0)
            .to_vector<float>(),
        (std::vector<float>{4, (6 + float(round)) * (2 + float(round))}));
    try {
      compile(cpu(), add_program("hhlo_registered_nowhere", "tensor<2xf32>"));
      FAIL() << "compiled a call to an unregistered target";
    } catch (const PjrtError& e) {
      EXPECT_THAT(e.what(), HasSubstr("hhlo_registered_nowhere"));
    }
  }
}

// A kernel library cut at 4096 bytes killed the process with SIGBUS inside glibc's dlopen (its
// loadable segments lie past the end of the file); 64 KiB cuts into its code segment.
TEST(CustomCallFaults, TruncatedKernelLibraryIsAPluginErrorNamingThePath) {
  std::ifstream in(kLib, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string lib = ss.str();
  ASSERT_GT(lib.size(), size_t{1} << 16);
  namespace fs = std::filesystem;
  for (size_t keep : {size_t{0}, size_t{64}, size_t{4096}, size_t{1} << 16}) {
    fs::path p = fs::temp_directory_path() / ("hhlo-truncated-kernels-" + std::to_string(getpid()) +
                                              "-" + std::to_string(keep) + ".so");
    std::ofstream(p, std::ios::binary).write(lib.data(), static_cast<std::streamsize>(keep));
    try {
      load_custom_call_library(p.string());
      ADD_FAILURE() << "loaded a kernel library truncated to " << keep << " bytes";
    } catch (const PluginError& e) {
      EXPECT_THAT(e.what(), HasSubstr(p.string()));
      if (keep >= 64) {
        EXPECT_THAT(e.what(), HasSubstr("the file is truncated"));
      }
    }
    EXPECT_THROW(register_custom_call_library(plugin(), p.string(), {"hhlo_example_copy"}),
                 PluginError);
    fs::remove(p);
  }
  // The whole library still loads and its handlers run: (a + b) * a.
  register_examples();
  LoadedExecutable add = compile(cpu(), add_program("hhlo_example_vector_add", "tensor<2xf32>"));
  EXPECT_EQ(run(add, {Array::from<float>({2}, {1, 2}), Array::from<float>({2}, {3, 4})})
                .at(0)
                .to_vector<float>(),
            (std::vector<float>{4, 12}));
}

// ---- Concurrency: handlers called from several executions at once -----------------------------

TEST(CustomCallConcurrency, HandlerCalledFromEightExecutionsAtOnceGivesEveryResultExactly) {
  register_examples();
  constexpr int kThreads = 8, kRuns = 25;
  LoadedExecutable exe = compile(cpu(), add_program("hhlo_example_vector_add", "tensor<64xf32>"));
  std::atomic<int> ready{0}, wrong{0}, checked{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int i = 0; i < kRuns; ++i) {
        std::vector<float> a(64), b(64), want(64);
        for (int j = 0; j < 64; ++j) {
          a[j] = float(t * 64 + j - i);
          b[j] = float(i - j);
          want[j] = (a[j] + b[j]) * a[j];  // small integers: exact in f32
        }
        auto out = run(exe, {Array::from<float>({64}, a), Array::from<float>({64}, b)});
        (out.at(0).to_vector<float>() == want ? checked : wrong).fetch_add(1);
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(checked.load(), kThreads * kRuns);
}

TEST(CustomCallConcurrency, UserDataOfEightConcurrentExecutionsReachesEachItsOwnHandlerCall) {
  register_examples();
  constexpr int kThreads = 8, kRuns = 25;
  int64_t id = scale_type_id();
  LoadedExecutable exe = compile(cpu(), kScale);
  std::vector<HhloExampleScale> scales(kThreads);
  std::atomic<int> ready{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      scales[t].factor = float(t + 1);
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      ExecuteOptions options{.user_data = {{id, &scales[t]}}};
      for (int i = 0; i < kRuns; ++i) {
        auto out = run(exe, {Array::from<float>({4}, {1, float(i), -2, 0})}, options);
        Array want =
            Array::from<float>({4}, {float(t + 1), float(i * (t + 1)), float(-2 * (t + 1)), 0});
        if (!(out.at(0) == want)) wrong.fetch_add(1);
      }
      // Asynchronously too, awaited in reverse order of launch.
      std::vector<Buffer> in;
      std::vector<ExecuteResult> pending;
      for (int i = 0; i < 4; ++i)
        in.push_back(cpu().buffer_from_host(Array::from<float>({4}, {float(i), 1, 2, 3})));
      for (int i = 0; i < 4; ++i) pending.push_back(exe.execute_async({&in[i]}, options));
      for (int i = 3; i >= 0; --i) {
        pending[i].done.await();
        float f = float(t + 1);
        if (!(pending[i].outputs.at(0).to_host() ==
              Array::from<float>({4}, {float(i) * f, f, 2 * f, 3 * f})))
          wrong.fetch_add(1);
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(scales[t].calls, kRuns + 4) << "thread " << t;
}

}  // namespace
}  // namespace hhlo
