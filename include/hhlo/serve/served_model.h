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
  /// `name` version `version` and, when every input is static, loads its executable and runs it
  /// once on zeros. Throws hhlo::Error (what read_program and hhlo::load throw) and ServeError
  /// (invalid_argument) when an input or output has a type the protocol cannot carry (complex,
  /// a PRNG key, i4, float8), naming it.
  ServedModel(std::string name, std::string version, std::string bytes, std::string source_name,
              const ModelLoadOptions& options);
  ~ServedModel();
  ServedModel(const ServedModel&) = delete;
  ServedModel& operator=(const ServedModel&) = delete;

  /// The model's metadata (versions: this one).
  const ModelMetadata& metadata() const { return metadata_; }
  const std::string& version() const { return version_; }

  /// Runs `request`: its inputs matched to the model's by name (every input exactly once),
  /// each checked against the metadata's datatype, rank and static dimensions, then the outputs
  /// the request asks for (every output when it names none). Throws ServeError:
  /// invalid_argument for an unknown, missing or repeated input, a wrong datatype or shape
  /// (naming the input, both types), an unknown output, shapes the program's symbolic
  /// dimensions or shape assertions refuse; internal for a failure compiling or running.
  InferResponse infer(const InferRequest& request) const;

  /// Checks `request` against the metadata without running it: what infer refuses before it
  /// compiles or runs. Throws ServeError (invalid_argument) for an unknown, missing or repeated
  /// input, a wrong datatype, rank or static dimension, an unknown output. Server::infer calls
  /// it before a request is queued, so such a request is answered 400 at once, never 503.
  void check(const InferRequest& request) const;

  /// The response outputs' binary flags for `request` (RequestedOutput::binary, else
  /// InferRequest::binary_data_output), in the order infer gives the outputs.
  std::vector<bool> binary_outputs(const InferRequest& request) const;

 private:
  struct Compiled;
  std::shared_ptr<const Compiled> compiled_for(const std::vector<TensorType>& types) const;
  std::shared_ptr<const Compiled> load_for(const std::vector<TensorType>& types) const;
  /// The model's input index of each of the request's inputs, checked (check()).
  std::vector<std::size_t> input_slots(const InferRequest& request) const;
  /// The model's output index of each output the request asks for (all when it names none).
  std::vector<std::size_t> output_slots(const InferRequest& request) const;
  std::vector<Array> ordered_inputs(const InferRequest& request) const;

  std::string name_, version_, bytes_, source_name_;
  ModelLoadOptions options_;
  ModelMetadata metadata_;
  bool static_ = false;
  mutable std::mutex mutex_;  // guards compiled_ and serializes loads
  mutable std::vector<std::pair<std::vector<TensorType>, std::shared_ptr<const Compiled>>>
      compiled_;  // most recently used last
};

}  // namespace hhlo::serve
