// The Open Inference Protocol over HTTP/1.1 (KServe v2 REST, with Triton's binary tensor data,
// model configuration, statistics and model repository extensions) in front of a Server
// (hhlo/serve/server.h), on Boost.Beast/Asio. Every bound is a field of HttpOptions: a body or a
// header beyond its limit, a client slower than the read timeout, connections beyond the limit
// are refused or closed without holding an executor. See docs/serving.md.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "hhlo/serve/json_codec.h"
#include "hhlo/serve/server.h"

namespace hhlo::serve {

/// Where and how an HttpServer listens.
struct HttpOptions {
  /// The address to listen on; the default serves this machine only (loopback).
  std::string host = "127.0.0.1";
  /// The port (Triton's HTTP default 8000); 0 takes a free port (HttpServer::port()).
  uint16_t port = 8000;
  /// Largest request body (Triton's HTTP default, 64 MiB): a larger one is answered 413.
  std::size_t max_body_bytes = std::size_t{64} << 20;
  /// Largest request header block: a larger one is answered 431.
  std::size_t max_header_bytes = std::size_t{16} << 10;
  /// Time a connection may take to deliver one whole request, from when the server starts to
  /// wait for it (keep-alive idle time included); then it is closed.
  std::chrono::milliseconds read_timeout{30000};
  /// Time a response may take to be written to a slow client; then the connection is closed.
  std::chrono::milliseconds write_timeout{30000};
  /// Open connections at once; one more is closed as soon as it is accepted.
  std::size_t max_connections = 1024;
  /// Threads reading and writing connections (requests run on the model's executors).
  int threads = 2;
  /// Bounds on one request's JSON and tensors.
  DecodeLimits decode;
  /// Serve only GET /metrics (Prometheus text, hhlo/serve/metrics.h): the metrics port
  /// (`--metrics-port`, Triton's 8002).
  bool metrics_only = false;
};

/// An HTTP front end: listens from construction until stop() or destruction.
class HttpServer {
 public:
  /// Binds `options.host:options.port` and starts serving `server`, which must outlive this.
  /// Throws hhlo::IoError naming the address when it cannot be resolved or bound (a port in use).
  HttpServer(Server& server, const HttpOptions& options);
  /// stop() with no drain.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// The port listened on (the one chosen when HttpOptions::port was 0).
  uint16_t port() const;
  /// Stops accepting, waits up to `drain` for the replies of requests already handed to the
  /// server to be written, then closes every connection and joins the threads (a reply that
  /// comes later is dropped). Idempotent.
  void stop(std::chrono::milliseconds drain = std::chrono::milliseconds(0));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hhlo::serve
