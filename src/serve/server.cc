// The model server's core (hhlo/serve/server.h).
#include "hhlo/serve/server.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <thread>
#include <utility>

#include "hhlo/program/program.h"
#include "hhlo/serve/batching.h"

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

}  // namespace

/// A request waiting for its model, its inputs already matched and checked.
struct Job {
  InferRequest request;
  std::vector<Array> inputs;  // in the model's order
  std::function<void(InferOutcome)> done;
  Clock::time_point arrival;
  Clock::time_point deadline;  // Clock::time_point::max(): none
  Cancelled cancelled;

  /// Rows along the batch dimension (the first input's first dimension), 0 for none.
  int64_t rows() const { return inputs.empty() || inputs[0].rank() == 0 ? 0 : inputs[0].dims()[0]; }
};

/// One model version's bounded queue and the executors serving it, batching what it can.
class Server::ModelQueue {
 public:
  ModelQueue(std::shared_ptr<const ServedModel> model, const ModelSettings& settings)
      : model_(std::move(model)), settings_(settings), max_queue_(settings.max_queue_size) {
    if (model_->batches() && settings.batching.max_batch_size >= 2) {
      buckets_ =
          batch_buckets(settings.batching.max_batch_size, settings.batching.preferred_batch_sizes);
      max_rows_ = buckets_.back();
      delay_ = settings.batching.max_queue_delay;
      model_->warm_up(buckets_);
    }
    for (int i = 0; i < std::max(settings.instances, 1); ++i)
      workers_.emplace_back([this] { work(); });
  }
  ~ModelQueue() { stop(Clock::now()); }

  /// The largest batch the model runs (0: it does not batch) and the sizes compiled.
  int64_t max_batch_size() const { return max_rows_; }
  const std::vector<int64_t>& batch_sizes() const { return buckets_; }
  std::chrono::microseconds max_queue_delay() const { return delay_; }

