// How one model is served, from its config.pbtxt (hhlo/serve/model_config.h).
#include "hhlo/serve/model_config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>

#include "hhlo/core/file_io.h"
#include "proto/inference.pb.h"

namespace hhlo::serve {
namespace {

namespace pb = ::inference;

constexpr const char* kHonoured =
    "name, platform, backend, max_batch_size, input {name, data_type, dims}, output {name, "
    "data_type, dims}, version_policy {latest {num_versions: 1} | specific {versions: [N]}}, "
    "dynamic_batching {preferred_batch_size, max_queue_delay_microseconds, default_queue_policy "
    "{max_queue_size, default_timeout_microseconds, allow_timeout_override}}, instance_group "
    "{name, count, kind: KIND_CPU | KIND_AUTO}";

/// Keeps the parser's first error with its position.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (text.empty())
      text = std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  std::string text;
};

DType dtype_of(pb::DataType t, const std::string& where) {
  std::string name = pb::DataType_Name(t);
  std::optional<DType> d =
      name.starts_with("TYPE_") ? dtype_of_datatype(name.substr(5)) : std::nullopt;
  if (!d) throw Error(where + " has data_type " + name + ", which hhlo serve does not serve");
  return *d;
}

void read_tensors(const pb::ModelConfig& c, ModelSettings& s, const std::string& where) {
  for (const pb::ModelInput& in : c.input())
    s.tensors.push_back({in.name(),
                         dtype_of(in.data_type(), where + ": input \"" + in.name() + "\""),
                         std::vector<int64_t>(in.dims().begin(), in.dims().end()), true});
  for (const pb::ModelOutput& out : c.output())
    s.tensors.push_back({out.name(),
                         dtype_of(out.data_type(), where + ": output \"" + out.name() + "\""),
                         std::vector<int64_t>(out.dims().begin(), out.dims().end()), false});
}

void read_scheduling(const pb::ModelConfig& c, ModelSettings& s, const std::string& where) {
  s.batching.max_batch_size = c.max_batch_size();
  if (c.max_batch_size() < 0) throw Error(where + ": max_batch_size is negative");
  // Triton's meaning: the inputs have a batch dimension the dims leave out; a program exported
  // without one is batched by vmap (ServedModel), one with a symbolic one as it is.
  s.vmap_batching = c.max_batch_size() > 0;
  s.dynamic_batching = c.has_dynamic_batching();
  if (!c.has_dynamic_batching()) return;
  if (c.max_batch_size() == 0)
    throw Error(where + ": dynamic_batching needs max_batch_size > 0 (as Triton's)");
  const pb::ModelDynamicBatching& b = c.dynamic_batching();
  s.batching.preferred_batch_sizes.assign(b.preferred_batch_size().begin(),
                                          b.preferred_batch_size().end());
  for (int64_t p : s.batching.preferred_batch_sizes)
    if (p < 1 || p > c.max_batch_size())
      throw Error(where + ": preferred_batch_size " + std::to_string(p) + " is outside 1.." +
                  std::to_string(c.max_batch_size()));
  s.batching.max_queue_delay = std::chrono::microseconds(b.max_queue_delay_microseconds());
  if (b.has_default_queue_policy()) {
    const pb::ModelQueuePolicy& q = b.default_queue_policy();
    if (q.max_queue_size() > 0) s.max_queue_size = q.max_queue_size();
    s.default_timeout = std::chrono::microseconds(q.default_timeout_microseconds());
    s.allow_timeout_override = q.allow_timeout_override();
  }
}

void read_instances(const pb::ModelConfig& c, ModelSettings& s, const std::string& where) {
  if (c.instance_group().empty()) return;
  int count = 0;
  for (const pb::ModelInstanceGroup& g : c.instance_group()) {
    if (g.kind() != pb::ModelInstanceGroup::KIND_CPU &&
        g.kind() != pb::ModelInstanceGroup::KIND_AUTO)
      throw Error(where + ": instance_group kind " + pb::ModelInstanceGroup::Kind_Name(g.kind()) +
                  " is not served (KIND_CPU, KIND_AUTO)");
    count += std::max(g.count(), 1);
  }
  s.instances = std::min(count, 256);
}

void read_version_policy(const pb::ModelConfig& c, ModelSettings& s, const std::string& where) {
  if (!c.has_version_policy()) return;
  const pb::ModelVersionPolicy& v = c.version_policy();
  if (v.has_latest() && v.latest().num_versions() > 1)
    throw Error(where + ": version_policy latest { num_versions: " +
                std::to_string(v.latest().num_versions()) +
                " } is not served: hhlo serve serves one version per model");
  if (v.has_specific()) {
    if (v.specific().versions_size() != 1)
      throw Error(where + ": version_policy specific names " +
                  std::to_string(v.specific().versions_size()) +
                  " versions; hhlo serve serves one version per model");
    s.version = v.specific().versions(0);
  }
}

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

ModelSettings read_model_config(const std::string& path, const std::string& model,
                                ModelSettings defaults) {
  std::string text = read_regular_file(path, "model configuration");
  pb::ModelConfig c;
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &c))
    throw Error(path + ":" + errors.text + " (hhlo serve honours: " + kHonoured + ")");
  if (!c.name().empty() && c.name() != model)
    throw Error(path + ": name \"" + c.name() + "\" differs from the model's folder \"" + model +
                "\"");
  for (const std::string& v : {c.platform(), c.backend()})
    if (!v.empty() && v != "hhlo" && v != "hhlo_jax_export" && v != "hhlo_stablehlo")
      throw Error(path + ": platform/backend \"" + v +
                  "\" is not hhlo's (hhlo, hhlo_jax_export, hhlo_stablehlo)");
  ModelSettings s = std::move(defaults);
  s.tensors.clear();
  read_scheduling(c, s, path);
  read_instances(c, s, path);
  read_version_policy(c, s, path);
  read_tensors(c, s, path);
  return s;
}

void check_config_tensors(const ModelSettings& settings, const ModelMetadata& metadata,
                          bool batches, const std::string& config_path) {
  for (const ConfigTensor& t : settings.tensors) {
    const auto& list = t.is_input ? metadata.inputs : metadata.outputs;
    std::string kind = t.is_input ? "input" : "output";
    auto it = std::find_if(list.begin(), list.end(),
                           [&](const TensorMetadata& m) { return m.name == t.name; });
    if (it == list.end())
      throw Error(config_path + ": " + kind + " \"" + t.name + "\" is not one of the program's");
    std::vector<int64_t> dims = it->shape;
    if (batches && !dims.empty()) dims.erase(dims.begin());
    bool same = t.dtype == it->dtype && t.dims.size() == dims.size();
    for (std::size_t d = 0; same && d < dims.size(); ++d)
      same = t.dims[d] == -1 || t.dims[d] == dims[d];
    if (!same)
      throw Error(config_path + ": " + kind + " \"" + t.name + "\" is " +
                  std::string(*datatype_name(t.dtype)) + shape_text(t.dims) +
                  "; the program's is " + std::string(*datatype_name(it->dtype)) +
                  shape_text(dims) + (batches ? " (without its batch dimension)" : ""));
  }
}

}  // namespace hhlo::serve
