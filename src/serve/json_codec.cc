// The Open Inference Protocol's HTTP bodies with the binary tensor data extension
// (hhlo/serve/json_codec.h).
#include "hhlo/serve/json_codec.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

namespace hhlo::serve {
namespace {

namespace json = boost::json;

template <typename T>
constexpr bool kIsComplex = false;
template <typename T>
constexpr bool kIsComplex<std::complex<T>> = true;

[[noreturn]] void invalid(const std::string& message) {
  throw ServeError(Status::invalid_argument, message);
}

/// Throws when `text` holds more than `cap` numbers and booleans (counted before parsing, so that
/// a body of small numbers cannot make the parsed document many times its size).
void check_scalar_count(std::string_view text, std::size_t cap) {
  std::size_t scalars = 0;
  bool in_string = false, escaped = false, in_token = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    bool token = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 c == '-' || c == '+' || c == '.';
    if (token && !in_token && c != 'n' && ++scalars > cap)  // `null` is no scalar
      invalid("request JSON holds more than " + std::to_string(cap) +
              " numbers; send large tensors as binary data (binary_data_size)");
    in_token = token;
    in_string = c == '"';
  }
}

/// Parses `text` as JSON within the depth and value bounds of `limits` (Boost.JSON).
json::value parse_bounded(std::string_view text, const DecodeLimits& limits) {
  check_scalar_count(text, limits.max_json_values);
  json::parse_options options;
  options.max_depth = static_cast<std::size_t>(std::max(limits.max_json_depth, 1));
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec, {}, options);
  if (ec == json::error::too_deep)
    invalid("request JSON is nested deeper than " + std::to_string(limits.max_json_depth) +
            " levels");
  if (ec) invalid("request is not valid JSON: " + ec.message());
  return v;
}

const json::value* member(const json::value& object, std::string_view key) {
  const json::object* o = object.if_object();
  return o ? o->if_contains(json::string_view(key.data(), key.size())) : nullptr;
}

std::string string_member(const json::value& object, const char* key, const std::string& where) {
  const json::value* v = member(object, key);
  if (v == nullptr) invalid(where + " has no \"" + key + "\"");
  if (!v->is_string()) invalid(where + "'s \"" + key + "\" is not a string");
  return std::string(v->get_string());
}

/// The integer `value` of a request field named `what`.
int64_t integer(const json::value& value, const std::string& what) {
  if (value.is_uint64() && value.get_uint64() > uint64_t(INT64_MAX))
    invalid(what + " is larger than 2^63 - 1");
  if (value.is_uint64()) return int64_t(value.get_uint64());
  if (!value.is_int64()) invalid(what + " is not an integer");
  return value.get_int64();
}

/// The checked type of `input` (its "datatype" and "shape"), named `name`.
TensorType read_type(const json::value& input, const std::string& name,
                     const DecodeLimits& limits) {
  std::string where = "input \"" + name + "\"";
  std::string datatype = string_member(input, "datatype", where);
  const json::value* shape = member(input, "shape");
  if (shape == nullptr || !shape->is_array()) invalid(where + " has no \"shape\" array");
  const json::array& entries = shape->get_array();
  if (entries.size() > std::size_t(limits.max_rank))
    invalid(where + " has rank " + std::to_string(entries.size()) + ", above the limit of " +
            std::to_string(limits.max_rank));
  std::vector<int64_t> dims;
  for (const json::value& d : entries) dims.push_back(integer(d, where + "'s shape entry"));
  return request_tensor_type(name, datatype, dims, limits);
}