  /// Queues `job`, or gives it back refused (false) when the queue is full or stopping.
  bool push(Job& job) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_ || queue_.size() >= max_queue_) return false;
      queue_.push_back(std::move(job));
    }
    ready_.notify_all();
    return true;
  }
  bool stopping() const {
    std::lock_guard lock(mutex_);
    return stopping_;
  }
  /// Counts `job`, refused before it ran (a wrong input, a full queue), as failed: Triton counts
  /// its rejections as failures.
  void count_refused(const Job& job) {
    std::lock_guard lock(mutex_);
    ++stats_.fail_count;
    stats_.fail_ns += ns_between(job.arrival, Clock::now());
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
    ModelStatistics s = stats_;
    s.pending = queue_.size() + running_;
    return s;
  }
  const ServedModel& model() const { return *model_; }
  const ModelSettings& settings() const { return settings_; }

 private:
  void work() {
    for (;;) {
      std::vector<Job> batch;
      bool drained;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        batch.push_back(take(0));
        if (settings_.dynamic_batching && max_rows_ >= 2 && batch[0].rows() <= max_rows_)
          gather(lock, batch);
        drained = stopping_ && Clock::now() > drain_until_;
        running_ += batch.size();
      }
      run(batch, drained);
      std::lock_guard lock(mutex_);
      running_ -= batch.size();
    }
  }

  Job take(std::size_t i) {
    Job job = std::move(queue_[i]);
    queue_.erase(queue_.begin() + std::ptrdiff_t(i));
    return job;
  }

  /// Adds to `batch` the queued jobs that stack with its first, up to max_rows_ rows, waiting
  /// up to the first's arrival + delay_ for more.
  void gather(std::unique_lock<std::mutex>& lock, std::vector<Job>& batch) {
    int64_t rows = batch[0].rows();
    Clock::time_point until = batch[0].arrival + delay_;
    for (;;) {
      for (std::size_t i = 0; i < queue_.size() && rows < max_rows_;) {
        const Job& j = queue_[i];
        if (rows + j.rows() <= max_rows_ && batchable_together(batch[0].inputs, j.inputs)) {
          rows += j.rows();
          batch.push_back(take(i));
        } else {
          ++i;
        }
      }
      if (rows >= max_rows_ || stopping_ || Clock::now() >= until) return;
      ready_.wait_until(lock, until);
    }
  }

  /// Why `job` is not run, or "" when it is.
  static std::string refusal(const Job& job, bool drained, Clock::time_point now) {
    if (drained) return "the server is stopping; the request was not run";
    if (job.cancelled && job.cancelled()) return "the request was cancelled before it ran";
    if (now > job.deadline) return "the request's timeout passed while it was queued";
    return "";
  }

  void run(std::vector<Job>& batch, bool drained) {
    Clock::time_point start = Clock::now();
    std::vector<Job> live;
    for (Job& job : batch) {
      std::string why = refusal(job, drained, start);
      if (why.empty()) {
        live.push_back(std::move(job));
        continue;
      }
      InferOutcome out = failure(Status::unavailable, why);
      record(job, out, start, Clock::now(), 0);
      job.done(std::move(out));
    }
    if (live.empty()) return;
    int64_t rows = 0;
    std::vector<InferOutcome> outcomes = execute(live, rows);
    Clock::time_point end = Clock::now();
    for (std::size_t i = 0; i < live.size(); ++i) {
      record(live[i], outcomes[i], start, end, i == 0 ? rows : -1);
      live[i].done(std::move(outcomes[i]));
    }
  }

  /// The outcomes of running `jobs` (stacked when more than one, or padded to a bucket);
  /// `rows` is set to the rows of the batch run, 0 when it ran unbatched.
  std::vector<InferOutcome> execute(std::vector<Job>& jobs, int64_t& rows) {
    std::vector<InferOutcome> out(jobs.size());
    try {
      std::vector<std::vector<Array>> outputs;
      int64_t bucket = max_rows_ >= 2 ? bucket_for(jobs[0].rows(), buckets_) : 0;
      if (jobs.size() == 1 && bucket == 0) {
        outputs.push_back(model_->run(jobs[0].inputs));
        rows = 0;
      } else {
        std::vector<const std::vector<Array>*> parts;
        std::vector<int64_t> counts;
        int64_t given = 0;
        for (const Job& j : jobs) {
          parts.push_back(&j.inputs);
          counts.push_back(j.rows());
          given += j.rows();
        }
        rows = bucket_for(given, buckets_);
        outputs = split_rows(model_->run(stack_rows(parts, rows)), counts);
      }
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        out[i].response = model_->respond(jobs[i].request, std::move(outputs[i]));
        out[i].binary = model_->binary_outputs(jobs[i].request);
      }
    } catch (const ServeError& e) {
      for (InferOutcome& o : out) o = InferOutcome{std::nullopt, {}, e};
    } catch (const std::exception& e) {
      for (InferOutcome& o : out) o = failure(Status::internal, e.what());
    }
    return out;
  }

  /// Counts `job`'s outcome; `rows` > 0 also counts one execution of that many rows, 0 one
  /// unbatched execution, -1 none (a request that shared the batch of another).
  void record(const Job& job, const InferOutcome& out, Clock::time_point start,
              Clock::time_point end, int64_t rows) {
    std::lock_guard lock(mutex_);
    if (!out.response) {
      ++stats_.fail_count;
      stats_.fail_ns += ns_between(job.arrival, end);
      return;
    }
    ++stats_.success_count;
    stats_.success_ns += ns_between(job.arrival, end);
    const std::vector<double>& bounds = request_duration_bounds_us();
    if (stats_.duration_buckets.empty()) stats_.duration_buckets.assign(bounds.size() + 1, 0);
    double us = double(ns_between(job.arrival, end)) / 1000;
    ++stats_.duration_buckets[std::size_t(std::lower_bound(bounds.begin(), bounds.end(), us) -
                                          bounds.begin())];
    stats_.queue_ns += ns_between(job.arrival, start);
    stats_.compute_ns += ns_between(start, end);
    // Triton's meaning: each row of a batching model's request is one inference.
    stats_.inference_count += max_rows_ > 0 ? uint64_t(std::max<int64_t>(job.rows(), 1)) : 1;
    stats_.last_inference_ms = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::system_clock::now().time_since_epoch())
                                            .count());
    if (rows < 0) return;
    ++stats_.execution_count;
    if (rows == 0) return;
    auto& list = stats_.batch_executions;
    auto it = std::find_if(list.begin(), list.end(),
                           [&](const BatchExecutions& b) { return b.batch_size >= rows; });
    if (it == list.end() || it->batch_size != rows) it = list.insert(it, {rows, 0, 0});
    ++it->count;
    it->compute_ns += ns_between(start, end);
  }

  std::shared_ptr<const ServedModel> model_;
  ModelSettings settings_;
  std::size_t max_queue_;
  std::vector<int64_t> buckets_;  // batch sizes compiled; empty: no batching
  int64_t max_rows_ = 0;
  std::chrono::microseconds delay_{0};
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::size_t running_ = 0;  // requests taken by an executor and not answered yet
  Clock::time_point drain_until_;
  ModelStatistics stats_;
  std::vector<std::thread> workers_;
};

