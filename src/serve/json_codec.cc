// The Open Inference Protocol's HTTP bodies with the binary tensor data extension
// (hhlo/serve/json_codec.h).
#include "hhlo/serve/json_codec.h"

#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

namespace hhlo::serve {
namespace {

using Json = nlohmann::json;

template <typename T>
constexpr bool kIsComplex = false;
template <typename T>
constexpr bool kIsComplex<std::complex<T>> = true;

[[noreturn]] void invalid(const std::string& message) {
  throw ServeError(Status::invalid_argument, message);
}

/// Parses `text` as JSON within the depth and value bounds of `limits`.
Json parse_bounded(std::string_view text, const DecodeLimits& limits) {
  std::size_t values = 0;
  auto bound = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth > limits.max_json_depth)
      invalid("request JSON is nested deeper than " + std::to_string(limits.max_json_depth) +
              " levels");
    if (event == Json::parse_event_t::value && (parsed.is_number() || parsed.is_boolean()) &&
        ++values > limits.max_json_values)
      invalid("request JSON holds more than " + std::to_string(limits.max_json_values) +
              " numbers; send large tensors as binary data (binary_data_size)");
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), bound);
  } catch (const Json::exception& e) {
    invalid(std::string("request is not valid JSON: ") + e.what());
  }
}

const Json* member(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string string_member(const Json& object, const char* key, const std::string& where) {
  const Json* v = member(object, key);
  if (v == nullptr) invalid(where + " has no \"" + key + "\"");
  if (!v->is_string()) invalid(where + "'s \"" + key + "\" is not a string");
  return v->get<std::string>();
}

/// The integer `value` of a request field named `what`.
int64_t integer(const Json& value, const std::string& what) {
  if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX))
    invalid(what + " is larger than 2^63 - 1");
  if (!value.is_number_integer()) invalid(what + " is not an integer");
  return value.get<int64_t>();
}

/// The checked type of `input` (its "datatype" and "shape"), named `name`.
TensorType read_type(const Json& input, const std::string& name, const DecodeLimits& limits) {
  std::string where = "input \"" + name + "\"";
  std::string datatype = string_member(input, "datatype", where);
  const Json* shape = member(input, "shape");
  if (shape == nullptr || !shape->is_array()) invalid(where + " has no \"shape\" array");
  if (shape->size() > std::size_t(limits.max_rank))
    invalid(where + " has rank " + std::to_string(shape->size()) + ", above the limit of " +
            std::to_string(limits.max_rank));
  std::vector<int64_t> dims;
  for (const Json& d : *shape) dims.push_back(integer(d, where + "'s shape entry"));
  return request_tensor_type(name, datatype, dims, limits);
}

/// Stores JSON element `v` as element `i` of `out`, checked against its datatype.
template <typename T>
void store(const Json& v, Array& out, int64_t i, const std::string& where) {
  T* data = static_cast<T*>(out.data());
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) invalid(where + "'s BOOL data holds a value that is not true/false");
    static_cast<uint8_t*>(out.data())[i] = v.get<bool>() ? 1 : 0;
  } else if constexpr (std::is_integral_v<T>) {
    bool fits = v.is_number_unsigned()  ? std::in_range<T>(v.get<uint64_t>())
                : v.is_number_integer() ? std::in_range<T>(v.get<int64_t>())
                                        : false;
    if (!v.is_number_integer())
      invalid(where + "'s " + std::string(*datatype_name(out.dtype())) +
              " data holds a value that is not an integer");
    if (!fits)
      invalid(where + "'s data holds " + v.dump() + ", out of the range of " +
              std::string(*datatype_name(out.dtype())));
    data[i] = v.is_number_unsigned() ? T(v.get<uint64_t>()) : T(v.get<int64_t>());
  } else {
    if (!v.is_number()) invalid(where + "'s data holds a value that is not a number");
    if constexpr (std::is_same_v<T, double>)
      data[i] = v.get<double>();
    else
      data[i] = T(static_cast<float>(v.get<double>()));
  }
}

/// Appends the elements of `data` (flat or nested arrays, row-major) to `out` from `next`.
void flatten(const Json& data, Array& out, int64_t& next, const std::string& where) {
  if (data.is_array()) {
    for (const Json& v : data) flatten(v, out, next, where);
    return;
  }
  if (next >= out.num_elements())
    invalid(where + "'s data holds more values than its shape's " +
            std::to_string(out.num_elements()));
  visit_dtype(out.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (kIsComplex<T>)
      invalid(where + " is complex");
    else
      store<T>(data, out, next, where);
  });
  ++next;
}

