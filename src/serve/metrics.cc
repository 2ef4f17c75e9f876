// The server's statistics in Prometheus' text format (hhlo/serve/metrics.h).
#include "hhlo/serve/metrics.h"

#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <functional>
#include <sstream>

namespace hhlo::serve {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

ClientMetric labelled(const ModelStatistics& s) {
  ClientMetric m;
  m.label = {{"model", s.name}, {"version", s.version}};
  return m;
}

/// A family with one metric per model version, `value` of each.
MetricFamily family(const std::string& name, const std::string& help, MetricType type,
                    const std::vector<ModelStatistics>& stats,
                    const std::function<double(const ModelStatistics&)>& value) {
  MetricFamily f{name, help, type, {}};
  for (const ModelStatistics& s : stats) {
    ClientMetric m = labelled(s);
    if (type == MetricType::Gauge)
      m.gauge.value = value(s);
    else
      m.counter.value = value(s);
    f.metric.push_back(std::move(m));
  }
  return f;
}

MetricFamily duration_histogram(const std::vector<ModelStatistics>& stats) {
  MetricFamily f{"hhlo_inference_request_duration_us",
                 "Time of successful requests from arrival to answer (microseconds)",
                 MetricType::Histogram,
                 {}};
  const std::vector<double>& bounds = request_duration_bounds_us();
  for (const ModelStatistics& s : stats) {
    ClientMetric m = labelled(s);
    uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= bounds.size(); ++i) {
      cumulative += i < s.duration_buckets.size() ? s.duration_buckets[i] : 0;
      double bound = i < bounds.size() ? bounds[i] : std::numeric_limits<double>::infinity();
      m.histogram.bucket.push_back({cumulative, bound});
    }
    m.histogram.sample_count = cumulative;
    m.histogram.sample_sum = double(s.success_ns) / 1000;
    f.metric.push_back(std::move(m));
  }
  return f;
}

}  // namespace

std::string prometheus_text(const std::vector<ModelStatistics>& stats) {
  auto us = [](uint64_t ns) { return double(ns) / 1000; };
  std::vector<MetricFamily> families = {
      family("nv_inference_request_success", "Number of successful inference requests",
             MetricType::Counter, stats, [](const auto& s) { return double(s.success_count); }),
      family("nv_inference_request_failure", "Number of failed inference requests",
             MetricType::Counter, stats, [](const auto& s) { return double(s.fail_count); }),
      family("nv_inference_count", "Number of inferences performed", MetricType::Counter, stats,
             [](const auto& s) { return double(s.inference_count); }),
      family("nv_inference_exec_count", "Number of model executions (one per batch)",
             MetricType::Counter, stats, [](const auto& s) { return double(s.execution_count); }),
      family("nv_inference_request_duration_us",
             "Cumulative inference request duration in microseconds", MetricType::Counter, stats,
             [&](const auto& s) { return us(s.success_ns + s.fail_ns); }),
      family("nv_inference_queue_duration_us",
             "Cumulative inference queuing duration in microseconds", MetricType::Counter, stats,
             [&](const auto& s) { return us(s.queue_ns); }),
      family("nv_inference_compute_infer_duration_us",
             "Cumulative compute inference duration in microseconds", MetricType::Counter, stats,
             [&](const auto& s) { return us(s.compute_ns); }),
      family("nv_inference_pending_request_count", "Requests queued or running now",
             MetricType::Gauge, stats, [](const auto& s) { return double(s.pending); }),
      duration_histogram(stats)};
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace hhlo::serve
