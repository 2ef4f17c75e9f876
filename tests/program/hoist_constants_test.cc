// The constants hoisted out of a prepared program (hhlo/program/hoist_constants.h): trailing
// parameters of @main bound by the program stage, the same values as without, a warm load from
// the record of the constants, a damaged or removed record a miss, what is left as it is.
#include "hhlo/program/hoist_constants.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "hhlo/core/error.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/program/load.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

// x * [1, 2, 3, 4] + 1: the weights are 16 bytes, the scalar 4.
constexpr const char* kWeights = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %0 = stablehlo.multiply %x, %w : tensor<4xf32>
  %1 = stablehlo.add %0, %b : tensor<4xf32>
  return %1 : tensor<4xf32>
})";

// Three times v = v + [1, 2, 3, 4] (a constant of the loop's body) then * [2, 2, 2, 2] (a
// constant of @main captured by the body): from x, ((x + w) * 2 + w) * 2 + w) * 2.
constexpr const char* kLoop = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<[2.0, 2.0, 2.0, 2.0]> : tensor<4xf32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %w = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %a = stablehlo.add %v, %w : tensor<4xf32>
    %b = stablehlo.multiply %a, %two : tensor<4xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %b : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
})";

// x donated to the result: x * [1, 2, 3, 4].
constexpr const char* kDonated =
    R"(func.func @main(%x: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> tensor<4xf32> {
  %w = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = stablehlo.multiply %x, %w : tensor<4xf32>
  return %0 : tensor<4xf32>
})";

/// A fresh cache folder for one test, removed after it.
struct CacheDir {
  explicit CacheDir(const std::string& name)
      : path((fs::temp_directory_path() / ("hhlo-hoist-" + name + "-" + std::to_string(getpid())))
                 .string()) {
    fs::remove_all(path);
  }
  ~CacheDir() { fs::remove_all(path); }
  std::string path;
};

LoadOptions hoisting(int64_t min_bytes) {
  return {.prepare = {.arg_types = std::vector<TensorType>{{DType::f32, {4}}},
                      .hoist_constants_min_bytes = min_bytes}};
}

std::vector<float> run_on(const Loaded& l, const std::vector<float>& x) {
  Buffer in = l.client.buffer_from_host(Array::from<float>({4}, x));
  return l.executable.execute({&in}).at(0).to_host().to_vector<float>();
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// The record of the hoisted constants in `dir`: the one `.hrec` file whose text is not JSON.
std::string constants_record(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".hrec") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), {});
    std::size_t eol = data.find('\n');
    if (eol != std::string::npos && eol + 1 < data.size() && data[eol + 1] != '{')
      return e.path().string();
  }
  return "";
}