/// Counts the scalars of `data` (flat or nested), up to `cap` + 1.
int64_t count_values(const Json& data, int64_t cap) {
  if (!data.is_array()) return 1;
  int64_t n = 0;
  for (const Json& v : data) {
    n += count_values(v, cap);
    if (n > cap) return n;
  }
  return n;
}

struct BinaryCursor {
  std::string_view rest;
};

Array read_input(const Json& input, const std::string& name, BinaryCursor& binary,
                 const DecodeLimits& limits) {
  std::string where = "input \"" + name + "\"";
  TensorType type = read_type(input, name, limits);
  DType dtype = type.dtype;
  const Dims& dims = type.dims;
  uint64_t elements = uint64_t(type.num_elements());
  uint64_t bytes = elements * byte_size(dtype);
  const Json* params = member(input, "parameters");
  const Json* size = params && params->is_object() ? member(*params, "binary_data_size") : nullptr;
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
  const Json* data = member(input, "data");
  if (data == nullptr) invalid(where + " has neither \"data\" nor binary_data_size");
  int64_t count = count_values(*data, int64_t(elements));
  if (uint64_t(count) != elements)
    invalid(where + "'s data holds " +
            (uint64_t(count) > elements ? "more than " + std::to_string(elements)
                                        : std::to_string(count)) +
            " values; its shape [" + dims_to_string(dims) + "] has " + std::to_string(elements));
  Array a(dtype, dims);
  int64_t next = 0;
  flatten(*data, a, next, where);
  return a;
}

void read_parameters(const Json& request, InferRequest& out) {
  const Json* params = member(request, "parameters");
  if (params == nullptr) return;
  if (!params->is_object()) invalid("request's \"parameters\" is not an object");
  if (const Json* t = member(*params, "timeout")) {
    out.timeout_us = integer(*t, "parameter \"timeout\"");
    if (*out.timeout_us < 0) invalid("parameter \"timeout\" is negative");
  }
  if (const Json* p = member(*params, "priority")) {
    out.priority = integer(*p, "parameter \"priority\"");
    if (out.priority < 0) invalid("parameter \"priority\" is negative");
  }
  if (const Json* b = member(*params, "binary_data_output")) {
    if (!b->is_boolean()) invalid("parameter \"binary_data_output\" is not true/false");
    out.binary_data_output = b->get<bool>();
  }
}

std::vector<RequestedOutput> read_outputs(const Json& request, const DecodeLimits& limits) {
  std::vector<RequestedOutput> outputs;
  const Json* list = member(request, "outputs");
  if (list == nullptr) return outputs;
  if (!list->is_array()) invalid("request's \"outputs\" is not an array");
  if (list->size() > limits.max_tensors)
    invalid("request asks for more than " + std::to_string(limits.max_tensors) + " outputs");
  for (const Json& o : *list) {
    if (!o.is_object()) invalid("an entry of \"outputs\" is not an object");
    RequestedOutput r{string_member(o, "name", "requested output"), false};
    const Json* params = member(o, "parameters");
    if (params != nullptr && params->is_object())
      if (const Json* b = member(*params, "binary_data")) {
        if (!b->is_boolean()) invalid("output \"" + r.name + "\"'s binary_data is not true/false");
        r.binary = b->get<bool>();
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
  return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

InferRequest decode_infer_request(std::string_view body, std::optional<std::size_t> json_size,
                                  const DecodeLimits& limits) {
  if (json_size && *json_size > body.size())
    invalid("Inference-Header-Content-Length " + std::to_string(*json_size) +
            " is larger than the body's " + std::to_string(body.size()) + " bytes");
  std::string_view text = json_size ? body.substr(0, *json_size) : body;
  BinaryCursor binary{json_size ? body.substr(*json_size) : std::string_view{}};
  Json request = parse_bounded(text, limits);
  if (!request.is_object()) invalid("request JSON is not an object");
  InferRequest out;
  if (const Json* id = member(request, "id")) {
    if (!id->is_string()) invalid("request's \"id\" is not a string");
    out.id = id->get<std::string>();
  }
  read_parameters(request, out);
  const Json* inputs = member(request, "inputs");
  if (inputs == nullptr || !inputs->is_array()) invalid("request has no \"inputs\" array");
  if (inputs->size() > limits.max_tensors)
    invalid("request has more than " + std::to_string(limits.max_tensors) + " inputs");
  for (const Json& input : *inputs) {
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