/// A model of the repository: loaded (its queue) or not (the reason).
struct Server::Entry {
  ModelSource source;
  std::string version;
  std::string reason;       // why it is not ready ("" when ready)
  std::string fingerprint;  // of the files it was loaded from (poll_repository)
  bool wanted = true;       // to be served (false: unloaded, or not asked for at start)
  std::shared_ptr<ModelQueue> queue;
};

namespace {

/// The size and modification time of each file `source` is loaded from: what poll_repository
/// compares.
std::string fingerprint(const ModelSource& source) {
  std::string f;
  auto add = [&](const std::string& path) {
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    auto time = std::filesystem::last_write_time(path, ec);
    f += path + ":" + std::to_string(size) + ":" + std::to_string(time.time_since_epoch().count()) +
         ";";
  };
  for (const ModelVersionSource& v : source.versions) add(v.path);
  if (source.config_path) add(*source.config_path);
  return f + source.problem;
}

bool asked_for(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end() ||
         std::find(names.begin(), names.end(), "*") != names.end();
}

[[noreturn]] void refuse_control(const std::string& what) {
  throw ServeError(Status::invalid_argument,
                   "explicit model " + what +
                       " is not allowed: the model control mode is \"none\" (models are loaded "
                       "from the repository at start; --model-control-mode explicit or poll)");
}

}  // namespace

const std::vector<double>& request_duration_bounds_us() {
  static const std::vector<double> bounds = {100,   250,   500,   1000,   2500,   5000,
                                             10000, 25000, 50000, 100000, 250000, 500000,
                                             1e6,   2.5e6, 5e6,   1e7};
  return bounds;
}

Server::Server(ServerOptions options) : options_(std::move(options)) {}

Server::~Server() { stop(); }

/// The settings of a model without a config.pbtxt: the server's options.
ModelSettings Server::default_settings() const {
  ModelSettings s;
  s.max_queue_size = options_.max_queue_size;
  s.instances = options_.instances;
  s.default_timeout = options_.default_timeout;
  s.batching = options_.batching;
  s.vmap_batching = options_.vmap_batching;
  return s;
}

void Server::load_repository(const std::string& path) {
  std::vector<ModelSource> sources = scan_repository(path);
  if (sources.empty())
    throw ServeError(Status::invalid_argument,
                     "model repository '" + path + "' holds no model (<model>/1/model.jax)");
  repository_ = path;
  for (ModelSource& source : sources) {
    auto entry = std::make_unique<Entry>();
    entry->source = source;
    entry->fingerprint = fingerprint(source);
    entry->wanted = options_.control != ModelControl::explicit_requests ||
                    asked_for(options_.startup_models, source.name);
    if (!entry->source.versions.empty())
      entry->version = std::to_string(entry->source.versions.back().version);
    if (!entry->wanted)
      entry->reason = "not loaded (load it: POST v2/repository/models/" + source.name + "/load)";
    try {
      if (entry->wanted) load_entry(*entry);
    } catch (const std::exception& e) {
      entry->reason = e.what();
    }
    std::lock_guard lock(mutex_);
    models_[source.name] = std::move(entry);
  }
}

