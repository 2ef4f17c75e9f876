// The Open Inference Protocol's HTTP bodies (KServe v2 REST "Inference" section) with Triton's
// binary tensor data extension: a request body to an InferRequest and an InferResponse to a
// response body. Every size is checked before it is used: a body is decoded or refused with a
// ServeError (Status::invalid_argument) naming the cause, never read past its end.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "hhlo/serve/inference.h"

namespace hhlo::serve {

/// Decodes an inference request body. `json_size` is the `Inference-Header-Content-Length`
/// header (Triton's binary tensor data extension): the JSON is the body's first `json_size`
/// bytes and the binary data of the inputs whose `parameters.binary_data_size` is set follow
/// it, in the inputs' order; nullopt: the whole body is JSON. Tensor data in JSON may be flat
/// or nested in row-major order; BOOL takes true/false, the integer types integers in range,
/// FP16/BF16/FP32/FP64 numbers. Throws ServeError (invalid_argument) naming the cause for:
/// malformed JSON or a value of the wrong JSON type, a limit of `limits` passed, a missing or
/// unknown datatype (BYTES is not served), a negative or overflowing shape, a data count other
/// than the shape's element count, an integer out of its datatype's range, a binary size other
/// than shape × element size, binary sizes that do not add up to the bytes after the JSON,
/// `json_size` larger than the body, an input given twice, a non-integer `timeout`/`priority`.
InferRequest decode_infer_request(std::string_view body, std::optional<std::size_t> json_size,
                                  const DecodeLimits& limits = {});

/// A response body and, when some output travels binary, the length of its JSON part (the
/// `Inference-Header-Content-Length` header to send; Content-Type is then
/// application/octet-stream).
struct EncodedBody {
  std::string body;
  std::optional<std::size_t> json_size;
};

/// Encodes `response` as the protocol's response JSON. Output i travels binary (its bytes
/// after the JSON, `parameters.binary_data_size` set) when `binary[i]` is true, else as a flat
/// JSON array (BOOL as true/false, FP16/BF16 as numbers). Throws ServeError (internal) when
/// `binary` has another size than response.outputs or an output has a datatype the protocol
/// has no name for.
EncodedBody encode_infer_response(const InferResponse& response, const std::vector<bool>& binary);

/// The body `{"error": "MESSAGE"}` the protocol answers a failed request with.
std::string error_body(std::string_view message);

}  // namespace hhlo::serve
