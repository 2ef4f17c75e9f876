// The model server's core (DESIGN.md "Layers": serve): the models of a repository laid out as
// Triton's, each version loaded through hhlo::load (hhlo/serve/served_model.h), a bounded queue
// per model served by its executors, and the statistics the protocol reports. The transports
// (hhlo/serve/http_server.h) turn requests into calls of this class and know nothing of models;
// a C++ program embeds a server by making one and giving it to a transport.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "hhlo/serve/inference.h"
#include "hhlo/serve/model_config.h"
#include "hhlo/serve/model_repository.h"
#include "hhlo/serve/served_model.h"

namespace hhlo::serve {

/// How the models of a repository are loaded and unloaded (Triton's `--model-control-mode`).
enum class ModelControl {
  /// Every model at start; load and unload requests are refused.
  none,
  /// The models ServerOptions::startup_models names at start; then load and unload requests.
  explicit_requests,
  /// Every model at start, then poll_repository() (the CLI calls it every
  /// `--repository-poll-secs`); load and unload requests too.
  poll,
};

/// How a server runs its models.
struct ServerOptions {
  /// How models are loaded (hhlo::load's options, the compile cache, the shared client).
  ModelLoadOptions load;
  /// Requests waiting per model beyond those running; one more is refused at once with
  /// Status::unavailable ("queue is full"), as Triton's `max_queue_size`.
  std::size_t max_queue_size = 64;
  /// Executors per model (Triton's `instance_group { count }`): requests of one model run on
  /// this many threads at once.
  int instances = 1;
  /// A request's time in the queue when it gives no `timeout` parameter; zero: unbounded.
  std::chrono::microseconds default_timeout{0};
  /// Dynamic batching.
  BatchingOptions batching;
  /// Batch a model whose inputs have no shared batch dimension by `vmap` over a new leading
  /// axis (ModelSettings::vmap_batching) when it has no config.pbtxt.
  bool vmap_batching = false;
  /// How models are loaded and unloaded.
  ModelControl control = ModelControl::none;
  /// With ModelControl::explicit_requests: the models loaded at start ("*": all; Triton's
  /// `--load-model`).
  std::vector<std::string> startup_models;
  /// How long a replaced or unloaded version may take to finish the requests it holds.
  std::chrono::milliseconds retire_grace{30000};
};

/// The outcome of one inference: the response and its outputs' binary flags, or the error.
struct InferOutcome {
  std::optional<InferResponse> response;
  std::vector<bool> binary;
  std::optional<ServeError> error;
};

/// Executions of one batch size: how many, and their time running (nanoseconds).
struct BatchExecutions {
  int64_t batch_size = 0;
  uint64_t count = 0, compute_ns = 0;
};

/// Statistics of one model version (Triton's `ModelStatistics`; durations in nanoseconds).
struct ModelStatistics {
  std::string name, version;
  /// Milliseconds since the epoch of the last inference, 0 when none ran.
  uint64_t last_inference_ms = 0;
  /// Inferences done (as Triton counts them: each row of a batching model's request is one,
  /// else each request), and executions of the model (one per batch).
  uint64_t inference_count = 0, execution_count = 0;
  /// Executions of a batching model by the rows the program ran on (padding included),
  /// ascending by batch size (Triton's `batch_stats`).
  std::vector<BatchExecutions> batch_executions;
  /// Requests that succeeded / failed, and their total time from arrival to answer.
  uint64_t success_count = 0, success_ns = 0, fail_count = 0, fail_ns = 0;
  /// Time requests waited in the queue, and time running the model (input and output copies
  /// included), over the successful ones.
  uint64_t queue_ns = 0, compute_ns = 0;
  /// Requests queued or running now.
  uint64_t pending = 0;
  /// Successful requests by their time from arrival to answer: duration_buckets[i] counts
  /// those up to request_duration_bounds_us()[i] microseconds and above the bound before; the
  /// last entry those above every bound.
  std::vector<uint64_t> duration_buckets;
};

/// What the server does with one model version (Triton's model configuration, as served).
struct ServedConfig {
  ModelMetadata metadata;
  /// Rows per call when the model batches (Triton's `max_batch_size`), 0 when it does not.
  int64_t max_batch_size = 0;
  /// The batch sizes compiled (BatchingOptions), empty when it does not batch.
  std::vector<int64_t> batch_sizes;
  std::chrono::microseconds max_queue_delay{0};
  std::size_t max_queue_size = 0;
  int instances = 1;
  /// Whether queued requests are stacked (Triton's `dynamic_batching` present).
  bool dynamic_batching = false;
};

/// The upper bounds (microseconds) of ModelStatistics::duration_buckets: 100 us to 10 s.
const std::vector<double>& request_duration_bounds_us();

/// One entry of the repository index (KServe's repository extension, Triton's
/// `RepositoryIndex`): a model, its version and state ("READY", "UNAVAILABLE" with the reason).
struct ModelIndexEntry {
  std::string name, version, state, reason;
};

/// The model server's core. Thread-safe.
class Server {
 public:
  explicit Server(ServerOptions options = {});
  /// Stops as stop() with no grace: queued requests are answered unavailable.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Loads the models of the repository at `path` (scan_repository): each model's newest
  /// version (or the one its config.pbtxt names), every model unless ServerOptions::control is
  /// explicit_requests (then those startup_models names). A model that fails to load is kept
  /// UNAVAILABLE with its error (repository_index gives it) and the rest are served. Throws
  /// hhlo::IoError when `path` cannot be scanned and ServeError (invalid_argument) when it holds
  /// no model.
  void load_repository(const std::string& path);