void Server::load_entry(Entry& entry) const {
  const ModelSource& source = entry.source;
  if (!source.versions.empty()) entry.version = std::to_string(source.versions.back().version);
  if (!source.problem.empty()) throw Error(source.problem);
  ModelSettings settings = default_settings();
  if (source.config_path) settings = read_model_config(*source.config_path, source.name, settings);
  const ModelVersionSource* v = &source.versions.back();
  if (settings.version != 0) {
    auto it =
        std::find_if(source.versions.begin(), source.versions.end(),
                     [&](const ModelVersionSource& x) { return x.version == settings.version; });
    entry.version = std::to_string(settings.version);
    if (it == source.versions.end())
      throw Error(*source.config_path + ": version_policy names version " + entry.version +
                  ", which the model's folder does not hold");
    v = &*it;
  }
  auto model = std::make_shared<const ServedModel>(source.name, entry.version,
                                                   read_program_file_bytes(v->path), v->path,
                                                   options_.load, settings.vmap_batching);
  if (source.config_path)
    check_config_tensors(settings, model->metadata(),
                         model->batches() && settings.batching.max_batch_size > 0,
                         *source.config_path);
  entry.queue = std::make_shared<ModelQueue>(model, settings);
}

void Server::retire(std::shared_ptr<ModelQueue> queue) const {
  if (queue) queue->stop(Clock::now() + options_.retire_grace);
}

