// XLA options through CompileOptionsProto.env_option_overrides, and the plugin facts behind the
// defaults: XLA:CPU's fast min/max drops NaN; a constant unsigned start index is misread. The
// programs here are raw MLIR text, compiled without the builder, so each test pins what the
// plugin itself does (docs/facts.md).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime_util.h"

namespace hhlo {
namespace {

const std::string kBuildOptions =  // executable_build_options, as jaxlib 0.10.2 writes them
    std::string("\x1a\x0f\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x20\x01\x28\x01", 17);

TEST(CompileOptions, SerializesXlaOptionsAsTheEnvOptionOverridesJaxlibWrites) {
  // jaxlib 0.10.2, CompileOptions() with env_option_overrides = [('a_dbl', 0.5), ('a_str', 'hi'),
  // ('an_int', 7), ('xla_cpu_enable_fast_min_max', False)], then [('b', True), ('n', -3)]:
  // SerializeAsString() ends with these field-7 map entries, in key order.
  std::string s = serialize_compile_options({.xla_options = {{"xla_cpu_enable_fast_min_max", false},
                                                             {"an_int", int64_t{7}},
                                                             {"a_str", std::string("hi")},
                                                             {"a_dbl", 0.5}}});
  std::string want = kBuildOptions +
                     std::string(
                         "\x3a\x12\x0a\x05"
                         "a_dbl"
                         "\x12\x09\x21\0\0\0\0\0\0\xe0\x3f",
                         20) +
                     std::string(
                         "\x3a\x0d\x0a\x05"
                         "a_str"
                         "\x12\x04\x0a\x02"
                         "hi",
                         15) +
                     std::string(
                         "\x3a\x0c\x0a\x06"
                         "an_int"
                         "\x12\x02\x18\x07",
                         14) +
                     std::string(
                         "\x3a\x21\x0a\x1b"
                         "xla_cpu_enable_fast_min_max"
                         "\x12\x02\x10\x00",
                         35);
  EXPECT_EQ(s, want);
  std::string t = serialize_compile_options({.xla_options = {{"b", true}, {"n", int64_t{-3}}}});
  EXPECT_EQ(t, kBuildOptions +
                   std::string("\x3a\x07\x0a\x01"
                               "b"
                               "\x12\x02\x10\x01",
                               9) +
                   std::string("\x3a\x10\x0a\x01"
                               "n"
                               "\x12\x0b\x18\xfd\xff\xff\xff\xff\xff\xff\xff\xff\x01",
                               18));
  // The default: IEEE max/min, nothing else.
  EXPECT_EQ(serialize_compile_options({}), kBuildOptions + std::string("\x3a\x21\x0a\x1b"
                                                                       "xla_cpu_enable_fast_min_max"
                                                                       "\x12\x02\x10\x00",
                                                                       35));
  EXPECT_EQ(serialize_compile_options({.xla_options = {}}), kBuildOptions);
  EXPECT_THROW(serialize_compile_options({.xla_options = {{"", true}}}), Error);
}

TEST(CompileOptions, XlaOptionValuesTakeTheTypeOfTheLiteral) {
  CompileOptions o;
  o.xla_options["s"] = "text";  // a string, not a bool
  o.xla_options["i"] = 7;       // an int64, not a bool or a double
  o.xla_options["d"] = 0.5;
  o.xla_options["b"] = true;
  EXPECT_TRUE(std::holds_alternative<std::string>(o.xla_options["s"]));
  EXPECT_TRUE(std::holds_alternative<int64_t>(o.xla_options["i"]));
  EXPECT_TRUE(std::holds_alternative<double>(o.xla_options["d"]));
  EXPECT_TRUE(std::holds_alternative<bool>(o.xla_options["b"]));
}

TEST(CompileOptions, ParsesOptionValuesFromText) {
  EXPECT_EQ(parse_xla_option_value("true"), XlaOptionValue(true));
  EXPECT_EQ(parse_xla_option_value("false"), XlaOptionValue(false));
  EXPECT_EQ(parse_xla_option_value("42"), XlaOptionValue(int64_t{42}));
  EXPECT_EQ(parse_xla_option_value("-7"), XlaOptionValue(int64_t{-7}));
  EXPECT_EQ(parse_xla_option_value("+3"), XlaOptionValue(int64_t{3}));
  EXPECT_EQ(parse_xla_option_value("0.25"), XlaOptionValue(0.25));
  EXPECT_EQ(parse_xla_option_value("1e3"), XlaOptionValue(1000.0));
  EXPECT_EQ(parse_xla_option_value("True"), XlaOptionValue(std::string("True")));
  EXPECT_EQ(parse_xla_option_value("12abc"), XlaOptionValue(std::string("12abc")));
  EXPECT_EQ(parse_xla_option_value("e"), XlaOptionValue(std::string("e")));
  EXPECT_EQ(parse_xla_option_value(""), XlaOptionValue(std::string("")));
  EXPECT_EQ(parse_xla_option_value("/tmp/dump"), XlaOptionValue(std::string("/tmp/dump")));
}

constexpr char kReduceMax[] = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<f32> {
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = stablehlo.reduce(%x init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
)";

constexpr char kMaximum[] = R"(
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %r = stablehlo.maximum %a, %b : tensor<f32>
  return %r : tensor<f32>
}
)";

float reduce_max_of_nan_and_one(const CompileOptions& o) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  return test::run(test::compile(kReduceMax, o), {Array::from<float>({2}, {nan, 1})})[0]
      .to_vector<float>()[0];
}

float maximum_of_five_and_nan(const CompileOptions& o) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  return test::run(test::compile(kMaximum, o),
                   {Array::scalar<float>(5), Array::scalar<float>(nan)})[0]
      .to_vector<float>()[0];
}

