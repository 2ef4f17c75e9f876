// The Open Inference Protocol over gRPC (KServe v2 "GRPC": inference.GRPCInferenceService, with
// Triton's ModelConfig, ModelStatistics and repository calls) and gRPC's health checking
// (grpc.health.v1.Health/Check) in front of a Server (hhlo/serve/server.h). HTTP/2 is Debian's
// nghttp2 (kept up with security fixes), messages Debian's protobuf against our own
// declarations (src/serve/proto), gRPC's framing and status trailers ours (gRPC's
// doc/PROTOCOL-HTTP2.md): not gRPC C++, whose Debian 12 build (1.51.1) carries remote
// denial-of-service flaws fixed upstream since (docs/facts.md, "gRPC"). Every bound is a field of
// GrpcOptions. See docs/serving.md.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "hhlo/serve/inference.h"
#include "hhlo/serve/server.h"

namespace hhlo::serve {

/// Where and how a GrpcServer listens.
struct GrpcOptions {
  /// The address to listen on; the default serves this machine only (loopback).
  std::string host = "127.0.0.1";
  /// The port (Triton's gRPC default 8001); 0 takes a free port (GrpcServer::port()).
  uint16_t port = 8001;
  /// Largest request message (gRPC's length prefix): a larger one is refused with
  /// RESOURCE_EXHAUSTED before it is read.
  std::size_t max_message_bytes = std::size_t{64} << 20;
  /// Largest header block of one call (names and values together): the call is refused.
  std::size_t max_header_bytes = std::size_t{16} << 10;
  /// Calls open at once on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS).
  uint32_t max_concurrent_streams = 128;
  /// A connection that sends nothing for this long, or whose client does not read what is
  /// written for this long, is closed.
  std::chrono::milliseconds idle_timeout{300000};
  /// Open connections at once; one more is closed as soon as it is accepted.
  std::size_t max_connections = 1024;
  /// Threads running connections (requests run on the model's executors).
  int threads = 2;
  /// Bounds on one request's tensors.
  DecodeLimits decode;
};

/// A gRPC front end: listens from construction until stop() or destruction.
class GrpcServer {
 public:
  /// Binds `options.host:options.port` and starts serving `server`, which must outlive this.
  /// Throws hhlo::IoError naming the address when it cannot be resolved or bound.
  GrpcServer(Server& server, const GrpcOptions& options);
  /// stop() with no drain.
  ~GrpcServer();
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  /// The port listened on (the one chosen when GrpcOptions::port was 0).
  uint16_t port() const;
  /// Stops accepting, waits up to `drain` for the replies of calls already handed to the
  /// server to be written, then closes every connection and joins the threads. Idempotent.
  void stop(std::chrono::milliseconds drain = std::chrono::milliseconds(0));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hhlo::serve