void Server::load_model(const std::string& name) {
  if (options_.control == ModelControl::none) refuse_control("load");
  std::lock_guard control(control_mutex_);
  std::vector<ModelSource> sources = scan_repository(repository_);
  auto source = std::find_if(sources.begin(), sources.end(),
                             [&](const ModelSource& m) { return m.name == name; });
  if (source == sources.end())
    throw ServeError(Status::not_found,
                     "the repository '" + repository_ + "' has no model \"" + name + "\"");
  Entry fresh;
  fresh.source = *source;
  fresh.fingerprint = fingerprint(*source);
  std::string error;
  try {
    load_entry(fresh);
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::shared_ptr<ModelQueue> old;
  {
    std::lock_guard lock(mutex_);
    std::unique_ptr<Entry>& entry = models_[name];
    if (!entry) entry = std::make_unique<Entry>();
    if (!error.empty() && entry->queue) {
      entry->reason.clear();  // the version loaded before keeps serving
    } else {
      old = std::move(entry->queue);
      *entry = std::move(fresh);
      entry->reason = error;
    }
    entry->wanted = true;
  }
  retire(std::move(old));
  if (!error.empty())
    throw ServeError(Status::invalid_argument, "model \"" + name + "\": " + error);
}

void Server::unload_model(const std::string& name) {
  if (options_.control == ModelControl::none) refuse_control("unload");
  std::lock_guard control(control_mutex_);
  std::shared_ptr<ModelQueue> old;
  {
    std::lock_guard lock(mutex_);
    auto it = models_.find(name);
    if (it == models_.end()) throw ServeError(Status::not_found, "unknown model \"" + name + "\"");
    old = std::move(it->second->queue);
    it->second->wanted = false;
    it->second->reason = "unloaded";
  }
  retire(std::move(old));
}

std::vector<std::string> Server::poll_repository() {
  std::lock_guard control(control_mutex_);
  std::vector<ModelSource> sources = scan_repository(repository_);
  std::vector<std::string> changed;
  std::vector<std::shared_ptr<ModelQueue>> retired;
  for (const ModelSource& source : sources) {
    {
      std::lock_guard lock(mutex_);
      auto it = models_.find(source.name);
      bool known = it != models_.end();
      if (known && (!it->second->wanted || it->second->fingerprint == fingerprint(source)))
        continue;
      if (!known && options_.control == ModelControl::explicit_requests) continue;
    }
    Entry fresh;
    fresh.source = source;
    fresh.fingerprint = fingerprint(source);
    try {
      load_entry(fresh);
    } catch (const std::exception& e) {
      fresh.reason = e.what();
    }
    std::lock_guard lock(mutex_);
    std::unique_ptr<Entry>& entry = models_[source.name];
    if (!entry) entry = std::make_unique<Entry>();
    if (!fresh.reason.empty() && entry->queue) {
      entry->fingerprint = fresh.fingerprint;  // keep serving the old version; try again on change
    } else {
      retired.push_back(std::move(entry->queue));
      *entry = std::move(fresh);
    }
    changed.push_back(source.name);
  }
  {
    std::lock_guard lock(mutex_);
    for (auto it = models_.begin(); it != models_.end();) {
      bool present = std::any_of(sources.begin(), sources.end(),
                                 [&](const ModelSource& m) { return m.name == it->first; });
      if (present) {
        ++it;
        continue;
      }
      retired.push_back(std::move(it->second->queue));
      changed.push_back(it->first);
      it = models_.erase(it);
    }
  }
  for (std::shared_ptr<ModelQueue>& q : retired) retire(std::move(q));
  return changed;
}

void Server::run_control(std::function<void()> task) {
  {
    std::lock_guard lock(tasks_mutex_);
    if (!control_thread_.joinable()) control_thread_ = std::thread([this] { control_loop(); });
    tasks_.push_back(std::move(task));
  }
  tasks_ready_.notify_one();
}

void Server::control_loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(tasks_mutex_);
      tasks_ready_.wait(lock, [&] { return tasks_stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

bool Server::live() const { return live_.load(); }

bool Server::ready() const {
  if (!live()) return false;
  std::lock_guard lock(mutex_);
  for (const auto& [name, entry] : models_)
    if (entry->wanted && !entry->queue) return false;
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

ServedConfig Server::config(const std::string& model, const std::string& version) const {
  std::lock_guard lock(mutex_);
  const Entry& entry = find(model, version);
  if (!entry.queue)
    throw ServeError(Status::unavailable, "model \"" + model + "\" is not ready: " + entry.reason);
  const ModelQueue& q = *entry.queue;
  return {q.model().metadata(),
          q.max_batch_size(),
          q.batch_sizes(),
          q.max_queue_delay(),
          q.settings().max_queue_size,
          std::max(q.settings().instances, 1),
          q.settings().dynamic_batching};
}

std::vector<ModelIndexEntry> Server::repository_index() const {
  std::lock_guard lock(mutex_);
  std::vector<ModelIndexEntry> index;
  for (const auto& [name, entry] : models_)
    index.push_back({name, entry->version, entry->queue ? "READY" : "UNAVAILABLE",
                     entry->queue ? "" : entry->reason});
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
                   std::function<void(InferOutcome)> done, Cancelled cancelled) {
  Job job{std::move(request),  {}, std::move(done), Clock::now(), Clock::time_point::max(),
          std::move(cancelled)};
  InferOutcome refused;
  std::shared_ptr<ModelQueue> queue;
  try {
    queue = queue_of(model, version);
    const ModelSettings& settings = queue->settings();
    std::chrono::microseconds timeout = job.request.timeout_us && settings.allow_timeout_override
                                            ? std::chrono::microseconds(*job.request.timeout_us)
                                            : settings.default_timeout;
    if (timeout.count() > 0 && timeout < std::chrono::hours(24 * 365))
      job.deadline = job.arrival + timeout;
    job.inputs = queue->model().ordered_inputs(std::move(job.request.inputs));
    job.request.inputs.clear();  // moved into job.inputs
    queue->model().check_outputs(job.request);
    if (queue->push(job)) return;
    if (queue->stopping() && live()) {  // replaced by a reload between queue_of and push
      queue = queue_of(model, version);
      if (queue->push(job)) return;
    }
    refused =
        failure(Status::unavailable,
                queue->stopping() ? "the server is stopping"
                                  : "model \"" + model + "\"'s queue is full (" +
                                        std::to_string(settings.max_queue_size) + " requests)");
  } catch (const ServeError& e) {
    refused.error = e;
  }
  if (queue) queue->count_refused(job);
  job.done(std::move(refused));
}

std::shared_ptr<Server::ModelQueue> Server::queue_of(const std::string& model,
                                                     const std::string& version) const {
  std::lock_guard lock(mutex_);
  const Entry& entry = find(model, version);
  if (!live()) throw ServeError(Status::unavailable, "the server is stopping");
  if (!entry.queue)
    throw ServeError(Status::unavailable, "model \"" + model + "\" is not ready: " + entry.reason);
  return entry.queue;
}

void Server::stop(std::chrono::milliseconds grace) {
  live_ = false;
  {
    std::lock_guard lock(tasks_mutex_);
    tasks_stopping_ = true;
  }
  tasks_ready_.notify_all();
  if (control_thread_.joinable() && control_thread_.get_id() != std::this_thread::get_id())
    control_thread_.join();
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