/// Stores JSON element `v` as element `i` of `out`, checked against its datatype.
template <typename T>
void store(const json::value& v, Array& out, int64_t i, const std::string& where) {
  T* data = static_cast<T*>(out.data());
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_bool()) invalid(where + "'s BOOL data holds a value that is not true/false");
    static_cast<uint8_t*>(out.data())[i] = v.get_bool() ? 1 : 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_int64() && !v.is_uint64())
      invalid(where + "'s " + std::string(*datatype_name(out.dtype())) +
              " data holds a value that is not an integer");
    bool fits = v.is_uint64() ? std::in_range<T>(v.get_uint64()) : std::in_range<T>(v.get_int64());
    if (!fits)
      invalid(where + "'s data holds " + json::serialize(v) + ", out of the range of " +
              std::string(*datatype_name(out.dtype())));
    data[i] = v.is_uint64() ? T(v.get_uint64()) : T(v.get_int64());
  } else {
    if (!v.is_number()) invalid(where + "'s data holds a value that is not a number");
    double d = v.is_double()  ? v.get_double()
               : v.is_int64() ? double(v.get_int64())
                              : double(v.get_uint64());
    if constexpr (std::is_same_v<T, double>)
      data[i] = d;
    else
      data[i] = T(static_cast<float>(d));
  }
}

/// Appends the elements of `data` (flat or nested arrays, row-major) to `out` (of C++ element
/// type T) from `next`.
template <typename T>
void flatten_as(const json::value& data, Array& out, int64_t& next, const std::string& where) {
  if (const json::array* a = data.if_array()) {
    for (const json::value& v : *a) flatten_as<T>(v, out, next, where);
    return;
  }
  if (next >= out.num_elements())
    invalid(where + "'s data holds more values than its shape's " +
            std::to_string(out.num_elements()));
  store<T>(data, out, next++, where);
}

/// The elements of `data` into `out`, row-major, checked against its datatype.
void flatten(const json::value& data, Array& out, const std::string& where) {
  int64_t next = 0;
  visit_dtype(out.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (kIsComplex<T>)
      invalid(where + " is complex");
    else
      flatten_as<T>(data, out, next, where);
  });
}

/// Counts the scalars of `data` (flat or nested), up to `cap` + 1.
int64_t count_values(const json::value& data, int64_t cap) {
  const json::array* a = data.if_array();
  if (!a) return 1;
  int64_t n = 0;
  for (const json::value& v : *a) {
    n += count_values(v, cap);
    if (n > cap) return n;
  }
  return n;
}

struct BinaryCursor {
  std::string_view rest;
};

Array read_input(const json::value& input, const std::string& name, BinaryCursor& binary,
                 const DecodeLimits& limits) {
  std::string where = "input \"" + name + "\"";
  TensorType type = read_type(input, name, limits);
  DType dtype = type.dtype;
  const Dims& dims = type.dims;
  uint64_t elements = uint64_t(type.num_elements());
  uint64_t bytes = elements * byte_size(dtype);
  const json::value* params = member(input, "parameters");
  const json::value* size = params ? member(*params, "binary_data_size") : nullptr;
  if (size != nullptr) {
    int64_t n = integer(*size, where + "'s binary_data_size");
    if (n < 0 || uint64_t(n) != bytes)
      invalid(where + "'s binary_data_size is " + std::to_string(n) + " bytes; its shape [" +
              dims_to_string(dims) + "] of " + std::string(*datatype_name(dtype)) + " needs " +
              std::to_string(bytes));
    if (member(input, "data") != nullptr) invalid(where + " has both binary data and \"data\"");
    if (uint64_t(n) > binary.rest.size())
      invalid(where + "'s binary_data_size " + std::to_string(n) + " passes the end of the body (" +
              std::to_string(binary.rest.size()) + " bytes left)");
    Array a = Array::from_bytes(TensorType{dtype, dims}, binary.rest.data(), std::size_t(n));
    binary.rest.remove_prefix(std::size_t(n));
    return a;
  }
  const json::value* data = member(input, "data");
  if (data == nullptr) invalid(where + " has neither \"data\" nor binary_data_size");
  int64_t count = count_values(*data, int64_t(elements));
  if (uint64_t(count) != elements)
    invalid(where + "'s data holds " +
            (uint64_t(count) > elements ? "more than " + std::to_string(elements)
                                        : std::to_string(count)) +
            " values; its shape [" + dims_to_string(dims) + "] has " + std::to_string(elements));
  Array a(dtype, dims);
  flatten(*data, a, where);
  return a;
}

