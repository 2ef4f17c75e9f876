// The server's statistics in Prometheus' text exposition format (version 0.0.4), with Triton's
// metric names, served on the metrics port (`hhlo serve --metrics-port`, Triton's 8002) at
// `/metrics`. Written by prometheus-cpp's serializer from a snapshot of Server::statistics: one
// source of truth for the protocol's statistics and the metrics.
#pragma once
#include <string>
#include <vector>

#include "hhlo/serve/server.h"

namespace hhlo::serve {

/// The metrics of `stats` (one entry per model version), each labelled `model` and `version`:
/// counters nv_inference_request_success, nv_inference_request_failure, nv_inference_count,
/// nv_inference_exec_count, nv_inference_request_duration_us, nv_inference_queue_duration_us,
/// nv_inference_compute_infer_duration_us (cumulative microseconds, as Triton's), the gauge
/// nv_inference_pending_request_count, and the histogram
/// hhlo_inference_request_duration_us (request_duration_bounds_us()). Never throws but
/// std::bad_alloc.
std::string prometheus_text(const std::vector<ModelStatistics>& stats);

}  // namespace hhlo::serve
