// One version of a model as a server holds it: its program read once, its metadata (names,
// datatypes, shapes) from the program, and executables loaded through hhlo::load: one at load
// when every input shape is static (run once on zeros before the model is ready), else one per
// distinct set of input shapes a request brings (shape refinement of a symbolic export), kept
// up to a bound. Thread-safe: any number of threads may call infer at once.
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hhlo/program/load.h"
#include "hhlo/serve/inference.h"

namespace hhlo::serve {

/// How a server loads its models.
struct ModelLoadOptions {
  /// hhlo::load's options (platform, execution mode, XLA options, rewrites); prepare.arg_types
  /// is set per shape by the model.
  LoadOptions load;
  /// The persistent compile cache (hhlo/runtime/compile_cache.h), or null.
  CompileCache* cache = nullptr;
  /// The client every model of the server runs on (hhlo::load's LoadRequest::client), or null:
  /// each load makes its own.
  const Client* client = nullptr;
  /// Executables kept per model for distinct input shapes (a symbolic model); the least
  /// recently used is dropped beyond it.
  std::size_t max_shapes = 16;
};

/// One loaded version of a model.
class ServedModel {
 public:
  /// Reads `bytes` (a `jax.export` artifact, StableHLO text or bytecode; `source_name` names it
  /// in messages and chooses the reader as hhlo::load does), derives the metadata of model
  /// `name` version `version` and, when every input is static and it is not batched by vmap,
  /// loads its executable and runs it once on zeros. With `vmap_batching`, a program whose
  /// inputs and outputs do not share a symbolic batch dimension is served batched by `vmap`
  /// over a new leading axis (PrepareOptions::vmap_batch): its metadata shapes gain a leading
  /// -1 and batches() is true. Throws hhlo::Error (what read_program and hhlo::load throw, and
  /// for vmap batching of a program with a symbolic dimension) and ServeError
  /// (invalid_argument) when an input or output has a type the protocol cannot carry (complex,
  /// a PRNG key, i4, float8), naming it.
  ServedModel(std::string name, std::string version, std::string bytes, std::string source_name,
              const ModelLoadOptions& options, bool vmap_batching = false);
  ~ServedModel();
  ServedModel(const ServedModel&) = delete;
  ServedModel& operator=(const ServedModel&) = delete;

  /// The model's metadata (versions: this one).
  const ModelMetadata& metadata() const { return metadata_; }
  const std::string& version() const { return version_; }

  /// True when every input and output of the model has the same symbolic leading dimension
  /// (a `jax.export` artifact's batch symbol, used nowhere else in its shapes), or the model is
  /// batched by vmap: requests can be stacked along it into one call (hhlo/serve/batching.h).
  bool batches() const { return batches_; }

  /// Runs `request`: ordered_inputs, run, respond.
  InferResponse infer(const InferRequest& request) const;

  /// `inputs` (a request's, taken: move them in to spare a copy) in the model's order: matched
  /// by name (every input exactly once), each checked against the metadata's datatype, rank and
  /// static dimensions. Throws ServeError (invalid_argument) for an unknown, missing, repeated
  /// or mistyped input, naming it and both types.
  std::vector<Array> ordered_inputs(std::vector<NamedTensor> inputs) const;

  /// Runs the model on `inputs` (the model's order) and gives every output. The executable for
  /// their types is the one loaded for them before, else loaded now (kept up to
  /// ModelLoadOptions::max_shapes). Throws ServeError: invalid_argument when the program's
  /// symbolic dimensions or shape assertions refuse these shapes; internal for a failure
  /// compiling or running.
  std::vector<Array> run(const std::vector<Array>& inputs) const;

  /// The response to `request` from `outputs` (every output of one run, the model's order): the
  /// outputs the request asks for, in its order (every output when it names none). Throws
  /// ServeError (invalid_argument) for an output the model does not have.
  InferResponse respond(const InferRequest& request, std::vector<Array> outputs) const;

  /// Checks that the model has every output `request` asks for (respond's check, before
  /// anything runs). Throws as respond.
  void check_outputs(const InferRequest& request) const;

  /// Loads the executables for batches of each size of `sizes` (batches() models whose other
  /// dimensions are static; others: nothing) and runs each once on zeros. Throws what run
  /// throws.
  void warm_up(const std::vector<int64_t>& sizes) const;

  /// The response outputs' binary flags for `request` (RequestedOutput::binary, else
  /// InferRequest::binary_data_output), in the order infer gives the outputs.
  std::vector<bool> binary_outputs(const InferRequest& request) const;

 private:
  struct Compiled;
  std::shared_ptr<const Compiled> compiled_for(const std::vector<TensorType>& types) const;
  std::shared_ptr<const Compiled> find_compiled(const std::vector<TensorType>& types) const;
  std::shared_ptr<const Compiled> load_for(const std::vector<TensorType>& types) const;
  std::vector<std::size_t> wanted_outputs(const InferRequest& request) const;

  std::string name_, version_, bytes_, source_name_;
  ModelLoadOptions options_;
  ModelMetadata metadata_;
  bool static_ = false, batches_ = false, vmap_ = false;
  std::string batch_symbol_;       // the artifact's batch dimension ("b"), when batches_ && !vmap_
  mutable std::mutex mutex_;       // guards compiled_
  mutable std::mutex load_mutex_;  // one load at a time
  mutable std::vector<std::pair<std::vector<TensorType>, std::shared_ptr<const Compiled>>>
      compiled_;  // most recently used last
};

}  // namespace hhlo::serve
