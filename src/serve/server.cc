// The model server's core (hhlo/serve/server.h).
#include "hhlo/serve/server.h"

#include <condition_variable>
#include <deque>
#include <thread>
#include <utility>

#include "hhlo/program/program.h"

namespace hhlo::serve {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

InferOutcome failure(Status status, const std::string& message) {
  InferOutcome out;
  out.error.emplace(status, message);
  return out;
}

/// What `model` refuses in `request` before it runs (ServedModel::check), or nullopt.
std::optional<ServeError> refusal_of(const ServedModel& model, const InferRequest& request) {
  try {
    model.check(request);
  } catch (const ServeError& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

/// A request waiting for its model.
struct Job {
  InferRequest request;
  std::function<void(InferOutcome)> done;
  Clock::time_point arrival;
  Clock::time_point deadline;  // Clock::time_point::max(): none
  std::shared_ptr<const std::atomic<bool>> cancelled;
};

/// One model version's bounded queue and the executors serving it.
class Server::ModelQueue {
 public:
  ModelQueue(std::shared_ptr<const ServedModel> model, std::size_t max_queue, int instances)
      : model_(std::move(model)), max_queue_(max_queue) {
    for (int i = 0; i < std::max(instances, 1); ++i) workers_.emplace_back([this] { work(); });
  }
  ~ModelQueue() { stop(Clock::now()); }

  /// Queues `job`, or gives it back refused (false) when the queue is full or stopping; a
  /// refused request counts as failed (Triton counts its rejections as failures).
  bool push(Job& job) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_ || queue_.size() >= max_queue_) {
        count_failure(job);
        return false;
      }
      queue_.push_back(std::move(job));
    }
    ready_.notify_one();
    return true;
  }
  /// Counts `job`, refused before it was queued, as failed.
  void refuse(const Job& job) {
    std::lock_guard lock(mutex_);
    count_failure(job);
  }
  bool stopping() const {
    std::lock_guard lock(mutex_);
    return stopping_;
  }
  /// Runs what is queued until `drain_until`, refuses the rest, joins the executors.
  void stop(Clock::time_point drain_until) {
    {
      std::lock_guard lock(mutex_);
      if (!stopping_) drain_until_ = drain_until;
      stopping_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : workers_)
      if (t.joinable()) t.join();
  }
  ModelStatistics statistics() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }
  const ServedModel& model() const { return *model_; }

 private:
  void work() {
    for (;;) {
      Job job;
      bool drained;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
        drained = stopping_ && Clock::now() > drain_until_;
      }
      run(job, drained);
    }
  }

  void run(Job& job, bool drained) {
    Clock::time_point start = Clock::now();
    InferOutcome out;
    if (drained)
      out = failure(Status::unavailable, "the server is stopping; the request was not run");
    else if (job.cancelled && job.cancelled->load())
      out = failure(Status::unavailable, "the request was cancelled before it ran");
    else if (start > job.deadline)
      out = failure(Status::unavailable, "the request's timeout passed while it was queued");
    else
      out = execute(job.request);
    Clock::time_point end = Clock::now();
    record(job, out, start, end);
    job.done(std::move(out));
  }

  InferOutcome execute(const InferRequest& request) const {
    InferOutcome out;
    try {
      out.response = model_->infer(request);
      out.binary = model_->binary_outputs(request);
    } catch (const ServeError& e) {
      out.error = e;
    } catch (const std::exception& e) {
      out.error.emplace(Status::internal, e.what());
    }
    return out;
  }

  void count_failure(const Job& job) {
    ++stats_.fail_count;
    stats_.fail_ns += ns_between(job.arrival, Clock::now());
  }

  void record(const Job& job, const InferOutcome& out, Clock::time_point start,
              Clock::time_point end) {
    std::lock_guard lock(mutex_);
    if (out.response) {
      ++stats_.success_count;
      stats_.success_ns += ns_between(job.arrival, end);
      stats_.queue_ns += ns_between(job.arrival, start);
      stats_.compute_ns += ns_between(start, end);
      ++stats_.inference_count;
      ++stats_.execution_count;
      stats_.last_inference_ms = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count());
    } else {
      ++stats_.fail_count;
      stats_.fail_ns += ns_between(job.arrival, end);
    }
  }

  std::shared_ptr<const ServedModel> model_;
  std::size_t max_queue_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  Clock::time_point drain_until_;
  ModelStatistics stats_;
  std::vector<std::thread> workers_;
};

/// A model of the repository: loaded (its queue) or not (the reason).
struct Server::Entry {
  ModelSource source;
  std::string version;
  std::string reason;  // why it is not ready ("" when ready)
  std::unique_ptr<ModelQueue> queue;
};

Server::Server(ServerOptions options) : options_(std::move(options)) {}

Server::~Server() { stop(); }

