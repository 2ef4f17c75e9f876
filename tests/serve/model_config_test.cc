// A model's config.pbtxt (hhlo/serve/model_config.h): Triton's fields read in protobuf text
// format, the server's defaults overridden, and every field hhlo serve does not honour refused
// naming it and its line.
#include "hhlo/serve/model_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace hhlo::serve {
namespace {

namespace fs = std::filesystem;

/// Writes `text` to a fresh config.pbtxt and returns its path.
std::string config_file(const std::string& text) {
  static int n = 0;
  fs::path dir = fs::temp_directory_path() /
                 ("hhlo_model_config_" + std::to_string(getpid()) + "_" + std::to_string(n++));
  fs::create_directories(dir);
  std::ofstream(dir / "config.pbtxt") << text;
  return (dir / "config.pbtxt").string();
}

std::string refusal(const std::string& text, const std::string& model = "mlp") {
  try {
    read_model_config(config_file(text), model, {});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelConfig, TritonsFieldsOverrideTheDefaults) {
  ModelSettings defaults;
  defaults.max_queue_size = 7;
  ModelSettings s = read_model_config(config_file(R"(
name: "mlp"
backend: "hhlo"
max_batch_size: 32
input [ { name: "args[0]" data_type: TYPE_FP32 dims: [ 3 ] } ]
output [ { name: "result" data_type: TYPE_INT64 dims: [ -1 ] } ]
dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
  max_queue_delay_microseconds: 250
  default_queue_policy { max_queue_size: 9 default_timeout_microseconds: 5000
                         allow_timeout_override: false }
}
instance_group [ { count: 2 kind: KIND_CPU }, { count: 1 } ]
version_policy { specific { versions: [ 3 ] } }
)"),
                                      "mlp", defaults);
  EXPECT_EQ(s.batching.max_batch_size, 32);
  EXPECT_EQ(s.batching.preferred_batch_sizes, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(s.batching.max_queue_delay.count(), 250);
  EXPECT_TRUE(s.dynamic_batching);
  EXPECT_EQ(s.max_queue_size, 9u);
  EXPECT_EQ(s.default_timeout.count(), 5000);
  EXPECT_FALSE(s.allow_timeout_override);
  EXPECT_EQ(s.instances, 3);
  EXPECT_EQ(s.version, 3);
  ASSERT_EQ(s.tensors.size(), 2u);
  EXPECT_EQ(s.tensors[0].name, "args[0]");
  EXPECT_EQ(s.tensors[0].dtype, DType::f32);
  EXPECT_EQ(s.tensors[1].dims, (std::vector<int64_t>{-1}));
  EXPECT_FALSE(s.tensors[1].is_input);
}

TEST(ModelConfig, WithoutDynamicBatchingRequestsAreNotStacked) {
  ModelSettings s = read_model_config(config_file("max_batch_size: 8\n"), "mlp", {});
  EXPECT_EQ(s.batching.max_batch_size, 8);
  EXPECT_FALSE(s.dynamic_batching);
  EXPECT_EQ(s.max_queue_size, ModelSettings{}.max_queue_size);  // 0 in the config: the default
}

TEST(ModelConfig, FieldsNotHonouredAreRefusedNamingThemAndTheirLine) {
  std::string e = refusal("name: \"mlp\"\noptimization { priority: PRIORITY_MAX }\n");
  EXPECT_NE(e.find("config.pbtxt:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("optimization"), std::string::npos) << e;
  EXPECT_NE(e.find("hhlo serve honours"), std::string::npos) << e;
  EXPECT_NE(refusal("model_warmup [ { name: \"w\" } ]").find("model_warmup"), std::string::npos);
  EXPECT_NE(refusal("dynamic_batching { preserve_ordering: true }").find("preserve_ordering"),
            std::string::npos);
  EXPECT_NE(refusal("max_batch_size: 4 dims: [1]").find("dims"), std::string::npos);
  EXPECT_NE(refusal("max_batch_size: \"four\"").find("max_batch_size"), std::string::npos);
}

TEST(ModelConfig, ValuesItCannotServeAreRefused) {
  EXPECT_NE(refusal("name: \"other\"").find("differs from the model's folder \"mlp\""),
            std::string::npos);
  EXPECT_NE(refusal("platform: \"onnxruntime_onnx\"").find("is not hhlo's"), std::string::npos);
  EXPECT_NE(refusal("dynamic_batching { }").find("needs max_batch_size > 0"), std::string::npos);
  EXPECT_NE(refusal("max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 8 ] }")
                .find("preferred_batch_size 8 is outside 1..4"),
            std::string::npos);
  EXPECT_NE(refusal("instance_group [ { count: 1 kind: KIND_GPU } ]").find("KIND_GPU"),
            std::string::npos);
  EXPECT_NE(refusal("version_policy { latest { num_versions: 2 } }").find("one version per model"),
            std::string::npos);
  EXPECT_NE(refusal("input [ { name: \"s\" data_type: TYPE_STRING } ]").find("TYPE_STRING"),
            std::string::npos);
  EXPECT_NE(refusal("max_batch_size: -1").find("negative"), std::string::npos);
}

TEST(ModelConfig, ListedTensorsAreCheckedAgainstTheProgram) {
  ModelMetadata m{
      "mlp", {"1"}, "hhlo_jax_export", {{"x", DType::f32, {-1, 3}}}, {{"y", DType::f32, {-1, 2}}}};
  ModelSettings ok;
  ok.tensors = {{"x", DType::f32, {3}, true}, {"y", DType::f32, {-1}, false}};
  EXPECT_NO_THROW(check_config_tensors(ok, m, true, "c.pbtxt"));
  ModelSettings wrong;
  wrong.tensors = {{"x", DType::f64, {3}, true}};
  try {
    check_config_tensors(wrong, m, true, "c.pbtxt");
    FAIL() << "a wrong datatype passed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input \"x\" is FP64[3]; the program's is FP32[3]"),
              std::string::npos)
        << e.what();
  }
  ModelSettings unknown;
  unknown.tensors = {{"z", DType::f32, {3}, false}};
  EXPECT_THROW(check_config_tensors(unknown, m, true, "c.pbtxt"), Error);
  ModelSettings unbatched;  // without batching the dims include the first
  unbatched.tensors = {{"x", DType::f32, {-1, 3}, true}};
  EXPECT_NO_THROW(check_config_tensors(unbatched, m, false, "c.pbtxt"));
}

}  // namespace
}  // namespace hhlo::serve
