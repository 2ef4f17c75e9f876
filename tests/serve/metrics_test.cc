// The metrics port's text (hhlo/serve/metrics.h): Triton's metric names, labels per model and
// version, a cumulative histogram; expected lines written by hand from the statistics given.
#include "hhlo/serve/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hhlo::serve {
namespace {

using ::testing::HasSubstr;

TEST(Metrics, TritonsNamesWithModelAndVersionLabels) {
  ModelStatistics s;
  s.name = "mlp";
  s.version = "2";
  s.success_count = 3;
  s.fail_count = 1;
  s.inference_count = 3;
  s.execution_count = 2;
  s.success_ns = 1'500'000;  // 1500 us
  s.fail_ns = 500'000;
  s.queue_ns = 250'000;
  s.compute_ns = 1'000'000;
  s.pending = 4;
  s.duration_buckets.assign(request_duration_bounds_us().size() + 1, 0);
  s.duration_buckets[1] = 2;  // two requests in (100, 250] us
  s.duration_buckets[4] = 1;  // one in (1000, 2500] us
  std::string text = prometheus_text({s});
  EXPECT_THAT(text, HasSubstr("# TYPE nv_inference_request_success counter"));
  EXPECT_THAT(text, HasSubstr("nv_inference_request_success{model=\"mlp\",version=\"2\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("nv_inference_request_failure{model=\"mlp\",version=\"2\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("nv_inference_exec_count{model=\"mlp\",version=\"2\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("nv_inference_request_duration_us{model=\"mlp\",version=\"2\"} 2000\n"));
  EXPECT_THAT(text, HasSubstr("nv_inference_queue_duration_us{model=\"mlp\",version=\"2\"} 250\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE nv_inference_pending_request_count gauge"));
  EXPECT_THAT(text,
              HasSubstr("nv_inference_pending_request_count{model=\"mlp\",version=\"2\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("hhlo_inference_request_duration_us_bucket{model=\"mlp\",version="
                              "\"2\",le=\"100\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("hhlo_inference_request_duration_us_bucket{model=\"mlp\",version="
                              "\"2\",le=\"250\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("hhlo_inference_request_duration_us_bucket{model=\"mlp\",version="
                              "\"2\",le=\"2500\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("hhlo_inference_request_duration_us_bucket{model=\"mlp\",version="
                              "\"2\",le=\"+Inf\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("hhlo_inference_request_duration_us_count{model=\"mlp\",version="
                              "\"2\"} 3\n"));
}

}  // namespace
}  // namespace hhlo::serve
