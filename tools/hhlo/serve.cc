// `hhlo serve REPOSITORY|PROGRAM [--http-port 8000] [--host 127.0.0.1] ...`: the Open Inference
// Protocol over HTTP in front of the models of a repository laid out as Triton's (or of one
// program file), until SIGTERM or SIGINT, which stop accepting, let what is queued and running
// finish within --grace-period and exit 0. See docs/serving.md.
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "hhlo/runtime/compile_cache.h"
#include "hhlo/serve/http_server.h"
#include "hhlo/serve/server.h"
#include "load_flags.h"

namespace hhlo::cli {
namespace {

struct ServeFlags : LoadFlags {
  std::string host = "127.0.0.1";
  int http_port = 8000;
  std::size_t max_queue_size = 64;
  int instances = 1;
  double grace_period = 5;
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
                  const std::string& host) {
  for (const serve::ModelIndexEntry& e : server.repository_index())  // no version: no number
    fmt::print("model {}{}: {}{}\n", e.name, e.version.empty() ? "" : " version " + e.version,
               e.state, e.reason.empty() ? "" : " (" + e.reason + ")");
  fmt::print("hhlo serve: HTTP on {}:{}\n", host, http.port());
  std::fflush(stdout);
}

int serve_main(const ServeFlags& f) {
  sigset_t stop_signals = block_stop_signals();
  CompileCache cache;
  serve::ServerOptions options;
  options.load.load = load_options(f, std::nullopt);
  options.load.cache = &cache;
  Client client = make_client(options.load.load.client, 1, options.load.load.prepare.onednn.any());
  options.load.client = &client;
  options.max_queue_size = f.max_queue_size;
  options.instances = f.instances;
  serve::Server server(options);
  server.load_repository(f.program);
  serve::HttpOptions http_options;
  http_options.host = f.host;
  http_options.port = uint16_t(f.http_port);
  serve::HttpServer http(server, http_options);
  print_models(server, http, f.host);
  int signal = wait_for_stop(stop_signals);
  fmt::print(stderr, "hhlo serve: {} received; finishing what was accepted (up to {} s)\n",
             signal == SIGTERM ? "SIGTERM" : "SIGINT", f.grace_period);
  auto grace = std::chrono::milliseconds(int64_t(f.grace_period * 1000));
  server.stop(grace);
  http.stop(std::chrono::milliseconds(1000));
  return 0;
}

const bool registered = register_command({
    "serve",
    "Serve a model repository (or one program) over the Open Inference Protocol (HTTP)",
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
      sub.add_option("--max-queue-size", f->max_queue_size,
                     "Requests waiting per model; one more is answered 503 at once")
          ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
      sub.add_option("--instances", f->instances, "Executors per model (requests run at once)")
          ->check(CLI::Range(1, 256));
      sub.add_option("--grace-period", f->grace_period,
                     "Seconds SIGTERM waits for accepted requests before exiting")
          ->check(CLI::Range(0.0, 3600.0));
      return [f] { return serve_main(*f); };
    },
});

}  // namespace
}  // namespace hhlo::cli
