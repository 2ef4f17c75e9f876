// The model server's core (DESIGN.md "Layers": serve): the models of a repository laid out as
// Triton's, each version loaded through hhlo::load (hhlo/serve/served_model.h), a bounded queue
// per model served by its executors, and the statistics the protocol reports. The transports
// (hhlo/serve/http_server.h) turn requests into calls of this class and know nothing of models;
// a C++ program embeds a server by making one and giving it to a transport.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hhlo/serve/inference.h"
#include "hhlo/serve/model_repository.h"
#include "hhlo/serve/served_model.h"

namespace hhlo::serve {

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
};

/// The outcome of one inference: the response and its outputs' binary flags, or the error.
struct InferOutcome {
  std::optional<InferResponse> response;
  std::vector<bool> binary;
  std::optional<ServeError> error;
};

/// Statistics of one model version (Triton's `ModelStatistics`; durations in nanoseconds).
struct ModelStatistics {
  std::string name, version;
  /// Milliseconds since the epoch of the last inference, 0 when none ran.
  uint64_t last_inference_ms = 0;
  /// Inferences done (requests that ran), and executions of the model.
  uint64_t inference_count = 0, execution_count = 0;
  /// Requests that succeeded / failed, and their total time from arrival to answer.
  uint64_t success_count = 0, success_ns = 0, fail_count = 0, fail_ns = 0;
  /// Time requests waited in the queue, and time running the model (input and output copies
  /// included), over the successful ones.
  uint64_t queue_ns = 0, compute_ns = 0;
};

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

  /// Loads every model of the repository at `path` (scan_repository): each model's newest
  /// version. A model that fails to load is kept UNAVAILABLE with its error (repository_index
  /// gives it) and the rest are served. Throws hhlo::IoError when `path` cannot be scanned and
  /// ServeError (invalid_argument) when it holds no model.
  void load_repository(const std::string& path);

  /// True until stop() is called (the protocol's server live).
  bool live() const;
  /// True when live and every model of the repository is ready (Triton's strict readiness).
  bool ready() const;
  /// True when `model` (version `version`, "" for the newest) is loaded and ready.
  bool model_ready(const std::string& model, const std::string& version = "") const;
  /// The metadata of `model`. Throws ServeError: not_found for an unknown model or version,
  /// unavailable for one that failed to load (with its error).
  ModelMetadata metadata(const std::string& model, const std::string& version = "") const;
  /// The repository index: every model found, with its state.
  std::vector<ModelIndexEntry> repository_index() const;
  /// Statistics of `model`, or of every model when it is "". Throws ServeError (not_found).
  std::vector<ModelStatistics> statistics(const std::string& model = "",
                                          const std::string& version = "") const;

  /// Queues `request` for `model` and returns at once; `done` is called exactly once, on
  /// another thread or (for a request refused at once) on this one, with the response or the
  /// error: not_found for an unknown model or version; unavailable when the model is not
  /// ready, its queue is full, the server is stopping, or the request's timeout passed (or
  /// `cancelled` became true) while it waited; invalid_argument, at once and before the
  /// queue is looked at, for what ServedModel::check refuses (a wrong input name, datatype or
  /// shape); what ServedModel::infer throws. Refusals count as failures in statistics().
  /// `cancelled` (may be null) is read before the request runs: a client gone away sets it.
  void infer(const std::string& model, const std::string& version, InferRequest request,
             std::function<void(InferOutcome)> done,
             std::shared_ptr<const std::atomic<bool>> cancelled = nullptr);

  /// Stops accepting requests (live() and ready() turn false), lets the queued and running
  /// ones finish within `grace`, answers those still queued then with unavailable, and joins
  /// the executors. Idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(0));

 private:
  class ModelQueue;
  struct Entry;
  const Entry& find(const std::string& model, const std::string& version) const;

  ServerOptions options_;
  std::atomic<bool> live_{true};
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Entry>> models_;
};

}  // namespace hhlo::serve
