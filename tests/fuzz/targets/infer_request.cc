// Fuzz target: the Open Inference Protocol's request decoder (hhlo/serve/json_codec.h
// decode_infer_request), JSON and Triton's binary tensor data. Properties: a body decodes or is
// refused with a ServeError of Status::invalid_argument, never another exception; a decoded
// request's tensors hold exactly their shape's bytes, no input name twice, no output name twice.
//
// Input: the first byte chooses whether the body carries binary data; if so the next two bytes
// (little-endian) are the length of its JSON part, clamped to the body; the rest is the body.
#include <algorithm>
#include <exception>
#include <set>
#include <string>
#include <string_view>

#include "fuzz.h"
#include "hhlo/serve/json_codec.h"

namespace hhlo::fuzz {

int infer_request(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  bool binary = data[0] & 1;
  std::size_t json_size = std::size_t(data[1]) | std::size_t(data[2]) << 8;
  std::string_view body(reinterpret_cast<const char*>(data + 3), size - 3);
  std::optional<std::size_t> header;
  if (binary) header = std::min(json_size, body.size());
  serve::DecodeLimits limits;
  limits.max_json_values = 1 << 12;  // small, so that the fuzzer reaches the bound
  try {
    serve::InferRequest r = serve::decode_infer_request(body, header, limits);
    std::set<std::string> names;
    for (const serve::NamedTensor& in : r.inputs) {
      if (!names.insert(in.name).second) fuzz_fail("infer_request", "an input decoded twice");
      if (in.tensor.byte_size() !=
          std::size_t(in.tensor.num_elements()) * byte_size(in.tensor.dtype()))
        fuzz_fail("infer_request", "a tensor's bytes differ from its shape's");
    }
    names.clear();
    for (const serve::RequestedOutput& o : r.outputs)
      if (!names.insert(o.name).second) fuzz_fail("infer_request", "an output asked for twice");
  } catch (const serve::ServeError& e) {
    if (e.status() != serve::Status::invalid_argument)
      fuzz_fail("infer_request", "a malformed body is not an invalid argument");
  } catch (const std::exception& e) {
    fuzz_fail("infer_request", std::string("escaped: ") + e.what());
  }
  return 0;
}

}  // namespace hhlo::fuzz