void read_parameters(const json::value& request, InferRequest& out) {
  const json::value* params = member(request, "parameters");
  if (params == nullptr) return;
  if (!params->is_object()) invalid("request's \"parameters\" is not an object");
  if (const json::value* t = member(*params, "timeout")) {
    out.timeout_us = integer(*t, "parameter \"timeout\"");
    if (*out.timeout_us < 0) invalid("parameter \"timeout\" is negative");
  }
  if (const json::value* p = member(*params, "priority")) {
    out.priority = integer(*p, "parameter \"priority\"");
    if (out.priority < 0) invalid("parameter \"priority\" is negative");
  }
  if (const json::value* b = member(*params, "binary_data_output")) {
    if (!b->is_bool()) invalid("parameter \"binary_data_output\" is not true/false");
    out.binary_data_output = b->get_bool();
  }
}

std::vector<RequestedOutput> read_outputs(const json::value& request, const DecodeLimits& limits) {
  std::vector<RequestedOutput> outputs;
  const json::value* list = member(request, "outputs");
  if (list == nullptr) return outputs;
  if (!list->is_array()) invalid("request's \"outputs\" is not an array");
  if (list->get_array().size() > limits.max_tensors)
    invalid("request asks for more than " + std::to_string(limits.max_tensors) + " outputs");
  for (const json::value& o : list->get_array()) {
    if (!o.is_object()) invalid("an entry of \"outputs\" is not an object");
    RequestedOutput r{string_member(o, "name", "requested output"), false};
    const json::value* params = member(o, "parameters");
    if (params != nullptr)
      if (const json::value* b = member(*params, "binary_data")) {
        if (!b->is_bool()) invalid("output \"" + r.name + "\"'s binary_data is not true/false");
        r.binary = b->get_bool();
      }
    for (const RequestedOutput& seen : outputs)
      if (seen.name == r.name) invalid("output \"" + r.name + "\" is asked for twice");
    outputs.push_back(std::move(r));
  }
  return outputs;
}

template <typename T>
void append_number(std::string& out, T value) {
  if constexpr (std::is_same_v<T, bool>) {
    out += value ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<T>) {
    // JSON has no NaN or infinity: Python's json and rapidjson (tritonclient's) read these.
    if (std::isnan(value)) {
      out += "NaN";
    } else if (std::isinf(value)) {
      out += value > 0 ? "Infinity" : "-Infinity";
    } else {
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
      out.append(buf, end);
    }
  } else {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, end);
  }
}

void append_data(std::string& out, const Array& a) {
  out += '[';
  visit_dtype(a.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (!kIsComplex<T>) {
      const auto* p =
          static_cast<const std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>*>(a.data());
      for (int64_t i = 0; i < a.num_elements(); ++i) {
        if (i) out += ',';
        if constexpr (std::is_same_v<T, bool>)
          append_number(out, p[i] != 0);
        else if constexpr (kIsFloatStruct<T>)
          append_number(out, static_cast<float>(p[i]));
        else if constexpr (kIsNarrowInt<T>)
          append_number(out, static_cast<int64_t>(p[i].value()));
        else
          append_number(out, p[i]);
      }
    }
  });
  out += ']';
}

/// `s` as a JSON string; bytes that are not UTF-8 (a file name in a message) become U+FFFD.
std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

