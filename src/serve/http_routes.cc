// The protocol's HTTP routes (http_routes.h).
#include "http_routes.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <vector>

#include "hhlo/core/version.h"
#include "hhlo/serve/metrics.h"

namespace hhlo::serve {
namespace {

using Json = nlohmann::json;

/// The extensions this server implements, as Triton names them (server metadata lists exactly
/// these).
const std::vector<std::string> kExtensions = {"binary_tensor_data", "model_configuration",
                                              "model_repository", "statistics"};

HttpReply json_reply(const Json& j, int status = 200) {
  return {status, j.dump(-1, ' ', false, Json::error_handler_t::replace), std::nullopt, ""};
}

HttpReply error_reply(Status status, std::string_view message) {
  return {http_status(status), error_body(message), std::nullopt, ""};
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// `s` with %XX escapes decoded (tritonclient quotes model names), or nullopt when malformed.
std::optional<std::string> percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += char(hi * 16 + lo);
    i += 2;
  }
  return out;
}

/// The path's segments after "/v2", decoded; nullopt when the path is not under /v2 or an
/// escape is malformed.
std::optional<std::vector<std::string>> segments_of(std::string_view target) {
  target = target.substr(0, target.find('?'));
  if (target != "/v2" && !target.starts_with("/v2/")) return std::nullopt;
  std::vector<std::string> out;
  std::string_view rest = target.substr(3);
  while (!rest.empty()) {
    rest.remove_prefix(1);  // the '/'
    std::size_t end = rest.find('/');
    std::optional<std::string> segment = percent_decoded(rest.substr(0, end));
    if (!segment) return std::nullopt;
    if (!segment->empty() || end != std::string_view::npos) out.push_back(*segment);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
  }
  return out;
}

Json tensor_json(const TensorMetadata& t) {
  return {{"name", t.name}, {"datatype", std::string(*datatype_name(t.dtype))}, {"shape", t.shape}};
}

Json metadata_json(const ModelMetadata& m) {
  Json inputs = Json::array(), outputs = Json::array();
  for (const TensorMetadata& t : m.inputs) inputs.push_back(tensor_json(t));
  for (const TensorMetadata& t : m.outputs) outputs.push_back(tensor_json(t));
  return {{"name", m.name},
          {"versions", m.versions},
          {"platform", m.platform},
          {"inputs", inputs},
          {"outputs", outputs}};
}

/// Triton's model configuration (model_config.proto as JSON) of what the server does with a
/// model: with batching, dims leave out the batch dimension, as Triton's do.
Json config_json(const ServedConfig& c) {
  const ModelMetadata& m = c.metadata;
  auto tensors = [&](const std::vector<TensorMetadata>& list) {
    Json out = Json::array();
    for (const TensorMetadata& t : list) {
      auto first = t.shape.begin() + (c.max_batch_size > 0 && !t.shape.empty() ? 1 : 0);
      out.push_back({{"name", t.name},
                     {"data_type", "TYPE_" + std::string(*datatype_name(t.dtype))},
                     {"dims", std::vector<int64_t>(first, t.shape.end())}});
    }
    return out;
  };
  Json j = {{"name", m.name},
            {"platform", m.platform},
            {"backend", "hhlo"},
            {"max_batch_size", c.max_batch_size},
            {"input", tensors(m.inputs)},
            {"output", tensors(m.outputs)},
            {"version_policy", {{"latest", {{"num_versions", 1}}}}},
            {"instance_group", {{{"count", c.instances}, {"kind", "KIND_CPU"}}}}};
  if (c.max_batch_size > 0 && c.dynamic_batching)
    j["dynamic_batching"] = {{"preferred_batch_size", c.batch_sizes},
                             {"max_queue_delay_microseconds", c.max_queue_delay.count()},
                             {"default_queue_policy", {{"max_queue_size", c.max_queue_size}}}};
  return j;
}

/// Triton's `batch_stats`: per batch size, the executions and their time (the input and output
/// copies are inside compute_infer's time).
Json batch_json(const ModelStatistics& s) {
  Json list = Json::array();
  for (const BatchExecutions& b : s.batch_executions)
    list.push_back({{"batch_size", b.batch_size},
                    {"compute_input", {{"count", b.count}, {"ns", 0}}},
                    {"compute_infer", {{"count", b.count}, {"ns", b.compute_ns}}},
                    {"compute_output", {{"count", b.count}, {"ns", 0}}}});
  return list;
}

Json statistics_json(const std::vector<ModelStatistics>& stats) {
  Json list = Json::array();
  auto duration = [](uint64_t count, uint64_t ns) { return Json{{"count", count}, {"ns", ns}}; };
  for (const ModelStatistics& s : stats)
    list.push_back({{"name", s.name},
                    {"version", s.version},
                    {"last_inference", s.last_inference_ms},
                    {"inference_count", s.inference_count},
                    {"execution_count", s.execution_count},
                    {"inference_stats",
                     {{"success", duration(s.success_count, s.success_ns)},
                      {"fail", duration(s.fail_count, s.fail_ns)},
                      {"queue", duration(s.success_count, s.queue_ns)},
                      {"compute_input", duration(s.success_count, 0)},
                      {"compute_infer", duration(s.success_count, s.compute_ns)},
                      {"compute_output", duration(s.success_count, 0)}}},
                    {"batch_stats", batch_json(s)}});
  return {{"model_stats", list}};
}

HttpReply index_reply(const Server& server) {
  Json list = Json::array();
  for (const ModelIndexEntry& e : server.repository_index()) {
    Json j = {{"name", e.name}, {"version", e.version}, {"state", e.state}};
    if (!e.reason.empty()) j["reason"] = e.reason;
    list.push_back(j);
  }
  return json_reply(list);
}

void infer_route(Server& server, const std::string& model, const std::string& version,
                 const HttpRequestView& request, const DecodeLimits& limits,
                 const std::function<void(HttpReply)>& reply, Cancelled cancelled) {
  std::optional<std::size_t> json_size;
  if (!request.json_size.empty()) {
    std::size_t n = 0;
    auto [end, ec] = std::from_chars(request.json_size.data(),
                                     request.json_size.data() + request.json_size.size(), n);
    if (ec != std::errc() || end != request.json_size.data() + request.json_size.size())
      return reply(error_reply(Status::invalid_argument, "Inference-Header-Content-Length \"" +
                                                             std::string(request.json_size) +
                                                             "\" is not a byte count"));
    json_size = n;
  }
  InferRequest decoded;
  try {
    std::string inflated;
    std::string_view body = request.body;
    if (!request.content_encoding.empty() && request.content_encoding != "identity") {
      inflated = inflated_body(body, request.content_encoding, limits.max_inflated_bytes);
      body = inflated;
    }
    decoded = decode_infer_request(body, json_size, limits);
  } catch (const ServeError& e) {
    return reply(error_reply(e.status(), e.what()));
  }
  std::string encoding(response_encoding(request.accept_encoding));
  server.infer(
      model, version, std::move(decoded),
      [reply, encoding](InferOutcome out) {
        if (out.error) return reply(error_reply(out.error->status(), out.error->what()));
        try {
          EncodedBody body = encode_infer_response(*out.response, out.binary);
          if (encoding.empty()) return reply({200, std::move(body.body), body.json_size, "", ""});
          reply({200, deflated_body(body.body, encoding), body.json_size, "", encoding});
        } catch (const std::exception& e) {
          reply(error_reply(Status::internal, e.what()));
        }
      },
      std::move(cancelled));
}

/// The routes under /v2/models/NAME[/versions/V]: `rest` is what follows the model (and
/// version).
void model_route(Server& server, const std::string& model, const std::string& version,
                 const std::vector<std::string>& rest, const HttpRequestView& request,
                 const DecodeLimits& limits, const std::function<void(HttpReply)>& reply,
                 Cancelled cancelled) {
  bool get = request.method == "GET", post = request.method == "POST";
  std::string what = rest.empty() ? "" : rest[0];
  if (rest.size() > 1) what = "?";
  if (what.empty() && get) return reply(json_reply(metadata_json(server.metadata(model, version))));
  if (what == "ready" && get)
    return reply(
        server.model_ready(model, version)
            ? HttpReply{200, "", std::nullopt, ""}
            : error_reply(Status::invalid_argument, "model \"" + model + "\" is not ready"));
  if (what == "config" && get) return reply(json_reply(config_json(server.config(model, version))));
  if (what == "stats" && get)
    return reply(json_reply(statistics_json(server.statistics(model, version))));
  if (what == "infer" && post)
    return infer_route(server, model, version, request, limits, reply, std::move(cancelled));
  reply(error_reply(Status::not_found,
                    "no route " + std::string(request.method) + " " + std::string(request.target)));
}

/// POST v2/repository/models/NAME/load|unload: run on the server's control thread, answered
/// when done (400 in the control mode none, 404 for an unknown model, the load's error).
void control_route(Server& server, const std::string& name, bool load,
                   const std::function<void(HttpReply)>& reply) {
  if (server.control() == ModelControl::none)
    return reply(error_reply(Status::invalid_argument,
                             "explicit model " + std::string(load ? "load" : "unload") +
                                 " is not allowed: the model control mode is \"none\" (models "
                                 "are loaded from the repository at start)"));
  server.run_control([&server, name, load, reply] {
    try {
      load ? server.load_model(name) : server.unload_model(name);
      reply(HttpReply{200, "", std::nullopt, ""});
    } catch (const ServeError& e) {
      reply(error_reply(e.status(), e.what()));
    } catch (const std::exception& e) {
      reply(error_reply(Status::internal, e.what()));
    }
  });
}

void route(Server& server, const HttpRequestView& request, const DecodeLimits& limits,
           const std::function<void(HttpReply)>& reply, Cancelled cancelled) {
  std::optional<std::vector<std::string>> path = segments_of(request.target);
  bool get = request.method == "GET", post = request.method == "POST";
  auto not_found = [&] {
    reply(error_reply(Status::not_found, "no route " + std::string(request.method) + " " +
                                             std::string(request.target)));
  };
  if (!path) return not_found();
  const std::vector<std::string>& p = *path;
  if (p.empty() && get)
    return reply(json_reply(
        {{"name", "hhlo"}, {"version", std::string(version())}, {"extensions", kExtensions}}));
  if (p.size() == 2 && p[0] == "health" && get) {
    bool ok = p[1] == "live" ? server.live() : p[1] == "ready" ? server.ready() : false;
    if (p[1] != "live" && p[1] != "ready") return not_found();
    return reply(ok ? HttpReply{200, "", std::nullopt, ""}
                    : error_reply(Status::invalid_argument, "the server is not " + p[1]));
  }
  if (p.size() == 2 && p[0] == "models" && p[1] == "stats" && get)
    return reply(json_reply(statistics_json(server.statistics())));
  if (p.size() >= 2 && p[0] == "models") {
    std::string version;
    std::vector<std::string> rest(p.begin() + 2, p.end());
    if (rest.size() >= 2 && rest[0] == "versions") {
      version = rest[1];
      rest.erase(rest.begin(), rest.begin() + 2);
    }
    return model_route(server, p[1], version, rest, request, limits, reply, std::move(cancelled));
  }
  if (p.size() == 2 && p[0] == "repository" && p[1] == "index" && post)
    return reply(index_reply(server));
  if (p.size() == 4 && p[0] == "repository" && p[1] == "models" &&
      (p[3] == "load" || p[3] == "unload") && post)
    return control_route(server, p[2], p[3] == "load", reply);
  not_found();
}

}  // namespace

void handle_http(Server& server, const HttpRequestView& request, const DecodeLimits& limits,
                 std::function<void(HttpReply)> reply, Cancelled cancelled) {
  auto replied = std::make_shared<std::atomic<bool>>(false);
  std::function<void(HttpReply)> once = [reply = std::move(reply), replied](HttpReply r) {
    if (!replied->exchange(true)) reply(std::move(r));
  };
  try {
    route(server, request, limits, once, std::move(cancelled));
  } catch (const ServeError& e) {
    once(error_reply(e.status(), e.what()));
  } catch (const std::exception& e) {
    once(error_reply(Status::internal, e.what()));
  }
}

HttpReply handle_metrics(const Server& server, const HttpRequestView& request) {
  std::string_view path = request.target.substr(0, request.target.find('?'));
  if (request.method != "GET" || path != "/metrics")
    return error_reply(Status::not_found, "no route " + std::string(request.method) + " " +
                                              std::string(request.target) +
                                              " (the metrics port serves GET /metrics)");
  try {
    return {200, prometheus_text(server.statistics()), std::nullopt,
            "text/plain; version=0.0.4; charset=utf-8"};
  } catch (const std::exception& e) {
    return error_reply(Status::internal, e.what());
  }
}

}  // namespace hhlo::serve
