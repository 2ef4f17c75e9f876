#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "runtime_util.h"

namespace hhlo {
namespace {

constexpr char kAdd[] = R"(
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.add %a, %b : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
)";

TEST(Executable, CompilesAndAddsOnTheCpu) {
  LoadedExecutable exe = test::compile(kAdd);
  EXPECT_EQ(exe.num_outputs(), 1u);
  EXPECT_EQ(exe.output_types(), (std::vector<TensorType>{{DType::f32, {2, 2}}}));
  ASSERT_TRUE(exe.input_types().has_value());
  EXPECT_EQ(exe.input_types()->size(), 2u);
  auto out = test::run(exe, {Array::from<float>({2, 2}, {1, 2, 3, 4}),
                             Array::from<float>({2, 2}, {10, 20, 30, 40.5f})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{11, 22, 33, 44.5f}));
}

TEST(Executable, SeveralResultsBecomeSeveralBuffers) {
  LoadedExecutable exe = test::compile(R"(
func.func @main(%a: tensor<3xi32>) -> (tensor<3xi32>, tensor<i32>) {
  %m = stablehlo.multiply %a, %a : tensor<3xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xi32>, tensor<i32>) -> tensor<i32>
  return %m, %s : tensor<3xi32>, tensor<i32>
}
)");
  auto out = test::run(exe, {Array::from<int32_t>({3}, {2, -3, 5})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{4, 9, 25}));
  EXPECT_EQ(out[1].to_vector<int32_t>(), (std::vector<int32_t>{4}));
}

TEST(Executable, MalformedProgramIsOurParseErrorAndNeverReachesThePlugin) {
  // Only text our parser reads goes to the plugin (issue 22: text the plugin's parser recursed
  // on until SIGSEGV): a malformed one is our ParseError, with line, column and what was expected.
  try {
    test::compile("func.func @main( this is not mlir");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()), "-:1:18: expected an argument name %arg, found 'this'");
    EXPECT_EQ(e.line(), 1u);
    EXPECT_EQ(e.column(), 18u);
  }
  // Well-formed MLIR, wrong StableHLO types: verified as `hhlo check` verifies, so it is our
  // ShapeError with the op's line and constraint, not the plugin's message.
  try {
    test::compile(R"(
func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
})");
    FAIL() << "compiled an add of tensor<2xf32> and tensor<3xf32>";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.op(), "add");
    EXPECT_EQ(e.constraint(), "C1");
    EXPECT_NE(std::string(e.what()).find("-:3:3: stablehlo.add: operand shapes differ"),
              std::string::npos)
        << e.what();
  }
}