TEST(HoistConstants, LargeConstantsOfMainBecomeTrailingParameters) {
  Module m = parse_module(kWeights);
  HoistedConstants h = hoist_constants(m, 16);
  ASSERT_EQ(h.values.size(), 1u);
  EXPECT_EQ(h.values[0]->to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  const Func* main = h.module.find("main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->arg_types().size(), 2u);
  EXPECT_EQ(main->arg_types()[1], (TensorType{DType::f32, {4}}));
  std::string text = to_mlir(h.module);
  EXPECT_EQ(count(text, "stablehlo.constant"), 1) << text;  // the 4-byte scalar stays
  // Below the bound, or off: nothing.
  EXPECT_TRUE(hoist_constants(m, 17).values.empty());
  EXPECT_TRUE(hoist_constants(m, 0).values.empty());
}

TEST(HoistConstants, PrepareKeepsTheCallersArgumentsAndNames) {
  PreparedProgram p = prepare_program(read_program(kWeights), hoisting(16).prepare);
  EXPECT_EQ(p.hoisted_constants, 1);
  ASSERT_EQ(p.hoisted.size(), 1u);
  EXPECT_EQ(p.names.args, (std::vector<std::string>{"arg0"}));
  EXPECT_EQ(p.module.find("main")->arg_types().size(), 2u);
}

TEST(HoistConstants, APartitionedProgramIsLeftAsItIs) {
  std::string text =
      std::string("module attributes {mhlo.num_partitions = 2 : i32} {\n") + kWeights + "\n}";
  Module m = parse_module(text);
  EXPECT_TRUE(hoist_constants(m, 16).values.empty());
}

TEST(HoistConstants, AConstantInsideAWhileBodyIsLeftAsItIs) {
  Module m = parse_module(kLoop);
  HoistedConstants h = hoist_constants(m, 16);
  // Only @main's own [2, 2, 2, 2] (captured by the body); the body's [1, 2, 3, 4] stays.
  ASSERT_EQ(h.values.size(), 1u);
  EXPECT_EQ(h.values[0]->to_vector<float>(), (std::vector<float>{2, 2, 2, 2}));
  EXPECT_EQ(count(to_mlir(h.module), "stablehlo.constant"), 4) << to_mlir(h.module);
  // Values by hand: x = 0 gives ((1*2 + 1)*2 + 1)*2 = 14 for w = 1, i.e. 14 w.
  Loaded l = load({.bytes = kLoop, .options = hoisting(16)});
  EXPECT_EQ(l.facts.hoisted_constants, 1);
  EXPECT_EQ(run_on(l, {0, 0, 0, 0}), (std::vector<float>{14, 28, 42, 56}));
  // x = 1: (((1 + w)*2 + w)*2 + w)*2 = 8 + 14 w.
  EXPECT_EQ(run_on(l, {1, 1, 1, 1}), (std::vector<float>{22, 36, 50, 64}));
}

TEST(HoistConstants, ValuesAreTheSameWithAndWithoutHoisting) {
  for (int64_t bound : {int64_t{0}, int64_t{16}, int64_t{4}}) {
    Loaded l = load({.bytes = kWeights, .options = hoisting(bound)});
    EXPECT_EQ(l.facts.hoisted_constants, bound == 0 ? 0 : bound == 16 ? 1 : 2);
    ASSERT_TRUE(l.executable.input_types());
    EXPECT_EQ(l.executable.input_types()->size(), 1u);  // the caller's argument only
    // x * [1, 2, 3, 4] + 1, by hand.
    EXPECT_EQ(run_on(l, {1, 1, 1, 1}), (std::vector<float>{2, 3, 4, 5}));
    EXPECT_EQ(run_on(l, {0.5f, -1, 2, 0}), (std::vector<float>{1.5f, -1, 7, 1}));
  }
}

TEST(HoistConstants, AWarmLoadFromTheRecordEqualsTheCold) {
  CacheDir dir("warm");
  CompileCache cache({.dir = dir.path});
  Loaded cold = load({.bytes = kWeights, .options = hoisting(16), .cache = &cache});
  EXPECT_TRUE(cold.read);
  EXPECT_FALSE(constants_record(dir.path).empty());
  Loaded warm = load({.bytes = kWeights, .options = hoisting(16), .cache = &cache});
  EXPECT_FALSE(warm.read);
  EXPECT_EQ(warm.outcome, CacheOutcome::hit);
  EXPECT_EQ(warm.facts.hoisted_constants, 1);
  EXPECT_EQ(warm.executable.input_types()->size(), 1u);
  EXPECT_EQ(run_on(warm, {0.5f, -1, 2, 0}), (std::vector<float>{1.5f, -1, 7, 1}));
  EXPECT_EQ(run_on(cold, {0.5f, -1, 2, 0}), (std::vector<float>{1.5f, -1, 7, 1}));
}

TEST(HoistConstants, OtherWeightsOfTheSameProgramGetTheirOwnValues) {
  CacheDir dir("weights");
  CompileCache cache({.dir = dir.path});
  std::string other = kWeights;
  other.replace(other.find("[1.0, 2.0, 3.0, 4.0]"), 20, "[4.0, 3.0, 2.0, 1.0]");
  Loaded a = load({.bytes = kWeights, .options = hoisting(16), .cache = &cache});
  Loaded b = load({.bytes = other, .options = hoisting(16), .cache = &cache});
  Loaded b_warm = load({.bytes = other, .options = hoisting(16), .cache = &cache});
  EXPECT_FALSE(b_warm.read);
  EXPECT_EQ(run_on(a, {1, 1, 1, 1}), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(run_on(b, {1, 1, 1, 1}), (std::vector<float>{5, 4, 3, 2}));
  EXPECT_EQ(run_on(b_warm, {1, 1, 1, 1}), (std::vector<float>{5, 4, 3, 2}));
}

TEST(HoistConstants, ADamagedOrRemovedRecordOfTheConstantsIsAMiss) {
  CacheDir dir("damaged");
  CompileCache cache({.dir = dir.path});
  load({.bytes = kWeights, .options = hoisting(16), .cache = &cache});
  std::string record = constants_record(dir.path);
  ASSERT_FALSE(record.empty());
  auto damage = [&](const std::function<void(std::string&)>& how) {
    std::ifstream in(record, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), {});
    in.close();
    how(data);
    std::ofstream(record, std::ios::binary | std::ios::trunc) << data;
  };
  std::vector<std::function<void()>> faults = {
      [&] { damage([](std::string& d) { d[d.size() - 3] ^= 0x40; }); },  // a weight's bits
      [&] { damage([](std::string& d) { d.resize(d.size() - 4); }); },   // truncated
      [&] { damage([](std::string& d) { d.clear(); }); },                // empty
      [&] { fs::remove(record); },                                       // gone
  };
  for (std::size_t i = 0; i < faults.size(); ++i) {
    faults[i]();
    Loaded l = load({.bytes = kWeights, .options = hoisting(16), .cache = &cache});
    EXPECT_TRUE(l.read) << "fault " << i;  // read, prepared and compiled again
    EXPECT_EQ(run_on(l, {0.5f, -1, 2, 0}), (std::vector<float>{1.5f, -1, 7, 1})) << i;
    record = constants_record(dir.path);  // written again
    ASSERT_FALSE(record.empty()) << i;
    Loaded again = load({.bytes = kWeights, .options = hoisting(16), .cache = &cache});
    EXPECT_FALSE(again.read) << i;
    EXPECT_EQ(run_on(again, {1, 1, 1, 1}), (std::vector<float>{2, 3, 4, 5})) << i;
  }
}

TEST(HoistConstants, ADonatedArgumentIsStillDonatedAndTheWeightsStay) {
  CacheDir dir("donated");
  CompileCache cache({.dir = dir.path});
  for (int round = 0; round < 2; ++round) {  // cold, then warm from the record
    Loaded l = load({.bytes = kDonated, .options = hoisting(16), .cache = &cache});
    EXPECT_EQ(l.read, round == 0);
    EXPECT_EQ(l.facts.hoisted_constants, 1);
    for (int call = 0; call < 2; ++call) {
      Buffer x = l.client.buffer_from_host(Array::from<float>({4}, {2, 2, -1, 0.5f}));
      std::vector<Buffer> out = l.executable.execute({&x});
      EXPECT_TRUE(x.is_deleted());  // donated to the result
      EXPECT_EQ(out.at(0).to_host().to_vector<float>(), (std::vector<float>{2, 4, -3, 2}));
    }
    Buffer kept = l.client.buffer_from_host(Array::from<float>({4}, {1, 1, 1, 1}));
    std::vector<Buffer> out = l.executable.execute({&kept}, ExecuteOptions::keeping_inputs(1));
    EXPECT_FALSE(kept.is_deleted());
    EXPECT_EQ(out.at(0).to_host().to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  }
}

}  // namespace
}  // namespace hhlo
