// The values of the Open Inference Protocol (KServe v2, "Inference" and "Model Metadata"
// sections; Triton speaks the same): tensors by name with the protocol's datatype names, an
// inference request and its response, a model's metadata, and the errors a server answers with.
// The transports (hhlo/serve/http_server.h) and the server core (hhlo/serve/server.h) share
// these; nothing here knows HTTP or gRPC.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/core/error.h"

namespace hhlo::serve {

/// The protocol's name of `dtype` (KServe v2 "Tensor Data Types"): BOOL, UINT8..UINT64,
/// INT8..INT64, FP16, BF16, FP32, FP64; nullopt for complex types, which the protocol has no
/// name for (a model with a complex input or output is refused at load).
std::optional<std::string_view> datatype_name(DType dtype);

/// The DType of the protocol's `datatype` name, or nullopt for a name we hold no tensors of
/// (BYTES, an unknown name).
std::optional<DType> dtype_of_datatype(std::string_view datatype);

/// Bounds on what one request may hold, beyond the transport's bound on its size.
struct DecodeLimits {
  /// Nesting depth of a JSON body (objects and arrays; a tensor's nested data counts).
  int max_json_depth = 64;
  /// Numbers and booleans in a JSON body, or typed contents of a gRPC request, all tensors
  /// together (a JSON tensor costs about 16 bytes of memory per element while it is decoded).
  std::size_t max_json_values = std::size_t{1} << 23;
  /// Rank of an input.
  int max_rank = 32;
  /// Inputs and requested outputs of one request, each.
  std::size_t max_tensors = 1024;
  /// Bytes a compressed request body (HTTP `Content-Encoding: gzip` or `deflate`) may inflate
  /// to (Triton's HTTP default body limit).
  std::size_t max_inflated_bytes = std::size_t{64} << 20;
};

/// `body` inflated from `encoding` ("gzip": RFC 1952, "deflate": the zlib format of RFC 1950,
/// as HTTP and tritonclient mean it; "" or "identity": as it is). Throws ServeError
/// (invalid_argument) for another encoding, a body that does not inflate (truncated, corrupt,
/// trailing bytes), or one inflating past `limit` bytes (a zip bomb is stopped there).
std::string inflated_body(std::string_view body, std::string_view encoding, std::size_t limit);

/// `body` compressed as `encoding` ("gzip": RFC 1952, "deflate": the zlib format of RFC 1950, as
/// inflated_body reads them), at zlib's default level. Throws ServeError (internal) for another
/// encoding or a zlib failure.
std::string deflated_body(std::string_view body, std::string_view encoding);

/// The encoding to answer with for HTTP `Accept-Encoding` header `accept` (RFC 9110 12.5.3):
/// "gzip" or "deflate", the first of them the header lists without `q=0`, as tritonclient's
/// `response_compression_algorithm` asks; "" (identity) when it lists neither. Never throws.
std::string_view response_encoding(std::string_view accept);

/// The type of input `name` of a request, given its protocol `datatype` and `shape`, checked:
/// a datatype we serve, a rank within `limits`, no negative dimension, an element count and a
/// byte size below 2^63. Throws ServeError (invalid_argument, declared below) naming the input
/// and the cause. Both transports decode inputs through it.
TensorType request_tensor_type(const std::string& name, std::string_view datatype,
                               const std::vector<int64_t>& shape, const DecodeLimits& limits);

/// How a request failed, as the protocol's transports map it: HTTP 400 / gRPC INVALID_ARGUMENT,
/// 404 / NOT_FOUND, 503 / UNAVAILABLE, 500 / INTERNAL (Triton's mapping).
enum class Status { invalid_argument, not_found, unavailable, internal };

/// The HTTP status code of `status`: 400, 404, 503, 500.
int http_status(Status status);

/// An error a server answers a request with: hhlo::Error with the Status the transport maps
/// it to. Its what() is the protocol's `{"error": ...}` text and names the cause.
class ServeError : public Error {
 public:
  ServeError(Status status, const std::string& message) : Error(message), status_(status) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

/// Whether the client of a request has gone away or cancelled it: asked just before the request
/// runs (a request it answers true for is dropped unrun). Empty: never. Called on an executor
/// thread; must be thread-safe and quick.
using Cancelled = std::function<bool()>;

/// One named tensor of a request or a response.
struct NamedTensor {
  std::string name;
  Array tensor;
};

/// An output a request asks for ("outputs" of the request JSON).
struct RequestedOutput {
  std::string name;
  /// The binary tensor data extension's `binary_data` parameter: the output's data travels
  /// as raw bytes after the JSON, not as a JSON array.
  bool binary = false;
};

/// An inference request (KServe v2 "Inference Request JSON Object"), decoded.
struct InferRequest {
  /// The request's `id`, echoed in the response ("" when it has none).
  std::string id;
  /// Its inputs, each a host array of the datatype and shape the request gave.
  std::vector<NamedTensor> inputs;
  /// The outputs asked for, in the order asked; empty: every output of the model.
  std::vector<RequestedOutput> outputs;
  /// `parameters.binary_data_output`: every output not named in `outputs` travels binary.
  bool binary_data_output = false;
  /// `parameters.timeout` (Triton's, microseconds): a request still queued when it passes is
  /// dropped with 503; nullopt: the model's default.
  std::optional<int64_t> timeout_us;
  /// `parameters.priority` (Triton's; 0: the default level). Read and checked; every request
  /// of a model is served in arrival order.
  int64_t priority = 0;
};

/// An inference response (KServe v2 "Inference Response JSON Object").
struct InferResponse {
  std::string model_name;
  std::string model_version;
  /// The request's id.
  std::string id;
  /// The outputs, in the order the request asked for them (else the model's order).
  std::vector<NamedTensor> outputs;
};

/// An input or output of a model as metadata names it (KServe v2 "Tensor Metadata JSON
/// Object"): its name, datatype and shape, -1 for a dimension any size fills.
struct TensorMetadata {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
};

/// A model's metadata (KServe v2 "Model Metadata Response JSON Object").
struct ModelMetadata {
  std::string name;
  /// The versions the server has of it, as strings ("1", "2").
  std::vector<std::string> versions;
  /// The model's platform name: "hhlo_jax_export" for a serialized `jax.export` artifact,
  /// "hhlo_stablehlo" for StableHLO text or bytecode.
  std::string platform;
  std::vector<TensorMetadata> inputs, outputs;
};

}  // namespace hhlo::serve