void Server::load_repository(const std::string& path) {
  std::vector<ModelSource> sources = scan_repository(path);
  if (sources.empty())
    throw ServeError(Status::invalid_argument,
                     "model repository '" + path + "' holds no model (<model>/1/model.jax)");
  for (ModelSource& source : sources) {
    auto entry = std::make_unique<Entry>();
    entry->source = source;
    if (!source.versions.empty()) entry->version = std::to_string(source.versions.back().version);
    try {
      if (!source.problem.empty()) throw Error(source.problem);
      if (source.config_path)
        throw Error(*source.config_path +
                    ": config.pbtxt is not read by this server yet; without it the model is "
                    "served from its program alone");
      const ModelVersionSource& v = source.versions.back();
      auto model = std::make_shared<const ServedModel>(
          source.name, entry->version, read_program_file_bytes(v.path), v.path, options_.load);
      entry->queue =
          std::make_unique<ModelQueue>(model, options_.max_queue_size, options_.instances);
    } catch (const std::exception& e) {
      entry->reason = e.what();
    }
    std::lock_guard lock(mutex_);
    models_[source.name] = std::move(entry);
  }
}

bool Server::live() const { return live_.load(); }

bool Server::ready() const {
  if (!live()) return false;
  std::lock_guard lock(mutex_);
  for (const auto& [name, entry] : models_)
    if (!entry->queue) return false;
  return true;
}

const Server::Entry& Server::find(const std::string& model, const std::string& version) const {
  auto it = models_.find(model);
  if (it == models_.end()) throw ServeError(Status::not_found, "unknown model \"" + model + "\"");
  const Entry& entry = *it->second;
  if (!version.empty() && version != entry.version)
    throw ServeError(Status::not_found, "model \"" + model + "\" has no version \"" + version +
                                            "\" (served: " + entry.version + ")");
  return entry;
}

bool Server::model_ready(const std::string& model, const std::string& version) const {
  std::lock_guard lock(mutex_);
  try {
    return live() && find(model, version).queue != nullptr;
  } catch (const ServeError&) {
    return false;
  }
}

ModelMetadata Server::metadata(const std::string& model, const std::string& version) const {
  std::lock_guard lock(mutex_);
  const Entry& entry = find(model, version);
  if (!entry.queue)
    throw ServeError(Status::unavailable, "model \"" + model + "\" is not ready: " + entry.reason);
  return entry.queue->model().metadata();
}

std::vector<ModelIndexEntry> Server::repository_index() const {
  std::lock_guard lock(mutex_);
  std::vector<ModelIndexEntry> index;
  for (const auto& [name, entry] : models_)
    index.push_back({name, entry->version, entry->queue ? "READY" : "UNAVAILABLE", entry->reason});
  return index;
}

std::vector<ModelStatistics> Server::statistics(const std::string& model,
                                                const std::string& version) const {
  std::lock_guard lock(mutex_);
  std::vector<ModelStatistics> out;
  auto add = [&](const std::string& name, const Entry& entry) {
    ModelStatistics s = entry.queue ? entry.queue->statistics() : ModelStatistics{};
    s.name = name;
    s.version = entry.version;
    out.push_back(std::move(s));
  };
  if (!model.empty())
    add(model, find(model, version));
  else
    for (const auto& [name, entry] : models_) add(name, *entry);
  return out;
}

void Server::infer(const std::string& model, const std::string& version, InferRequest request,
                   std::function<void(InferOutcome)> done,
                   std::shared_ptr<const std::atomic<bool>> cancelled) {
  Job job{std::move(request), std::move(done), Clock::now(), Clock::time_point::max(),
          std::move(cancelled)};
  std::chrono::microseconds timeout = job.request.timeout_us
                                          ? std::chrono::microseconds(*job.request.timeout_us)
                                          : options_.default_timeout;
  if (timeout.count() > 0 && timeout < std::chrono::hours(24 * 365))
    job.deadline = job.arrival + timeout;
  InferOutcome refused;
  {
    std::lock_guard lock(mutex_);
    try {
      const Entry& entry = find(model, version);
      if (!live())
        refused = failure(Status::unavailable, "the server is stopping");
      else if (!entry.queue)
        refused =
            failure(Status::unavailable, "model \"" + model + "\" is not ready: " + entry.reason);
      else if (std::optional<ServeError> invalid = refusal_of(entry.queue->model(), job.request)) {
        entry.queue->refuse(job);
        refused.error = std::move(invalid);
      } else if (!entry.queue->push(job))
        refused = failure(Status::unavailable, entry.queue->stopping()
                                                   ? "the server is stopping"
                                                   : "model \"" + model + "\"'s queue is full (" +
                                                         std::to_string(options_.max_queue_size) +
                                                         " requests)");
      else
        return;
    } catch (const ServeError& e) {
      refused.error = e;
    }
  }
  job.done(std::move(refused));
}

void Server::stop(std::chrono::milliseconds grace) {
  live_ = false;
  Clock::time_point until = Clock::now() + grace;
  std::vector<ModelQueue*> queues;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, entry] : models_)
      if (entry->queue) queues.push_back(entry->queue.get());
  }
  for (ModelQueue* q : queues) q->stop(until);
}

}  // namespace hhlo::serve
