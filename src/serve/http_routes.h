// The protocol's HTTP routes (KServe v2 REST and Triton's extensions) as functions of a request
// line, headers and body to a reply: what HttpServer (http_server.cc) calls for each request,
// apart from the sockets.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hhlo/serve/json_codec.h"
#include "hhlo/serve/server.h"

namespace hhlo::serve {

/// One HTTP request as the routes read it.
struct HttpRequestView {
  std::string_view method;  // "GET", "POST"
  std::string_view target;  // "/v2/models/m/infer?x=1"
  std::string_view body;
  /// The Inference-Header-Content-Length header's text, empty when absent.
  std::string_view json_size;
  /// The Content-Encoding header's text, empty when absent.
  std::string_view content_encoding;
  /// The Accept-Encoding header's text, empty when absent.
  std::string_view accept_encoding;
};

/// What the routes answer.
struct HttpReply {
  int status = 200;
  std::string body;
  /// The Inference-Header-Content-Length to send (the body then is JSON + binary data).
  std::optional<std::size_t> json_size;
  /// The Content-Type; "" is application/json (application/octet-stream with json_size).
  std::string content_type;
  /// The Content-Encoding of `body` ("gzip", "deflate"), "" when it is not compressed. An
  /// inference's response is compressed when the request's Accept-Encoding asks (Triton's HTTP
  /// endpoint; json_size then counts the uncompressed JSON, as tritonclient reads it).
  std::string content_encoding;
};

/// Answers `request` for `server` by calling `reply` exactly once (on this thread, or on a
/// model executor's for an inference); `cancelled` tells whether the client went away before
/// an inference ran. Never throws: every failure is a reply with the
/// protocol's status and `{"error": ...}`.
void handle_http(Server& server, const HttpRequestView& request, const DecodeLimits& limits,
                 std::function<void(HttpReply)> reply, Cancelled cancelled);

/// Answers `request` on the metrics port: GET /metrics gives prometheus_text of every model's
/// statistics (text/plain; version=0.0.4), anything else 404. Never throws.
HttpReply handle_metrics(const Server& server, const HttpRequestView& request);

}  // namespace hhlo::serve