void expect_error(const LoadedExecutable& exe, const std::vector<const Buffer*>& args,
                  const std::string& needle) {
  try {
    exe.execute(args);
    FAIL() << "no error";
  } catch (const PjrtError& e) {
    FAIL() << "reached the plugin: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Executable, ArgumentsNotMatchingMainAreRejectedBeforeExecute) {
  LoadedExecutable exe = test::compile(kAdd);
  const Client& c = test::cpu();
  Buffer ok = c.buffer_from_host(Array(DType::f32, {2, 2}));
  Buffer wrong_dtype = c.buffer_from_host(Array(DType::f64, {2, 2}));
  Buffer wrong_shape = c.buffer_from_host(Array(DType::f32, {4}));
  expect_error(exe, {&ok}, "takes 2 arguments, 1 given");
  expect_error(exe, {&ok, &wrong_dtype},
               "argument 1 has type tensor<2x2xf64>, @main expects tensor<2x2xf32>");
  expect_error(exe, {&wrong_shape, &ok}, "argument 0 has type tensor<4xf32>");
  Client other = Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  Buffer foreign = other.buffer_from_host(Array(DType::f32, {2, 2}));
  expect_error(exe, {&ok, &foreign}, "another client");
}

TEST(Executable, DonatedBufferCannotBeUsedAgain) {
  LoadedExecutable exe = test::compile(R"(
func.func @main(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
)");
  Buffer in = test::cpu().buffer_from_host(Array::from<float>({4}, {1, 2, 3, 4}));
  auto out = exe.execute({&in});
  EXPECT_EQ(out[0].to_host().to_vector<float>(), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_TRUE(in.is_deleted());
  expect_error(exe, {&in}, "donated");
  // A non-donatable input survives.
  Buffer kept = test::cpu().buffer_from_host(Array::from<float>({4}, {1, 1, 1, 1}));
  auto out2 = exe.execute({&kept}, {.non_donatable_inputs = {0}});
  EXPECT_FALSE(kept.is_deleted());
  EXPECT_EQ(out2[0].to_host().to_vector<float>(), (std::vector<float>{2, 2, 2, 2}));
}

// execute and execute_async take one argument form: a list of buffer pointers.
template <typename Args>
concept ExecutesWith = requires(const LoadedExecutable& e, Args a) {
  e.execute(a);
  e.execute_async(a);
};
static_assert(ExecutesWith<std::vector<const Buffer*>>);
static_assert(ExecutesWith<const std::vector<const Buffer*>&>);
template <typename B>
concept ExecutesWithReferences = requires(const LoadedExecutable& e, const B& b) {
  e.execute({b});
};
template <typename B>
concept ExecutesAsyncWithReferences = requires(const LoadedExecutable& e, const B& b) {
  e.execute_async({b});
};
static_assert(!ExecutesWithReferences<Buffer> && !ExecutesAsyncWithReferences<Buffer>);

TEST(Executable, AsyncExecutionReturnsAnEvent) {
  LoadedExecutable exe = test::compile(kAdd);
  Buffer a = test::cpu().buffer_from_host(Array::from<float>({2, 2}, {1, 1, 1, 1}));
  const std::vector<const Buffer*> args{&a, &a};
  EXPECT_EQ(exe.execute(args)[0].to_host().to_vector<float>(), (std::vector<float>{2, 2, 2, 2}));
  ExecuteResult r = exe.execute_async(args);
  std::atomic<int> called{0};
  r.done.on_ready([&](std::exception_ptr e) { called = e ? -1 : 1; });
  r.done.await();
  for (int i = 0; i < 1000 && called == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(called.load(), 1);
  EXPECT_EQ(r.outputs[0].to_host().to_vector<float>(), (std::vector<float>{2, 2, 2, 2}));
}

TEST(Executable, ReplicasRunOnSeveralDevicesAtOnce) {
  const Client& c = test::cpu();
  LoadedExecutable exe = test::compile(kAdd, {.num_replicas = 2, .device_assignment = {2, 3}});
  auto devs = exe.devices();
  ASSERT_EQ(devs.size(), 2u);
  EXPECT_EQ(devs[0].id(), 2);
  EXPECT_EQ(devs[1].id(), 3);
  Buffer a0 = c.buffer_from_host(Array::from<float>({2, 2}, {1, 2, 3, 4}), devs[0]);
  Buffer a1 = c.buffer_from_host(Array::from<float>({2, 2}, {5, 6, 7, 8}), devs[1]);
  auto out = exe.execute_replicated({{&a0, &a0}, {&a1, &a1}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0][0].to_host().to_vector<float>(), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(out[1][0].to_host().to_vector<float>(), (std::vector<float>{10, 12, 14, 16}));
  EXPECT_EQ(out[1][0].device().id(), 3);
  EXPECT_THROW(exe.execute_replicated({{&a0, &a0}}), Error);
}

TEST(Executable, PortableExecutableRunsOnTheChosenDevice) {
  const Client& c = test::cpu();
  LoadedExecutable exe = test::compile(kAdd, {.portable = true});
  Buffer a = c.buffer_from_host(Array::from<float>({2, 2}, {1, 2, 3, 4}), c.devices()[1]);
  auto out = exe.execute({&a, &a}, {.device = c.devices()[1]});
  EXPECT_EQ(out[0].device().id(), 1);
  EXPECT_EQ(out[0].to_host().to_vector<float>(), (std::vector<float>{2, 4, 6, 8}));
}

TEST(Executable, SerializesAndDeserializes) {
  LoadedExecutable exe = test::compile(kAdd);
  std::string bytes = exe.serialize();
  ASSERT_FALSE(bytes.empty());
  LoadedExecutable back = test::cpu().deserialize(bytes);
  auto out = test::run(
      back, {Array::from<float>({2, 2}, {1, 2, 3, 4}), Array::from<float>({2, 2}, {1, 1, 1, 1})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_THROW(test::cpu().deserialize("not an executable"), PjrtError);
}

TEST(Executable, FingerprintIsStableForTheSameProgram) {
  std::string a = test::compile(kAdd).fingerprint(), b = test::compile(kAdd).fingerprint();
  EXPECT_EQ(a, b);
}

TEST(CompileOptions, SerializesTheProtoFieldsJaxlibWrites) {
  // jaxlib 0.10.2: CompileOptions with num_replicas=2, num_partitions=1 and device assignment
  // [[5],[7]] serializes its build options with these fields (debug_options left out here; the
  // XLA options are checked in xla_options_test.cc).
  std::string s = serialize_compile_options(
      {.num_replicas = 2, .device_assignment = {5, 7}, .xla_options = {}});
  std::string build = std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11) +
                      "\x20\x02\x28\x01" + "\x4a\x0a\x08\x02\x10\x01\x1a\x04\x0a\x02\x05\x07";
  EXPECT_EQ(s, std::string("\x1a") + static_cast<char>(build.size()) + build);
  EXPECT_THROW(serialize_compile_options({.num_replicas = 0}), Error);
  EXPECT_THROW(serialize_compile_options({.num_replicas = 2, .device_assignment = {1}}), Error);
  EXPECT_THROW(serialize_compile_options({.num_replicas = 2, .portable = true}), Error);
}

// bind_trailing: the last parameters bound once, appended to every execution; the caller's
// arguments alone are checked and listed (hhlo/program/hoist_constants.h binds hoisted weights).
TEST(Executable, BoundTrailingBuffersAreAppendedToEveryExecution) {
  const Client& c = test::cpu();
  LoadedExecutable exe = test::compile(R"(
func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>, %s: tensor<f32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %w : tensor<2xf32>
  %1 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %2 = stablehlo.add %0, %1 : tensor<2xf32>
  return %2 : tensor<2xf32>
}
)");
  ASSERT_EQ(exe.input_types()->size(), 3u);
  std::vector<Buffer> wrong;
  wrong.push_back(c.buffer_from_host(Array::from<float>({2}, {3, 4})));
  wrong.push_back(c.buffer_from_host(Array::from<float>({2}, {1, 1})));  // @main's %s is a scalar
  try {
    exe.bind_trailing(std::move(wrong));
    FAIL() << "a buffer of another type was bound";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                ::testing::HasSubstr("buffer 1 has type tensor<2xf32>, argument 2 of @main is "
                                     "tensor<f32>"));
  }
  EXPECT_EQ(exe.input_types()->size(), 3u);  // nothing bound
  std::vector<Buffer> bound;
  bound.push_back(c.buffer_from_host(Array::from<float>({2}, {3, 4})));
  bound.push_back(c.buffer_from_host(Array::from<float>({}, {0.5f})));
  exe.bind_trailing(std::move(bound));
  ASSERT_EQ(exe.input_types()->size(), 1u);
  EXPECT_EQ(exe.bound_trailing().size(), 2u);
  // x * w + s, by hand: [1*3 + 0.5, -2*4 + 0.5].
  Buffer x = c.buffer_from_host(Array::from<float>({2}, {1, -2}));
  EXPECT_EQ(exe.execute({&x}).at(0).to_host().to_vector<float>(),
            (std::vector<float>{3.5f, -7.5f}));
  ExecuteResult r = exe.execute_async({&x}, ExecuteOptions::keeping_inputs(1));
  r.done.await();
  EXPECT_EQ(r.outputs.at(0).to_host().to_vector<float>(), (std::vector<float>{3.5f, -7.5f}));
  expect_error(exe, {&x, &x}, "@main takes 1 arguments, 2 given");
  std::vector<Buffer> again;
  again.push_back(c.buffer_from_host(Array::from<float>({}, {1.0f})));
  EXPECT_THROW(exe.bind_trailing(std::move(again)), Error);
}

TEST(Executable, BindingIsRefusedOnSeveralDevices) {
  LoadedExecutable exe = test::compile(kAdd, {.num_replicas = 2, .device_assignment = {2, 3}});
  std::vector<Buffer> bound;
  bound.push_back(test::cpu().buffer_from_host(Array(DType::f32, {2, 2})));
  try {
    exe.bind_trailing(std::move(bound));
    FAIL() << "bound on two devices";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("runs on 2 devices"));
  }
}

}  // namespace
}  // namespace hhlo
