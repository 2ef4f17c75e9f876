// One version of a model as a server holds it (hhlo/serve/served_model.h).
#include "hhlo/serve/served_model.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "hhlo/ir/entry.h"
#include "hhlo/ir/refine.h"
#include "hhlo/program/placed_call.h"

namespace hhlo::serve {

/// An executable for one set of input types, and what loading it learned.
struct ServedModel::Compiled {
  Loaded loaded;
};

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw ServeError(Status::invalid_argument, message);
}

/// Metadata of one input or output of type `type` (dims, kDynamic as -1) named `name`.
TensorMetadata tensor_metadata(const std::string& name, const TensorType& type,
                               const std::string& model) {
  if (!datatype_name(type.dtype))
    invalid("model \"" + model + "\": \"" + name + "\" has element type " +
            std::string(dtype_name(type.dtype)) +
            ", which the Open Inference Protocol has no datatype for");
  TensorMetadata t{name, type.dtype, {}};
  for (int64_t d : type.dims) t.shape.push_back(d == kDynamic ? -1 : d);
  return t;
}

/// The type of an artifact's aval, or a ServeError naming it when we have no DType for it.
TensorType aval_type(const ExportedAval& aval, const std::string& name, const std::string& model) {
  if (!aval.dtype)
    invalid("model \"" + model + "\": \"" + name + "\" has element type " + aval.dtype_name +
            ", which the Open Inference Protocol has no datatype for");
  return aval.type();
}

/// The names and types of `program`'s inputs and outputs, dynamic dimensions as kDynamic.
void read_signature(const Program& program, const std::string& model, ModelMetadata& out) {
  IoNames names = io_names(program);
  if (const Exported* e = program.exported()) {
    for (std::size_t i = 0; i < e->in_avals.size(); ++i)
      out.inputs.push_back(
          tensor_metadata(names.args[i], aval_type(e->in_avals[i], names.args[i], model), model));
    for (std::size_t i = 0; i < e->out_avals.size(); ++i)
      out.outputs.push_back(tensor_metadata(
          names.results[i], aval_type(e->out_avals[i], names.results[i], model), model));
    return;
  }
  const Func* f = program.module.find(resolve_entry(program.module));
  if (f == nullptr) throw Error("model \"" + model + "\" has no entry function");
  std::size_t first = has_platform_index(*f) ? 1 : 0;
  for (std::size_t i = first; i < f->arg_types().size(); ++i)
    out.inputs.push_back(tensor_metadata(names.args[i - first], f->arg_types()[i], model));
  for (std::size_t i = 0; i < f->result_types().size(); ++i)
    out.outputs.push_back(tensor_metadata(names.results[i], f->result_types()[i], model));
}

