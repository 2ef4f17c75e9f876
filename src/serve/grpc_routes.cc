// The protocol's gRPC methods (grpc_routes.h).
#include "grpc_routes.h"

#include <cstring>
#include <limits>
#include <utility>

#include "hhlo/core/version.h"
#include "proto/health.pb.h"
#include "proto/inference.pb.h"

namespace hhlo::serve {
namespace {

namespace pb = ::inference;

[[noreturn]] void invalid(const std::string& message) {
  throw ServeError(Status::invalid_argument, message);
}

/// Copies the typed contents `values` (one protobuf list) into `out`, each checked to fit.
template <typename T, typename List>
void copy_contents(const List& values, Array& out, const std::string& where) {
  if (int64_t(values.size()) != out.num_elements())
    invalid(where + "'s contents hold " + std::to_string(values.size()) + " values; its shape [" +
            dims_to_string(out.dims()) + "] has " + std::to_string(out.num_elements()));
  T* data = static_cast<T*>(out.data());
  for (int i = 0; i < values.size(); ++i) {
    if (!std::in_range<T>(values[i]))
      invalid(where + "'s contents hold " + std::to_string(values[i]) + ", out of the range of " +
              std::string(*datatype_name(out.dtype())));
    data[i] = T(values[i]);
  }
}

/// The data of input `t` from its typed contents.
void read_contents(const pb::ModelInferRequest::InferInputTensor& t, Array& out,
                   const std::string& where) {
  const pb::InferTensorContents& c = t.contents();
  switch (out.dtype()) {
    case DType::pred: {
      if (c.bool_contents_size() != out.num_elements())
        invalid(where + "'s bool_contents hold " + std::to_string(c.bool_contents_size()) +
                " values; its shape has " + std::to_string(out.num_elements()));
      auto* p = static_cast<uint8_t*>(out.data());
      for (int i = 0; i < c.bool_contents_size(); ++i) p[i] = c.bool_contents(i) ? 1 : 0;
      return;
    }
    case DType::i8:
      return copy_contents<int8_t>(c.int_contents(), out, where);
    case DType::i16:
      return copy_contents<int16_t>(c.int_contents(), out, where);
    case DType::i32:
      return copy_contents<int32_t>(c.int_contents(), out, where);
    case DType::i64:
      return copy_contents<int64_t>(c.int64_contents(), out, where);
    case DType::ui8:
      return copy_contents<uint8_t>(c.uint_contents(), out, where);
    case DType::ui16:
      return copy_contents<uint16_t>(c.uint_contents(), out, where);
    case DType::ui32:
      return copy_contents<uint32_t>(c.uint_contents(), out, where);
    case DType::ui64:
      return copy_contents<uint64_t>(c.uint64_contents(), out, where);
    case DType::f32:
      if (c.fp32_contents_size() != out.num_elements())
        invalid(where + "'s fp32_contents hold " + std::to_string(c.fp32_contents_size()) +
                " values; its shape has " + std::to_string(out.num_elements()));
      if (out.num_elements()) std::memcpy(out.data(), c.fp32_contents().data(), out.byte_size());
      return;
    case DType::f64:
      if (c.fp64_contents_size() != out.num_elements())
        invalid(where + "'s fp64_contents hold " + std::to_string(c.fp64_contents_size()) +
                " values; its shape has " + std::to_string(out.num_elements()));
      if (out.num_elements()) std::memcpy(out.data(), c.fp64_contents().data(), out.byte_size());
      return;
    default:
      invalid(where + " is " + std::string(*datatype_name(out.dtype())) +
              ", which travels only in raw_input_contents (the protocol has no typed contents "
              "for it)");
  }
}

/// The number of typed values `c` holds, all lists together.
std::size_t contents_count(const pb::InferTensorContents& c) {
  return std::size_t(c.bool_contents_size()) + c.int_contents_size() + c.int64_contents_size() +
         c.uint_contents_size() + c.uint64_contents_size() + c.fp32_contents_size() +
         c.fp64_contents_size() + c.bytes_contents_size();
}

/// An int64 request parameter, or nullopt when absent; ServeError when not an integer.
std::optional<int64_t> integer_parameter(const pb::ModelInferRequest& r, const std::string& key) {
  auto it = r.parameters().find(key);
  if (it == r.parameters().end()) return std::nullopt;
  const pb::InferParameter& p = it->second;
  if (p.has_int64_param()) return p.int64_param();
  if (p.has_uint64_param() && p.uint64_param() <= uint64_t(INT64_MAX))
    return int64_t(p.uint64_param());
  invalid("parameter \"" + key + "\" is not an integer");
}

InferRequest decode(const pb::ModelInferRequest& r, std::optional<int64_t> timeout_us,
                    const DecodeLimits& limits) {
  InferRequest out;
  out.id = r.id();
  if (std::size_t(r.inputs_size()) > limits.max_tensors ||
      std::size_t(r.outputs_size()) > limits.max_tensors)
    invalid("request has more than " + std::to_string(limits.max_tensors) + " inputs or outputs");
  bool raw = r.raw_input_contents_size() > 0;
  if (raw && r.raw_input_contents_size() != r.inputs_size())
    invalid("request has " + std::to_string(r.raw_input_contents_size()) +
            " raw_input_contents for " + std::to_string(r.inputs_size()) + " inputs");
  std::size_t values = 0;
  for (int i = 0; i < r.inputs_size(); ++i) {
    const auto& t = r.inputs(i);
    std::string where = "input \"" + t.name() + "\"";
    for (const NamedTensor& seen : out.inputs)
      if (seen.name == t.name()) invalid(where + " is given twice");
    TensorType type = request_tensor_type(
        t.name(), t.datatype(), std::vector<int64_t>(t.shape().begin(), t.shape().end()), limits);
    values += contents_count(t.contents());
    if (values > limits.max_json_values)
      invalid("request's typed contents hold more than " + std::to_string(limits.max_json_values) +
              " values; send large tensors as raw_input_contents");
    if (raw) {
      const std::string& bytes = r.raw_input_contents(i);
      if (contents_count(t.contents()) != 0) invalid(where + " has both raw and typed contents");
      if (bytes.size() != std::size_t(type.byte_size()))
        invalid(where + "'s raw_input_contents hold " + std::to_string(bytes.size()) +
                " bytes; its shape [" + dims_to_string(type.dims) + "] of " + t.datatype() +
                " needs " + std::to_string(type.byte_size()));
      out.inputs.push_back({t.name(), Array::from_bytes(type, bytes.data(), bytes.size())});
    } else {
      Array a(type);
      read_contents(t, a, where);
      out.inputs.push_back({t.name(), std::move(a)});
    }
  }
  for (const auto& o : r.outputs()) {
    for (const RequestedOutput& seen : out.outputs)
      if (seen.name == o.name()) invalid("output \"" + o.name() + "\" is asked for twice");
    out.outputs.push_back({o.name(), true});
  }
  out.binary_data_output = true;
  if (std::optional<int64_t> t = integer_parameter(r, "timeout")) {
    if (*t < 0) invalid("parameter \"timeout\" is negative");
    out.timeout_us = *t;
  } else {
    out.timeout_us = timeout_us;
  }
  if (std::optional<int64_t> p = integer_parameter(r, "priority")) {
    if (*p < 0) invalid("parameter \"priority\" is negative");
    out.priority = *p;
  }
  return out;
}

std::string encode(const InferResponse& response) {
  pb::ModelInferResponse r;
  r.set_model_name(response.model_name);
  r.set_model_version(response.model_version);
  r.set_id(response.id);
  for (const NamedTensor& o : response.outputs) {
    std::optional<std::string_view> datatype = datatype_name(o.tensor.dtype());
    if (!datatype)
      throw ServeError(Status::internal, "output \"" + o.name + "\" has element type " +
                                             std::string(dtype_name(o.tensor.dtype())) +
                                             ", which the protocol has no datatype for");
    auto* t = r.add_outputs();
    t->set_name(o.name);
    t->set_datatype(std::string(*datatype));
    for (int64_t d : o.tensor.dims()) t->add_shape(d);
    r.add_raw_output_contents(static_cast<const char*>(o.tensor.data()), o.tensor.byte_size());
  }
  return r.SerializeAsString();
}

void fill_tensors(
    const std::vector<TensorMetadata>& list,
    google::protobuf::RepeatedPtrField<pb::ModelMetadataResponse::TensorMetadata>* out) {
  for (const TensorMetadata& t : list) {
    auto* m = out->Add();
    m->set_name(t.name);
    m->set_datatype(std::string(*datatype_name(t.dtype)));
    for (int64_t d : t.shape) m->add_shape(d);
  }
}

pb::ModelConfig config_message(const ServedConfig& c) {
  pb::ModelConfig m;
  m.set_name(c.metadata.name);
  m.set_platform(c.metadata.platform);
  m.set_backend("hhlo");
  m.set_max_batch_size(int32_t(c.max_batch_size));
  m.mutable_version_policy()->mutable_latest()->set_num_versions(1);
  auto type_of = [](DType d) {
    pb::DataType t = pb::TYPE_INVALID;
    pb::DataType_Parse("TYPE_" + std::string(*datatype_name(d)), &t);
    return t;
  };
  std::size_t skip = c.max_batch_size > 0 ? 1 : 0;
  for (const TensorMetadata& t : c.metadata.inputs) {
    auto* in = m.add_input();
    in->set_name(t.name);
    in->set_data_type(type_of(t.dtype));
    for (std::size_t d = std::min(skip, t.shape.size()); d < t.shape.size(); ++d)
      in->add_dims(t.shape[d]);
  }
  for (const TensorMetadata& t : c.metadata.outputs) {
    auto* out = m.add_output();
    out->set_name(t.name);
    out->set_data_type(type_of(t.dtype));
    for (std::size_t d = std::min(skip, t.shape.size()); d < t.shape.size(); ++d)
      out->add_dims(t.shape[d]);
  }
  auto* group = m.add_instance_group();
  group->set_count(c.instances);
  group->set_kind(pb::ModelInstanceGroup::KIND_CPU);
  if (c.max_batch_size > 0 && c.dynamic_batching) {
    auto* b = m.mutable_dynamic_batching();
    for (int64_t s : c.batch_sizes) b->add_preferred_batch_size(int32_t(s));
    b->set_max_queue_delay_microseconds(uint64_t(c.max_queue_delay.count()));
    b->mutable_default_queue_policy()->set_max_queue_size(uint32_t(c.max_queue_size));
  }
  return m;
}

pb::ModelStatisticsResponse statistics_message(const std::vector<ModelStatistics>& stats) {
  pb::ModelStatisticsResponse r;
  auto set = [](pb::StatisticDuration* d, uint64_t count, uint64_t ns) {
    d->set_count(count);
    d->set_ns(ns);
  };
  for (const ModelStatistics& s : stats) {
    auto* m = r.add_model_stats();
    m->set_name(s.name);
    m->set_version(s.version);
    m->set_last_inference(s.last_inference_ms);
    m->set_inference_count(s.inference_count);
    m->set_execution_count(s.execution_count);
    auto* i = m->mutable_inference_stats();
    set(i->mutable_success(), s.success_count, s.success_ns);
    set(i->mutable_fail(), s.fail_count, s.fail_ns);
    set(i->mutable_queue(), s.success_count, s.queue_ns);
    set(i->mutable_compute_input(), s.success_count, 0);
    set(i->mutable_compute_infer(), s.success_count, s.compute_ns);
    set(i->mutable_compute_output(), s.success_count, 0);
    for (const BatchExecutions& b : s.batch_executions) {
      auto* bs = m->add_batch_stats();
      bs->set_batch_size(uint64_t(b.batch_size));
      set(bs->mutable_compute_input(), b.count, 0);
      set(bs->mutable_compute_infer(), b.count, b.compute_ns);
      set(bs->mutable_compute_output(), b.count, 0);
    }
  }
  return r;
}

/// Parses `bytes` as a `Message`, or throws ServeError (invalid_argument).
template <typename Message>
Message parsed(std::string_view bytes) {
  Message m;
  if (!m.ParseFromArray(bytes.data(), int(bytes.size())))
    invalid("request is not a valid " + std::string(Message::descriptor()->full_name()) +
            " message");
  return m;
}

using Reply = std::function<void(GrpcReply)>;

void infer(Server& server, std::string_view request, std::optional<int64_t> timeout_us,
           const DecodeLimits& limits, const Reply& reply,
           std::shared_ptr<const std::atomic<bool>> cancelled) {
  auto r = parsed<pb::ModelInferRequest>(request);
  InferRequest decoded = decode(r, timeout_us, limits);
  server.infer(
      r.model_name(), r.model_version(), std::move(decoded),
      [reply](InferOutcome out) {
        if (out.error) return reply({grpc_code(out.error->status()), out.error->what(), ""});
        try {
          reply({GrpcCode::ok, "", encode(*out.response)});
        } catch (const std::exception& e) {
          reply({GrpcCode::internal, e.what(), ""});
        }
      },
      [c = std::move(cancelled)] { return c && c->load(); });
}

/// RepositoryModelLoad / Unload: run on the server's control thread, answered when done.
void control(Server& server, const std::string& name, bool load, const Reply& reply) {
  if (server.control() == ModelControl::none)
    invalid("explicit model " + std::string(load ? "load" : "unload") +
            " is not allowed: the model control mode is \"none\" (models are loaded from the "
            "repository at start)");
  server.run_control([&server, name, load, reply] {
    try {
      if (load) {
        server.load_model(name);
        reply({GrpcCode::ok, "", pb::RepositoryModelLoadResponse().SerializeAsString()});
      } else {
        server.unload_model(name);
        reply({GrpcCode::ok, "", pb::RepositoryModelUnloadResponse().SerializeAsString()});
      }
    } catch (const ServeError& e) {
      reply({grpc_code(e.status()), e.what(), ""});
    } catch (const std::exception& e) {
      reply({GrpcCode::internal, e.what(), ""});
    }
  });
}

/// The methods that answer at once: the serialized response of `method`, or nullopt when it is
/// not one of them.
std::optional<std::string> answer(Server& server, std::string_view method,
                                  std::string_view request) {
  constexpr std::string_view kService = "/inference.GRPCInferenceService/";
  if (method == "/grpc.health.v1.Health/Check") {
    auto r = parsed<grpc::health::v1::HealthCheckRequest>(request);
    if (!r.service().empty() && r.service() != "inference.GRPCInferenceService")
      throw ServeError(Status::not_found, "unknown service \"" + r.service() + "\"");
    grpc::health::v1::HealthCheckResponse h;
    h.set_status(server.ready() ? grpc::health::v1::HealthCheckResponse::SERVING
                                : grpc::health::v1::HealthCheckResponse::NOT_SERVING);
    return h.SerializeAsString();
  }
  if (!method.starts_with(kService)) return std::nullopt;
  std::string_view name = method.substr(kService.size());
  if (name == "ServerLive") {
    pb::ServerLiveResponse out;
    out.set_live(server.live());
    return out.SerializeAsString();
  }
  if (name == "ServerReady") {
    pb::ServerReadyResponse out;
    out.set_ready(server.ready());
    return out.SerializeAsString();
  }
  if (name == "ModelReady") {
    auto r = parsed<pb::ModelReadyRequest>(request);
    pb::ModelReadyResponse out;
    out.set_ready(server.model_ready(r.name(), r.version()));
    return out.SerializeAsString();
  }
  if (name == "ServerMetadata") {
    pb::ServerMetadataResponse out;
    out.set_name("hhlo");
    out.set_version(version());
    for (const char* e :
         {"binary_tensor_data", "model_configuration", "model_repository", "statistics"})
      out.add_extensions(e);
    return out.SerializeAsString();
  }
  if (name == "ModelMetadata") {
    auto r = parsed<pb::ModelMetadataRequest>(request);
    ModelMetadata m = server.metadata(r.name(), r.version());
    pb::ModelMetadataResponse out;
    out.set_name(m.name);
    for (const std::string& v : m.versions) out.add_versions(v);
    out.set_platform(m.platform);
    fill_tensors(m.inputs, out.mutable_inputs());
    fill_tensors(m.outputs, out.mutable_outputs());
    return out.SerializeAsString();
  }
  if (name == "ModelConfig") {
    auto r = parsed<pb::ModelConfigRequest>(request);
    pb::ModelConfigResponse out;
    *out.mutable_config() = config_message(server.config(r.name(), r.version()));
    return out.SerializeAsString();
  }
  if (name == "ModelStatistics") {
    auto r = parsed<pb::ModelStatisticsRequest>(request);
    return statistics_message(server.statistics(r.name(), r.version())).SerializeAsString();
  }
  if (name == "RepositoryIndex") {
    pb::RepositoryIndexResponse out;
    for (const ModelIndexEntry& e : server.repository_index()) {
      auto* m = out.add_models();
      m->set_name(e.name);
      m->set_version(e.version);
      m->set_state(e.state);
      m->set_reason(e.reason);
    }
    return out.SerializeAsString();
  }
  return std::nullopt;
}

}  // namespace

GrpcCode grpc_code(Status status) {
  switch (status) {
    case Status::invalid_argument:
      return GrpcCode::invalid_argument;
    case Status::not_found:
      return GrpcCode::not_found;
    case Status::unavailable:
      return GrpcCode::unavailable;
    case Status::internal:
      break;
  }
  return GrpcCode::internal;
}

void handle_grpc(Server& server, std::string_view method, std::string_view request,
                 std::optional<int64_t> timeout_us, const DecodeLimits& limits,
                 std::function<void(GrpcReply)> reply,
                 std::shared_ptr<const std::atomic<bool>> cancelled) {
  auto replied = std::make_shared<std::atomic<bool>>(false);
  Reply once = [reply = std::move(reply), replied](GrpcReply r) {
    if (!replied->exchange(true)) reply(std::move(r));
  };
  try {
    if (method == "/inference.GRPCInferenceService/ModelInfer")
      return infer(server, request, timeout_us, limits, once, std::move(cancelled));
    if (method == "/inference.GRPCInferenceService/RepositoryModelLoad")
      return control(server, parsed<pb::RepositoryModelLoadRequest>(request).model_name(), true,
                     once);
    if (method == "/inference.GRPCInferenceService/RepositoryModelUnload")
      return control(server, parsed<pb::RepositoryModelUnloadRequest>(request).model_name(), false,
                     once);
    std::optional<std::string> body = answer(server, method, request);
    if (!body) return once({GrpcCode::unimplemented, "unknown method " + std::string(method), ""});
    once({GrpcCode::ok, "", std::move(*body)});
  } catch (const ServeError& e) {
    once({grpc_code(e.status()), e.what(), ""});
  } catch (const std::exception& e) {
    once({GrpcCode::internal, e.what(), ""});
  }
}

}  // namespace hhlo::serve
