// The Open Inference Protocol's datatype names and status mapping (hhlo/serve/inference.h).
#include "hhlo/serve/inference.h"

#include <zlib.h>

#include <array>
#include <utility>

namespace hhlo::serve {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 13> kDatatypes{{
    {DType::pred, "BOOL"},
    {DType::ui8, "UINT8"},
    {DType::ui16, "UINT16"},
    {DType::ui32, "UINT32"},
    {DType::ui64, "UINT64"},
    {DType::i8, "INT8"},
    {DType::i16, "INT16"},
    {DType::i32, "INT32"},
    {DType::i64, "INT64"},
    {DType::f16, "FP16"},
    {DType::bf16, "BF16"},
    {DType::f32, "FP32"},
    {DType::f64, "FP64"},
}};

}  // namespace

std::optional<std::string_view> datatype_name(DType dtype) {
  for (const auto& [d, name] : kDatatypes)
    if (d == dtype) return name;
  return std::nullopt;
}

std::optional<DType> dtype_of_datatype(std::string_view datatype) {
  for (const auto& [d, name] : kDatatypes)
    if (name == datatype) return d;
  return std::nullopt;
}

TensorType request_tensor_type(const std::string& name, std::string_view datatype,
                               const std::vector<int64_t>& shape, const DecodeLimits& limits) {
  std::string where = "input \"" + name + "\"";
  auto invalid = [](const std::string& m) { throw ServeError(Status::invalid_argument, m); };
  std::optional<DType> dtype = dtype_of_datatype(datatype);
  if (!dtype)
    invalid(where + " has datatype \"" + std::string(datatype) +
            "\", which this server does not serve (BOOL, UINT8-64, INT8-64, FP16, BF16, FP32, "
            "FP64)");
  if (shape.size() > std::size_t(limits.max_rank))
    invalid(where + " has rank " + std::to_string(shape.size()) + ", above the limit of " +
            std::to_string(limits.max_rank));
  uint64_t elements = 1;
  for (int64_t n : shape) {
    if (n < 0) invalid(where + " has a negative dimension " + std::to_string(n));
    if (n != 0 && elements > uint64_t(INT64_MAX) / uint64_t(n))
      invalid(where + "'s shape has more elements than 2^63");
    elements *= uint64_t(n);
  }
  if (elements > uint64_t(INT64_MAX) / byte_size(*dtype))
    invalid(where + "'s shape and datatype need more than 2^63 bytes");
  return TensorType{*dtype, Dims(shape.begin(), shape.end())};
}

std::string inflated_body(std::string_view body, std::string_view encoding, std::size_t limit) {
  if (encoding.empty() || encoding == "identity") return std::string(body);
  auto invalid = [](const std::string& m) { throw ServeError(Status::invalid_argument, m); };
  if (encoding != "gzip" && encoding != "deflate")
    invalid("Content-Encoding \"" + std::string(encoding) +
            "\" is not accepted (gzip, deflate, identity)");
  z_stream z{};
  if (inflateInit2(&z, encoding == "gzip" ? 15 + 16 : 15) != Z_OK)
    throw ServeError(Status::internal, "zlib: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  z.avail_in = uInt(body.size());
  std::string out;
  char chunk[65536];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    std::size_t n = sizeof chunk - z.avail_out;
    if (out.size() + n > limit) {
      inflateEnd(&z);
      invalid("the " + std::string(encoding) + " body inflates past the limit of " +
              std::to_string(limit) + " bytes");
    }
    out.append(chunk, n);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended before the stream did
  }
  bool whole = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  if (!whole)
    invalid("the " + std::string(encoding) + " body does not inflate" +
            (rc == Z_STREAM_END ? " (bytes follow its end)" : " (truncated or corrupt)"));
  return out;
}

int http_status(Status status) {
  switch (status) {
    case Status::invalid_argument:
      return 400;
    case Status::not_found:
      return 404;
    case Status::unavailable:
      return 503;
    case Status::internal:
      break;
  }
  return 500;
}

std::string deflated_body(std::string_view body, std::string_view encoding) {
  if (encoding != "gzip" && encoding != "deflate")
    throw ServeError(Status::internal,
                     "deflated_body: no encoding \"" + std::string(encoding) + "\"");
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, encoding == "gzip" ? 15 + 16 : 15, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    throw ServeError(Status::internal, "zlib: deflateInit2 failed");
  std::string out(deflateBound(&z, uLong(body.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  z.avail_in = uInt(body.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw ServeError(Status::internal, "zlib: deflate did not finish");
  return out;
}

std::string_view response_encoding(std::string_view accept) {
  while (!accept.empty()) {
    std::size_t comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    std::size_t semi = item.find(';');
    std::string_view coding = item.substr(0, semi);
    std::string_view params = semi == std::string_view::npos ? "" : item.substr(semi + 1);
    auto trim = [](std::string_view t) {
      while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
      while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
      return t;
    };
    coding = trim(coding);
    params = trim(params);
    bool refused = params.starts_with("q=0") && params.find_first_not_of("q=0.", 0) == params.npos;
    if (!refused && (coding == "gzip" || coding == "deflate"))
      return coding == "gzip" ? "gzip" : "deflate";
  }
  return "";
}

}  // namespace hhlo::serve