// Plugin fact (xla-cpu-pjrt 0.0.1 and the 0.115 plugin): XLA:CPU's default
// xla_cpu_enable_fast_min_max = true drops a NaN operand of maximum when the values are only known
// at run time (parameters): reduce-max of [NaN, 1] is 1 and maximum(5, NaN) is 5. The spec's
// maximum propagates NaN. Turning the option back on through xla_options, or sending no options,
// reproduces it; our default (false) gives NaN.
TEST(XlaOptions, FastMinMaxIsThePluginDefaultAndDropsNaN) {
  CompileOptions fast;
  fast.xla_options["xla_cpu_enable_fast_min_max"] = true;
  EXPECT_EQ(reduce_max_of_nan_and_one(fast), 1.0f);
  EXPECT_EQ(maximum_of_five_and_nan(fast), 5.0f);
  CompileOptions plugin_defaults;
  plugin_defaults.xla_options.clear();
  EXPECT_EQ(reduce_max_of_nan_and_one(plugin_defaults), 1.0f);
  EXPECT_EQ(maximum_of_five_and_nan(plugin_defaults), 5.0f);
}

TEST(XlaOptions, DefaultCompileOptionsGiveIeeeMaxMin) {
  EXPECT_TRUE(std::isnan(reduce_max_of_nan_and_one({})));
  EXPECT_TRUE(std::isnan(maximum_of_five_and_nan({})));
}

TEST(XlaOptions, UnknownOrMistypedOptionIsAPjrtErrorNamingIt) {
  CompileOptions unknown;
  unknown.xla_options["no_such_option"] = true;
  try {
    test::compile(kMaximum, unknown);
    FAIL() << "compiled";
  } catch (const PjrtError& e) {
    EXPECT_NE(std::string(e.what()).find("No such compile option: 'no_such_option'"),
              std::string::npos)
        << e.what();
  }
  CompileOptions mistyped;
  mistyped.xla_options["xla_cpu_enable_fast_min_max"] = int64_t{7};
  try {
    test::compile(kMaximum, mistyped);
    FAIL() << "compiled";
  } catch (const PjrtError& e) {
    EXPECT_NE(std::string(e.what()).find("xla_cpu_enable_fast_min_max"), std::string::npos)
        << e.what();
  }
}

std::vector<int32_t> iota200() {
  std::vector<int32_t> v(200);
  for (int32_t i = 0; i < 200; ++i) v[i] = i;
  return v;
}

// Plugin fact: constant unsigned start indices are misread as if signed. dynamic_slice(iota(200),
// constant ui8 128, sizes = [1]) gives [0] where the spec says [128] (any unsigned value of
// 2^(bits-1) or more: ui8 250, ui16 65535, ui32 2^32-1 and ui64 2^63+5 too, where the spec clamps
// to [199]); dynamic_update_slice and gather do it for ui64 2^63+5 (start 0 instead of 199) but
// read ui8 128 and 250 right. The same index as a parameter is right. The builder converts
// unsigned start indices to signed ones (src/ir/ops/start_indices.h).
TEST(PluginFacts, ConstantUnsignedStartIndexIsMisread) {
  LoadedExecutable constant = test::compile(R"(
func.func @main() -> tensor<1xi32> {
  %x = stablehlo.iota dim = 0 : tensor<200xi32>
  %i = stablehlo.constant dense<128> : tensor<ui8>
  %s = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<200xi32>, tensor<ui8>) -> tensor<1xi32>
  return %s : tensor<1xi32>
}
)");
  EXPECT_EQ(test::run(constant, {})[0].to_vector<int32_t>(), (std::vector<int32_t>{0}));
  LoadedExecutable parameter = test::compile(R"(
func.func @main(%i: tensor<ui8>) -> tensor<1xi32> {
  %x = stablehlo.iota dim = 0 : tensor<200xi32>
  %s = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<200xi32>, tensor<ui8>) -> tensor<1xi32>
  return %s : tensor<1xi32>
}
)");
  EXPECT_EQ(test::run(parameter, {Array::scalar<uint8_t>(128)})[0].to_vector<int32_t>(),
            (std::vector<int32_t>{128}));

  LoadedExecutable update = test::compile(R"(
func.func @main() -> tensor<200xi32> {
  %x = stablehlo.iota dim = 0 : tensor<200xi32>
  %u = stablehlo.constant dense<[-1]> : tensor<1xi32>
  %i = stablehlo.constant dense<9223372036854775813> : tensor<ui64>
  %r = stablehlo.dynamic_update_slice %x, %u, %i : (tensor<200xi32>, tensor<1xi32>, tensor<ui64>) -> tensor<200xi32>
  return %r : tensor<200xi32>
}
)");
  std::vector<int32_t> at_zero = iota200();
  at_zero[0] = -1;  // the spec: at_199[199] = -1
  EXPECT_EQ(test::run(update, {})[0].to_vector<int32_t>(), at_zero);

  LoadedExecutable gather = test::compile(R"(
func.func @main() -> tensor<2xi32> {
  %x = stablehlo.iota dim = 0 : tensor<200xi32>
  %i = stablehlo.constant dense<[[128], [9223372036854775813]]> : tensor<2x1xui64>
  %g = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : (tensor<200xi32>, tensor<2x1xui64>) -> tensor<2xi32>
  return %g : tensor<2xi32>
}
)");
  EXPECT_EQ(test::run(gather, {})[0].to_vector<int32_t>(), (std::vector<int32_t>{128, 0}));
}

}  // namespace
}  // namespace hhlo
