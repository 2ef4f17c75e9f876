// The protocol's gRPC methods (inference.GRPCInferenceService and grpc.health.v1.Health) as
// functions of a method path and a serialized request message to a reply: what GrpcServer
// (grpc_server.cc) calls for each call, apart from HTTP/2.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hhlo/serve/inference.h"
#include "hhlo/serve/server.h"

namespace hhlo::serve {

/// gRPC's status codes this server answers with (grpc/status.h).
enum class GrpcCode : int {
  ok = 0,
  cancelled = 1,
  invalid_argument = 3,
  deadline_exceeded = 4,
  not_found = 5,
  resource_exhausted = 8,
  unimplemented = 12,
  internal = 13,
  unavailable = 14,
};

/// The gRPC code of `status` (Triton's mapping).
GrpcCode grpc_code(Status status);

/// What a method answers: the serialized response message (code ok) or the error.
struct GrpcReply {
  GrpcCode code = GrpcCode::ok;
  std::string message;  // the error, for grpc-message
  std::string body;     // the serialized response
};

/// Answers the call of `method` ("/inference.GRPCInferenceService/ModelInfer") with the
/// serialized request `request` by calling `reply` exactly once (on this thread, or on a model
/// executor's for an inference). `timeout_us` is the call's grpc-timeout, used as the request's
/// timeout when it gives none. Never throws.
void handle_grpc(Server& server, std::string_view method, std::string_view request,
                 std::optional<int64_t> timeout_us, const DecodeLimits& limits,
                 std::function<void(GrpcReply)> reply,
                 std::shared_ptr<const std::atomic<bool>> cancelled);

}  // namespace hhlo::serve