/// True when every aval of `e` has the same symbolic first dimension, a bare symbol ("b") that
/// no other dimension of any aval mentions.
bool shares_batch_symbol(const Exported& e) {
  if (e.in_avals.empty() || e.out_avals.empty()) return false;
  const std::vector<std::string>& first = e.in_avals[0].shape;
  if (first.empty()) return false;
  const std::string& symbol = first[0];
  bool bare = !symbol.empty() && std::all_of(symbol.begin(), symbol.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  if (!bare || std::isdigit(static_cast<unsigned char>(symbol[0]))) return false;
  auto fits = [&](const ExportedAval& a) {
    if (a.shape.empty() || a.shape[0] != symbol) return false;
    for (std::size_t d = 1; d < a.shape.size(); ++d)
      if (a.shape[d].find(symbol) != std::string::npos) return false;
    return true;
  };
  return std::all_of(e.in_avals.begin(), e.in_avals.end(), fits) &&
         std::all_of(e.out_avals.begin(), e.out_avals.end(), fits);
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

/// Checks `a` against the metadata `m` of the input it is given as.
void check_input(const TensorMetadata& m, const Array& a) {
  bool fits = a.dtype() == m.dtype && a.dims().size() == m.shape.size();
  for (std::size_t d = 0; fits && d < m.shape.size(); ++d)
    fits = m.shape[d] == -1 || m.shape[d] == a.dims()[d];
  if (!fits)
    invalid("input \"" + m.name + "\" is " + std::string(*datatype_name(a.dtype())) +
            shape_text(std::vector<int64_t>(a.dims().begin(), a.dims().end())) +
            "; the model takes " + std::string(*datatype_name(m.dtype)) + shape_text(m.shape));
}

}  // namespace

ServedModel::ServedModel(std::string name, std::string version, std::string bytes,
                         std::string source_name, const ModelLoadOptions& options,
                         bool vmap_batching)
    : name_(std::move(name)),
      version_(std::move(version)),
      bytes_(std::move(bytes)),
      source_name_(std::move(source_name)),
      options_(options) {
  ReadProgramOptions read;
  read.source_name = source_name_;
  read.vjp_order = options_.load.vjp_order;
  Program program = read_program(bytes_, read);
  metadata_.name = name_;
  metadata_.versions = {version_};
  metadata_.platform =
      program.format == ProgramFormat::exported ? "hhlo_jax_export" : "hhlo_stablehlo";
  read_signature(program, name_, metadata_);
  batches_ = program.exported() != nullptr && shares_batch_symbol(*program.exported());
  if (batches_) batch_symbol_ = program.exported()->in_avals[0].shape[0];
  static_ = std::all_of(metadata_.inputs.begin(), metadata_.inputs.end(), [](const auto& t) {
    return std::find(t.shape.begin(), t.shape.end(), -1) == t.shape.end();
  });
  if (vmap_batching && !batches_) {
    if (!static_)
      throw Error("model \"" + name_ +
                  "\" cannot be batched by vmap: an input has a symbolic dimension that is not "
                  "a batch dimension shared by every input and output");
    for (auto* list : {&metadata_.inputs, &metadata_.outputs})
      for (TensorMetadata& t : *list) t.shape.insert(t.shape.begin(), -1);
    batches_ = vmap_ = true;
    static_ = false;
  }
  if (!static_) return;
  std::vector<Array> zeros;
  for (const TensorMetadata& t : metadata_.inputs)
    zeros.emplace_back(t.dtype, Dims(t.shape.begin(), t.shape.end()));
  run(zeros);  // the warm-up run
}

ServedModel::~ServedModel() = default;

std::shared_ptr<const ServedModel::Compiled> ServedModel::load_for(
    const std::vector<TensorType>& types) const {
  LoadRequest request;
  request.bytes = bytes_;
  request.name = source_name_;
  request.options = options_.load;
  request.options.prepare.arg_types = types;
  if (vmap_) {  // the program takes one example: its types, and the batch to vmap over
    request.options.prepare.vmap_batch = types.at(0).dims.at(0);
    for (TensorType& t : *request.options.prepare.arg_types) t.dims.erase(t.dims.begin());
  }
  request.cache = options_.cache;
  request.client = options_.client;
  LoadStage stage = LoadStage::read;
  request.stage = &stage;
  try {
    return std::make_shared<const Compiled>(Compiled{load(request)});
  } catch (const ShapeAssertionError& e) {
    invalid(std::string("model \"") + name_ + "\" refuses these input shapes: " + e.what());
  } catch (const ShapeError& e) {
    if (stage == LoadStage::prepare)
      invalid(std::string("model \"") + name_ + "\" refuses these input shapes: " + e.what());
    throw;
  }
}

std::shared_ptr<const ServedModel::Compiled> ServedModel::find_compiled(
    const std::vector<TensorType>& types) const {
  std::lock_guard lock(mutex_);
  for (auto it = compiled_.begin(); it != compiled_.end(); ++it)
    if (it->first == types) {
      std::rotate(it, it + 1, compiled_.end());  // most recently used last
      return compiled_.back().second;
    }
  return nullptr;
}

std::shared_ptr<const ServedModel::Compiled> ServedModel::compiled_for(
    const std::vector<TensorType>& types) const {
  if (std::shared_ptr<const Compiled> c = find_compiled(types)) return c;
  // One load at a time; requests for shapes already loaded go on meanwhile (mutex_ is free).
  std::lock_guard loading(load_mutex_);
  if (std::shared_ptr<const Compiled> c = find_compiled(types)) return c;  // loaded meanwhile
  std::shared_ptr<const Compiled> c = load_for(types);
  std::lock_guard lock(mutex_);
  compiled_.emplace_back(types, c);
  if (compiled_.size() > std::max<std::size_t>(options_.max_shapes, 1))
    compiled_.erase(compiled_.begin());
  return c;
}

std::vector<Array> ServedModel::ordered_inputs(std::vector<NamedTensor> given_inputs) const {
  std::vector<Array> inputs(metadata_.inputs.size());
  std::vector<bool> given(metadata_.inputs.size(), false);
  for (NamedTensor& in : given_inputs) {
    auto it = std::find_if(metadata_.inputs.begin(), metadata_.inputs.end(),
                           [&](const TensorMetadata& m) { return m.name == in.name; });
    if (it == metadata_.inputs.end()) {
      std::string known;
      for (const TensorMetadata& m : metadata_.inputs)
        known += (known.empty() ? "" : ", ") + m.name;
      invalid("model \"" + name_ + "\" has no input \"" + in.name + "\"; its inputs: " + known);
    }
    std::size_t i = std::size_t(it - metadata_.inputs.begin());
    if (given[i]) invalid("input \"" + in.name + "\" is given twice");
    check_input(*it, in.tensor);
    inputs[i] = std::move(in.tensor);
    given[i] = true;
  }
  if (batches_ && !vmap_ && !inputs.empty() && inputs[0].rank() > 0 && inputs[0].dims()[0] == 0)
    invalid("input \"" + metadata_.inputs[0].name + "\" has 0 rows along the batch dimension '" +
            batch_symbol_ + "'; the program takes '" + batch_symbol_ +
            "' >= 1 (JAX's symbolic dimensions are at least 1)");
  for (std::size_t i = 0; i < given.size(); ++i)
    if (!given[i])
      invalid("request gives no input \"" + metadata_.inputs[i].name + "\" of model \"" + name_ +
              "\"");
  return inputs;
}

std::vector<std::size_t> ServedModel::wanted_outputs(const InferRequest& request) const {
  std::vector<std::size_t> wanted;
  for (const RequestedOutput& o : request.outputs) {
    auto it = std::find_if(metadata_.outputs.begin(), metadata_.outputs.end(),
                           [&](const TensorMetadata& m) { return m.name == o.name; });
    if (it == metadata_.outputs.end()) {
      std::string known;
      for (const TensorMetadata& m : metadata_.outputs)
        known += (known.empty() ? "" : ", ") + m.name;
      invalid("model \"" + name_ + "\" has no output \"" + o.name + "\"; its outputs: " + known);
    }
    wanted.push_back(std::size_t(it - metadata_.outputs.begin()));
  }
  if (request.outputs.empty())
    for (std::size_t i = 0; i < metadata_.outputs.size(); ++i) wanted.push_back(i);
  return wanted;
}

void ServedModel::check_outputs(const InferRequest& request) const { wanted_outputs(request); }

std::vector<bool> ServedModel::binary_outputs(const InferRequest& request) const {
  std::vector<bool> binary;
  if (request.outputs.empty())
    binary.assign(metadata_.outputs.size(), request.binary_data_output);
  else
    for (const RequestedOutput& o : request.outputs) binary.push_back(o.binary);
  return binary;
}

std::vector<Array> ServedModel::run(const std::vector<Array>& inputs) const {
  std::vector<TensorType> types;
  for (const Array& a : inputs) types.push_back(a.type());
  std::shared_ptr<const Compiled> c = compiled_for(types);
  try {
    return PlacedCall(c->loaded.client, c->loaded.executable,
                      select_kept(c->loaded.facts.kept_inputs, inputs))
        .to_host();
  } catch (const Error& e) {
    throw ServeError(Status::internal, std::string("model \"") + name_ + "\" failed: " + e.what());
  }
}

InferResponse ServedModel::respond(const InferRequest& request, std::vector<Array> outputs) const {
  InferResponse response{name_, version_, request.id, {}};
  std::vector<bool> moved(outputs.size(), false);
  for (std::size_t i : wanted_outputs(request)) {  // each output moved once, copied if asked again
    response.outputs.push_back(
        {metadata_.outputs[i].name, moved.at(i) ? outputs.at(i) : std::move(outputs.at(i))});
    moved[i] = true;
  }
  return response;
}

InferResponse ServedModel::infer(const InferRequest& request) const {
  check_outputs(request);
  return respond(request, run(ordered_inputs(request.inputs)));
}

void ServedModel::warm_up(const std::vector<int64_t>& sizes) const {
  if (!batches_) return;
  for (const TensorMetadata& t : metadata_.inputs)
    if (std::find(t.shape.begin() + 1, t.shape.end(), -1) != t.shape.end()) return;
  for (int64_t size : sizes) {
    std::vector<Array> zeros;
    for (const TensorMetadata& t : metadata_.inputs) {
      Dims dims(t.shape.begin(), t.shape.end());
      dims[0] = size;
      zeros.emplace_back(t.dtype, dims);
    }
    run(zeros);
  }
}

}  // namespace hhlo::serve