  /// Loads model `name` from the repository, or reloads it: the new version is loaded and
  /// warmed while the old one serves, then replaces it (requests already queued for the old
  /// one finish on it, within ServerOptions::retire_grace). Throws ServeError:
  /// invalid_argument when the control mode is none, not_found when the repository has no such
  /// model; and the load's error (a model being reloaded keeps serving its old version; a new
  /// one is UNAVAILABLE with the error).
  void load_model(const std::string& name);
  /// Unloads model `name`: it takes no new requests (not ready, UNAVAILABLE "unloaded"), and
  /// those queued finish within retire_grace. Throws ServeError: invalid_argument when the
  /// control mode is none, not_found for an unknown model.
  void unload_model(const std::string& name);
  /// Rescans the repository: loads models that appeared (and are not unloaded in
  /// explicit_requests mode), reloads those whose program or config.pbtxt changed (size or
  /// modification time), unloads those that disappeared. Returns the names of the models it
  /// loaded, reloaded or unloaded. Throws hhlo::IoError when the repository cannot be scanned.
  std::vector<std::string> poll_repository();
  /// Runs `task` on the server's control thread (loads and unloads asked over the protocol run
  /// there, not on a transport's thread). Tasks run one at a time, in order; those still
  /// queued when the server stops are run before stop() returns.
  void run_control(std::function<void()> task);
  /// The control mode.
  ModelControl control() const { return options_.control; }

  /// True until stop() is called (the protocol's server live).
  bool live() const;
  /// True when live and every model of the repository is ready (Triton's strict readiness).
  bool ready() const;
  /// True when `model` (version `version`, "" for the newest) is loaded and ready.
  bool model_ready(const std::string& model, const std::string& version = "") const;
  /// The metadata of `model`. Throws ServeError: not_found for an unknown model or version,
  /// unavailable for one that failed to load (with its error).
  ModelMetadata metadata(const std::string& model, const std::string& version = "") const;
  /// The configuration `model` is served with. Throws as metadata.
  ServedConfig config(const std::string& model, const std::string& version = "") const;
  /// The repository index: every model found, with its state.
  std::vector<ModelIndexEntry> repository_index() const;
  /// Statistics of `model`, or of every model when it is "". Throws ServeError (not_found).
  std::vector<ModelStatistics> statistics(const std::string& model = "",
                                          const std::string& version = "") const;

  /// Queues `request` for `model` and returns at once; `done` is called exactly once, on
  /// another thread or (for a request refused at once) on this one, with the response or the
  /// error: not_found for an unknown model or version; invalid_argument for inputs or outputs
  /// the model refuses (ServedModel::ordered_inputs, check_outputs: checked before the request
  /// is queued); unavailable when the model is not ready, its queue is full, the server is
  /// stopping, or the request's timeout passed (or `cancelled` said so) while it waited;
  /// what ServedModel::run throws. A batching model may run it stacked with others (its
  /// outputs are its own rows). `cancelled` (may be empty) is asked before the request runs: a
  /// client gone away sets it.
  void infer(const std::string& model, const std::string& version, InferRequest request,
             std::function<void(InferOutcome)> done, Cancelled cancelled = {});

  /// Stops accepting requests (live() and ready() turn false), lets the queued and running
  /// ones finish within `grace`, answers those still queued then with unavailable, and joins
  /// the executors. Idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(0));

 private:
  class ModelQueue;
  struct Entry;
  const Entry& find(const std::string& model, const std::string& version) const;
  ModelSettings default_settings() const;
  void load_entry(Entry& entry) const;
  void retire(std::shared_ptr<ModelQueue> queue) const;
  void control_loop();
  std::shared_ptr<ModelQueue> queue_of(const std::string& model, const std::string& version) const;

  ServerOptions options_;
  std::atomic<bool> live_{true};
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Entry>> models_;
  std::string repository_;
  std::mutex control_mutex_;  // one load, unload or poll at a time
  std::mutex tasks_mutex_;
  std::condition_variable tasks_ready_;
  std::deque<std::function<void()>> tasks_;
  bool tasks_stopping_ = false;
  std::thread control_thread_;
};

}  // namespace hhlo::serve