InferRequest decode_infer_request(std::string_view body, std::optional<std::size_t> json_size,
                                  const DecodeLimits& limits) {
  if (json_size && *json_size > body.size())
    invalid("Inference-Header-Content-Length " + std::to_string(*json_size) +
            " is larger than the body's " + std::to_string(body.size()) + " bytes");
  std::string_view text = json_size ? body.substr(0, *json_size) : body;
  BinaryCursor binary{json_size ? body.substr(*json_size) : std::string_view{}};
  json::value request = parse_bounded(text, limits);
  if (!request.is_object()) invalid("request JSON is not an object");
  InferRequest out;
  if (const json::value* id = member(request, "id")) {
    if (!id->is_string()) invalid("request's \"id\" is not a string");
    out.id = std::string(id->get_string());
  }
  read_parameters(request, out);
  const json::value* inputs = member(request, "inputs");
  if (inputs == nullptr || !inputs->is_array()) invalid("request has no \"inputs\" array");
  if (inputs->get_array().size() > limits.max_tensors)
    invalid("request has more than " + std::to_string(limits.max_tensors) + " inputs");
  for (const json::value& input : inputs->get_array()) {
    if (!input.is_object()) invalid("an entry of \"inputs\" is not an object");
    std::string name = string_member(input, "name", "an input");
    for (const NamedTensor& seen : out.inputs)
      if (seen.name == name) invalid("input \"" + name + "\" is given twice");
    Array tensor = read_input(input, name, binary, limits);
    out.inputs.push_back({std::move(name), std::move(tensor)});
  }
  if (!binary.rest.empty())
    invalid("the body holds " + std::to_string(binary.rest.size()) +
            " bytes after the JSON that no input's binary_data_size accounts for");
  out.outputs = read_outputs(request, limits);
  return out;
}

EncodedBody encode_infer_response(const InferResponse& response, const std::vector<bool>& binary) {
  if (binary.size() != response.outputs.size())
    throw ServeError(Status::internal, "encode_infer_response: " + std::to_string(binary.size()) +
                                           " binary flags for " +
                                           std::to_string(response.outputs.size()) + " outputs");
  std::string json = "{\"model_name\":" + json_string(response.model_name) +
                     ",\"model_version\":" + json_string(response.model_version);
  if (!response.id.empty()) json += ",\"id\":" + json_string(response.id);
  json += ",\"outputs\":[";
  std::size_t binary_bytes = 0;
  for (std::size_t i = 0; i < response.outputs.size(); ++i) {
    const NamedTensor& o = response.outputs[i];
    std::optional<std::string_view> datatype = datatype_name(o.tensor.dtype());
    if (!datatype)
      throw ServeError(Status::internal, "output \"" + o.name + "\" has element type " +
                                             std::string(dtype_name(o.tensor.dtype())) +
                                             ", which the protocol has no datatype for");
    if (i) json += ',';
    json += "{\"name\":" + json_string(o.name) + ",\"datatype\":\"" + std::string(*datatype) +
            "\",\"shape\":[";
    for (std::size_t d = 0; d < o.tensor.dims().size(); ++d)
      json += (d ? "," : "") + std::to_string(o.tensor.dims()[d]);
    json += ']';
    if (binary[i]) {
      json += ",\"parameters\":{\"binary_data_size\":" + std::to_string(o.tensor.byte_size()) + "}";
      binary_bytes += o.tensor.byte_size();
    } else {
      json += ",\"data\":";
      append_data(json, o.tensor);
    }
    json += '}';
  }
  json += "]}";
  EncodedBody out;
  if (binary_bytes == 0) {
    out.body = std::move(json);
    return out;
  }
  out.json_size = json.size();
  out.body.reserve(json.size() + binary_bytes);
  out.body = std::move(json);
  for (std::size_t i = 0; i < response.outputs.size(); ++i)
    if (binary[i])
      out.body.append(static_cast<const char*>(response.outputs[i].tensor.data()),
                      response.outputs[i].tensor.byte_size());
  return out;
}

std::string error_body(std::string_view message) {
  return "{\"error\":" + json_string(message) + "}";
}

}  // namespace hhlo::serve
