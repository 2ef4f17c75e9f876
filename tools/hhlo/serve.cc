// `hhlo serve REPOSITORY|PROGRAM [--http-port 8000] [--grpc-port 8001] [--host 127.0.0.1] ...`:
// the Open Inference Protocol over HTTP and gRPC in front of the models of a repository laid out
// as Triton's (or of one program file), until SIGTERM or SIGINT, which stop accepting, let what
// is queued and running finish within --grace-period and exit 0. See docs/serving.md.
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "hhlo/core/error.h"
#include "hhlo/runtime/compile_cache.h"
#include "hhlo/serve/grpc_server.h"
#include "hhlo/serve/http_server.h"
#include "hhlo/serve/server.h"
#include "load_flags.h"
#include "time_limit.h"

namespace hhlo::cli {
namespace {

struct ServeFlags : LoadFlags {
  std::string host = "127.0.0.1";
  int http_port = 8000;
  int grpc_port = 8001;
  int metrics_port = 8002;
  std::size_t max_queue_size = 64;
  int instances = 1;
  double grace_period = 5;
  int64_t max_batch_size = 16;
  std::vector<int64_t> preferred_batch_sizes;
  int64_t max_queue_delay_us = 0;
  bool vmap_batching = false;
  std::string model_control_mode = "none";
  std::vector<std::string> load_models;
  double repository_poll_secs = 15;
};

serve::ModelControl control_of(const std::string& mode) {
  if (mode == "explicit") return serve::ModelControl::explicit_requests;
  if (mode == "poll") return serve::ModelControl::poll;
  return serve::ModelControl::none;
}

/// Polls the repository every `seconds` until stopped (--model-control-mode poll).
class Poller {
 public:
  Poller(serve::Server& server, double seconds) : server_(server) {
    thread_ = std::thread([this, period = to_steady_duration(seconds)] {
      std::unique_lock lock(mutex_);
      while (!stopping_) {
        if (wake_.wait_for(lock, period, [&] { return stopping_; })) return;
        lock.unlock();
        try {
          std::vector<std::string> changed = server_.poll_repository();
          std::vector<serve::ModelIndexEntry> index = server_.repository_index();
          for (const std::string& name : changed) {
            auto e = std::find_if(index.begin(), index.end(),
                                  [&](const serve::ModelIndexEntry& x) { return x.name == name; });
            if (e == index.end())
              fmt::print(stderr, "hhlo serve: the repository changed: model {} removed\n", name);
            else
              fmt::print(stderr, "hhlo serve: the repository changed: model {} version {}: {}{}\n",
                         name, e->version, e->state,
                         e->reason.empty() ? "" : " (" + e->reason + ")");
          }
        } catch (const std::exception& e) {
          fmt::print(stderr, "hhlo serve: polling the repository failed: {}\n", e.what());
        }
        lock.lock();
      }
    });
  }
  ~Poller() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  serve::Server& server_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

/// The stop signal received (SIGTERM or SIGINT), 0 before. A thread a library started before
/// main (OpenBLAS's pool, at load) does not block the stop signals, so the kernel may deliver
/// one there (always so for a second SIGTERM during the grace period, or one during start-up):
/// on_stop_signal records it instead of the default action, which would end the process with
/// the accepted requests unanswered.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int signal) {
  int none = 0;
  g_stop_signal.compare_exchange_strong(none, signal);
}

/// Installs on_stop_signal for SIGTERM and SIGINT and blocks them in this thread and every
/// thread it starts after, so that wait_for_stop() receives them.
sigset_t block_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

/// Waits for the first stop signal, taken here (sigtimedwait) or recorded by on_stop_signal on
/// another thread (looked at every 100 ms); later ones change nothing.
int wait_for_stop(const sigset_t& stop_signals) {
  timespec tick{0, 100'000'000};
  while (g_stop_signal.load() == 0) {
    int signal = sigtimedwait(&stop_signals, nullptr, &tick);
    if (signal > 0) on_stop_signal(signal);
  }
  return g_stop_signal.load();
}

void print_models(const serve::Server& server, const serve::HttpServer& http,
                  const serve::GrpcServer& grpc, const serve::HttpServer& metrics,
                  const std::string& host) {
  for (const serve::ModelIndexEntry& e : server.repository_index())
    fmt::print("model {}{}: {}{}\n", e.name, e.version.empty() ? "" : " version " + e.version,
               e.state, e.reason.empty() ? "" : " (" + e.reason + ")");
  fmt::print("hhlo serve: gRPC on {}:{}\n", host, grpc.port());
  fmt::print("hhlo serve: metrics on {}:{}\n", host, metrics.port());
  fmt::print("hhlo serve: HTTP on {}:{}\n", host, http.port());
  std::fflush(stdout);
}

/// Whether `name` is loaded at start: every model unless --model-control-mode is explicit, then
/// those --load-model names (or all for *).
bool loaded_at_start(const ServeFlags& f, const std::string& name) {
  if (f.model_control_mode != "explicit") return true;
  return std::find(f.load_models.begin(), f.load_models.end(), name) != f.load_models.end() ||
         std::find(f.load_models.begin(), f.load_models.end(), "*") != f.load_models.end();
}

/// Refuses to serve what can never answer: one program file whose model failed to load (the
/// file is the whole repository), or a repository in control mode none where no model loaded
/// (none can be loaded later). Throws hhlo::Error with the load errors. With explicit or poll,
/// models may be loaded later, and a repository where some loaded serves those (the others are
/// not ready), so those keep running.
void refuse_unservable(const serve::Server& server, const ServeFlags& f) {
  std::vector<serve::ModelIndexEntry> index = server.repository_index();
  if (!std::filesystem::is_directory(f.program)) {
    for (const serve::ModelIndexEntry& e : index)
      if (e.state != "READY" && loaded_at_start(f, e.name)) throw Error(e.reason);
    return;
  }
  if (f.model_control_mode != "none") return;
  std::string failures;
  for (const serve::ModelIndexEntry& e : index) {
    if (e.state == "READY") return;
    failures += fmt::format("{}model {}{}: {}", failures.empty() ? "" : "; ", e.name,
                            e.version.empty() ? "" : " version " + e.version, e.reason);
  }
  throw Error(fmt::format(
      "no model of repository '{}' loaded, and --model-control-mode none loads none later: {}",
      f.program, failures));
}

int serve_main(const ServeFlags& f) {
  sigset_t stop_signals = block_stop_signals();
  CompileCache cache;
  serve::ServerOptions options;
  options.load.load = load_options(f, std::nullopt);
  // The executors are the server's threads: on CPU each call runs on its executor (the client's
  // synchronous mode) unless --execution says otherwise. Measured (docs/benchmarks.md, Serving):
  // the MLP's compute per request 84 -> 35 us, throughput at concurrency 32 without batching
  // 9.9k -> 24k requests/s.
  if (f.execution.empty() && f.platform == "cpu")
    options.load.load.client.execution = ExecutionMode::sync;
  options.load.cache = &cache;
  Client client = make_client(options.load.load.client, 1, options.load.load.prepare.onednn.any());
  options.load.client = &client;
  options.max_queue_size = f.max_queue_size;
  options.instances = f.instances;
  options.batching.max_batch_size = f.max_batch_size;
  options.batching.preferred_batch_sizes = f.preferred_batch_sizes;
  options.batching.max_queue_delay = std::chrono::microseconds(f.max_queue_delay_us);
  options.vmap_batching = f.vmap_batching;
  options.control = control_of(f.model_control_mode);
  options.startup_models = f.load_models;
  serve::Server server(options);
  server.load_repository(f.program);
  refuse_unservable(server, f);
  serve::HttpOptions http_options;
  http_options.host = f.host;
  http_options.port = uint16_t(f.http_port);
  serve::HttpServer http(server, http_options);
  serve::GrpcOptions grpc_options;
  grpc_options.host = f.host;
  grpc_options.port = uint16_t(f.grpc_port);
  serve::GrpcServer grpc(server, grpc_options);
  serve::HttpOptions metrics_options;
  metrics_options.host = f.host;
  metrics_options.port = uint16_t(f.metrics_port);
  metrics_options.metrics_only = true;
  serve::HttpServer metrics(server, metrics_options);
  print_models(server, http, grpc, metrics, f.host);
  std::optional<Poller> poller;
  if (options.control == serve::ModelControl::poll) poller.emplace(server, f.repository_poll_secs);
  int signal = wait_for_stop(stop_signals);
  poller.reset();
  fmt::print(stderr, "hhlo serve: {} received; finishing what was accepted (up to {} s)\n",
             signal == SIGTERM ? "SIGTERM" : "SIGINT", f.grace_period);
  std::chrono::milliseconds grace = to_milliseconds(f.grace_period);
  server.stop(grace);
  http.stop(std::chrono::milliseconds(1000));
  grpc.stop(std::chrono::milliseconds(1000));
  metrics.stop();
  return 0;
}

const bool registered = register_command({
    "serve",
    "Serve a model repository (or one program) over the Open Inference Protocol (HTTP, gRPC)",
    [](CLI::App& sub) -> Action {
      auto f = std::make_shared<ServeFlags>();
      add_load_flags(sub, *f);
      sub.get_option("program")->description(
          "Model repository folder (<model>/<version>/model.jax|.mlir|.mlirbc, as Triton's) or "
          "one program file (served as the model named by its stem)");
      sub.add_option("--host", f->host,
                     "Address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for "
                     "every interface)");
      sub.add_option("--http-port", f->http_port, "HTTP port (0: a free one, printed)")
          ->check(CLI::Range(0, 65535));
      sub.add_option("--grpc-port", f->grpc_port, "gRPC port (0: a free one, printed)")
          ->check(CLI::Range(0, 65535));
      sub.add_option("--metrics-port", f->metrics_port,
                     "Prometheus metrics port, GET /metrics (0: a free one, printed)")
          ->check(CLI::Range(0, 65535));
      sub.add_option("--max-queue-size", f->max_queue_size,
                     "Requests waiting per model; one more is answered 503 at once")
          ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
      sub.add_option("--instances", f->instances, "Executors per model (requests run at once)")
          ->check(CLI::Range(1, 256));
      sub.add_option("--max-batch-size", f->max_batch_size,
                     "Rows stacked into one call of a model whose inputs and outputs share a "
                     "symbolic leading dimension (0 or 1: no dynamic batching)")
          ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
      sub.add_option("--preferred-batch-size", f->preferred_batch_sizes,
                     "A batch size compiled and warmed at load (repeatable; default: powers of "
                     "two up to --max-batch-size)")
          ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
          ->allow_extra_args(false);
      sub.add_option("--max-queue-delay-microseconds", f->max_queue_delay_us,
                     "How long the first request of a batch waits for more (default 0: a batch "
                     "is what is queued when an executor is free)")
          ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}));
      sub.add_flag("--vmap-batching", f->vmap_batching,
                   "Batch models exported without a batch dimension by vmap over a new leading "
                   "axis (their shapes gain a leading -1; a config.pbtxt with max_batch_size > 0 "
                   "asks for it per model)");
      sub.add_option("--model-control-mode", f->model_control_mode,
                     "none: every model at start, no load/unload; explicit: the --load-model "
                     "ones at start, then load/unload requests; poll: every model, reloaded when "
                     "its files change")
          ->check(CLI::IsMember({"none", "explicit", "poll"}));
      sub.add_option("--load-model", f->load_models,
                     "With --model-control-mode explicit: a model loaded at start (repeatable; "
                     "* for all)")
          ->allow_extra_args(false);
      sub.add_option("--repository-poll-secs", f->repository_poll_secs,
                     "With --model-control-mode poll: seconds between scans of the repository")
          ->check(time_limit_validator());
      sub.add_option("--grace-period", f->grace_period,
                     "Seconds SIGTERM waits for accepted requests before exiting (inf: until they "
                     "are done)")
          ->check(time_limit_validator());
      return [f] { return serve_main(*f); };
    },
});

}  // namespace
}  // namespace hhlo::cli
