// How one model is served: the server's defaults, overridden by the model's `config.pbtxt`
// (Triton's model configuration, protobuf text format) read against our own declaration of the
// fields hhlo serve honours (src/serve/proto/inference.proto, `ModelConfig`). A field it does not
// honour is an error naming it, never silently ignored.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hhlo/core/dtype.h"
#include "hhlo/serve/inference.h"

namespace hhlo::serve {

/// Dynamic batching of the models that allow it (ServedModel::batches(): one symbolic leading
/// dimension shared by every input and output), as Triton's `dynamic_batching`.
struct BatchingOptions {
  /// Rows in one call (Triton's `max_batch_size`); below 2: no batching. Requests waiting for
  /// the same model with the same dimensions beyond the first are stacked up to this many rows;
  /// a request of more rows runs alone.
  int64_t max_batch_size = 16;
  /// The batch sizes compiled and warmed at load (Triton's `preferred_batch_size`); empty: the
  /// powers of two below max_batch_size, and max_batch_size (batch_buckets). A batch is padded
  /// with copies of a real row to the smallest size holding it.
  std::vector<int64_t> preferred_batch_sizes;
  /// How long the first request of a batch may wait for more (Triton's
  /// `max_queue_delay_microseconds`); zero: a batch is what is queued when an executor is free.
  std::chrono::microseconds max_queue_delay{0};
};

/// An input or output a config lists: checked against the program's (check_config_tensors).
struct ConfigTensor {
  std::string name;
  DType dtype = DType::f32;
  /// Triton's dims: without the batch dimension when max_batch_size > 0; -1 for any size.
  std::vector<int64_t> dims;
  bool is_input = true;
};

/// How one model is served.
struct ModelSettings {
  /// Requests waiting beyond those running (Triton's `max_queue_size`; 0 there means the
  /// server's default).
  std::size_t max_queue_size = 64;
  /// Executors (the counts of Triton's `instance_group`s together).
  int instances = 1;
  /// A request's time in the queue when it gives no `timeout` (Triton's
  /// `default_timeout_microseconds`); zero: unbounded.
  std::chrono::microseconds default_timeout{0};
  /// Whether a request's `timeout` replaces default_timeout (Triton's `allow_timeout_override`).
  bool allow_timeout_override = true;
  /// Batching: max_batch_size 0 or 1 is none.
  BatchingOptions batching;
  /// Whether queued requests are stacked (Triton's `dynamic_batching` present); false: each
  /// runs alone, padded to a compiled batch size.
  bool dynamic_batching = true;
  /// Batch a model whose inputs have no shared batch dimension by `vmap` over a new leading
  /// axis (a config with max_batch_size > 0 for such a model asks for it).
  bool vmap_batching = false;
  /// The version to serve (Triton's `version_policy { specific { versions: [N] } }`); 0: the
  /// newest (`latest { num_versions: 1 }`, the default).
  int64_t version = 0;
  /// The inputs and outputs the config lists.
  std::vector<ConfigTensor> tensors;
};

/// `defaults` overridden by the `config.pbtxt` at `path` of model `model`. Throws hhlo::Error
/// naming the file, the line and column and the cause for text that does not parse or names a
/// field hhlo serve does not honour (listing those it does), and for values it cannot serve: a
/// `name` other than `model`, a `platform`/`backend` other than hhlo's, `dynamic_batching` with
/// max_batch_size 0, a version policy other than one version, a GPU instance group, a datatype
/// the protocol has (TYPE_STRING) but we do not serve; hhlo::IoError when it cannot be read.
ModelSettings read_model_config(const std::string& path, const std::string& model,
                                ModelSettings defaults);

/// Checks the inputs and outputs `settings` lists against the served model's `metadata` (each
/// listed name exists with that datatype and dims; dims leave out the batch dimension when the
/// model batches, -1 in the config matches any size, -1 in the program only -1). Throws
/// hhlo::Error naming the tensor, both types and the config.
void check_config_tensors(const ModelSettings& settings, const ModelMetadata& metadata,
                          bool batches, const std::string& config_path);

}  // namespace hhlo::serve
