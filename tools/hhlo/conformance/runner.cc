#include "conformance/runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <regex>
#include <thread>

#include "hhlo/core/error.h"

extern char** environ;

namespace hhlo::conformance {
namespace {

using Clock = std::chrono::steady_clock;

/// What a worker answered for one request, or why it did not.
struct Reply {
  std::optional<std::string> line;  // the protocol line, when one came
  std::string failure;              // otherwise: crash or timeout description
  bool timed_out = false;
};

/// One worker child process with pipes to its stdin, stdout and stderr.
class Worker {
 public:
  explicit Worker(std::vector<std::string> command) : command_(std::move(command)) {}
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() { stop(); }

  bool running() const { return pid_ > 0; }

  /// Starts the process and waits (up to `timeout_s`) for its "ready" line. Throws hhlo::Error
  /// with the worker's message when it reports an error, dies or does not get ready.
  void start(double timeout_s) {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
      throw Error(fmt::format("conformance: pipe() failed: {}", std::strerror(errno)));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
    std::vector<char*> argv;
    for (const std::string& a : command_) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    if (rc != 0) {
      close(in[1]);
      close(out[0]);
      close(err[0]);
      throw Error(
          fmt::format("conformance: cannot start worker '{}': {}", command_[0], std::strerror(rc)));
    }
    pid_ = pid;
    to_ = in[1];
    from_ = out[0];
    err_ = err[0];
    out_buf_.clear();
    Reply r = read_line(timeout_s);
    if (r.line && *r.line == "ready") return;
    std::string why = r.line ? *r.line : r.failure;
    if (why.rfind("error\t", 0) == 0) why = why.substr(6);
    stop();
    throw Error(fmt::format("conformance: worker '{}' did not start: {}", command_[0], why));
  }

  /// Sends `path` and waits for the answer line.
  Reply request(const std::string& path, double timeout_s) {
    err_tail_.clear();
    std::string msg = path + "\n";
    if (::write(to_, msg.data(), msg.size()) != static_cast<ssize_t>(msg.size()))
      return Reply{std::nullopt, describe_death(), false};
    return read_line(timeout_s);
  }

  /// Kills the process (if running) and reaps it.
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    close_fds();
  }

 private:
  void close_fds() {
    for (int* fd : {&to_, &from_, &err_})
      if (*fd >= 0) {
        close(*fd);
        *fd = -1;
      }
  }

  /// The process has closed its stdout: reap it and say how it ended.
  std::string describe_death() {
    int status = 0;
    std::string how = "worker exited";
    if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) {
      if (WIFSIGNALED(status))
        how = fmt::format("worker crashed (signal {}, {})", WTERMSIG(status),
                          strsignal(WTERMSIG(status)));
      else if (WIFEXITED(status))
        how = fmt::format("worker exited with status {}", WEXITSTATUS(status));
    }
    pid_ = -1;
    drain_stderr();
    close_fds();
    std::string tail = last_lines(err_tail_, 3);
    return tail.empty() ? how : how + "; its last stderr: " + tail;
  }

  static std::string last_lines(const std::string& text, int n) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string l = text.substr(start, end - start);
      if (l.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(l);
      start = end + 1;
    }
    std::string out;
    for (std::size_t i = lines.size() > static_cast<std::size_t>(n) ? lines.size() - n : 0;
         i < lines.size(); ++i)
      out += (out.empty() ? "" : " | ") + lines[i];
    return out.size() > 600 ? out.substr(out.size() - 600) : out;
  }

  void drain_stderr() {
    char buf[4096];
    for (;;) {
      pollfd p{err_, POLLIN, 0};
      if (err_ < 0 || poll(&p, 1, 0) <= 0) return;
      ssize_t n = ::read(err_, buf, sizeof buf);
      if (n <= 0) return;
      append_err(buf, n);
    }
  }

  void append_err(const char* data, ssize_t n) {
    err_tail_.append(data, n);
    if (err_tail_.size() > 16384) err_tail_.erase(0, err_tail_.size() - 8192);
  }

  Reply read_line(double timeout_s) {
    auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    char buf[4096];
    for (;;) {
      if (std::size_t nl = out_buf_.find('\n'); nl != std::string::npos) {
        std::string line = out_buf_.substr(0, nl);
        out_buf_.erase(0, nl + 1);
        return Reply{line, "", false};
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        drain_stderr();
        stop();
        return Reply{std::nullopt, fmt::format("timeout after {:g} s (worker killed)", timeout_s),
                     true};
      }
      pollfd fds[2] = {{from_, POLLIN, 0}, {err_, POLLIN, 0}};
      int n = poll(fds, err_ >= 0 ? 2 : 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
      if (n < 0 && errno != EINTR) return Reply{std::nullopt, describe_death(), false};
      if (n <= 0) continue;
      if (fds[1].revents & (POLLIN | POLLHUP)) {
        ssize_t k = ::read(err_, buf, sizeof buf);
        if (k > 0)
          append_err(buf, k);
        else if (k == 0) {
          close(err_);
          err_ = -1;
        }
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t k = ::read(from_, buf, sizeof buf);
        if (k > 0)
          out_buf_.append(buf, k);
        else
          return Reply{std::nullopt, describe_death(), false};
      }
    }
  }

  std::vector<std::string> command_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1, err_ = -1;
  std::string out_buf_, err_tail_;
};

/// Parses "<status>\t<seconds>\t<reason>".
FileResult parse_reply(const std::string& file, const std::string& line) {
  FileResult r;
  r.file = file;
  std::size_t t1 = line.find('\t'), t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
  if (t2 == std::string::npos) {
    r.reason = "malformed worker reply: " + line;
    return r;
  }
  std::string status = line.substr(0, t1);
  r.status = status == "passed"        ? Status::passed
             : status == "unsupported" ? Status::unsupported
                                       : Status::failed;
  r.seconds = std::atof(line.substr(t1 + 1, t2 - t1 - 1).c_str());
  r.reason = line.substr(t2 + 1);
  return r;
}

}  // namespace

std::string Report::summary() const {
  return fmt::format("conformance: {} passed, {} failed, {} unsupported of {}", passed, failed,
                     unsupported, total());
}

std::vector<std::string> list_corpus(const std::string& dir, const std::string& filter) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw IoError(fmt::format("conformance: '{}' is not a directory", dir));
  std::optional<std::regex> re;
  try {
    if (!filter.empty()) re.emplace(filter);
  } catch (const std::regex_error& e) {
    throw Error(fmt::format("conformance: bad --filter regex '{}': {}", filter, e.what()));
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".mlir") continue;
    std::string name = entry.path().filename().string();
    if (re && !std::regex_search(name, *re)) continue;
    files.push_back(entry.path().string());
  }
  if (ec) throw IoError(fmt::format("conformance: cannot list '{}': {}", dir, ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

Report run_files(const std::vector<std::string>& files, const RunnerOptions& options) {
  if (options.worker_command.empty()) throw Error("conformance: no worker command");
  if (options.jobs < 1)
    throw Error(fmt::format("conformance: --jobs must be >= 1, got {}", options.jobs));
  if (!(options.timeout_s > 0))
    throw Error(fmt::format("conformance: --timeout-s must be > 0, got {}", options.timeout_s));
  signal(SIGPIPE, SIG_IGN);  // a dead worker must not kill us through its stdin pipe
  auto t0 = Clock::now();
  Report report;
  report.results.resize(files.size());
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex mu;
  std::exception_ptr fatal;
  // Startup (loading the plugin, registering handlers) gets its own generous allowance.
  double startup_s = std::max(60.0, options.timeout_s);

  auto work = [&] {
    Worker worker(options.worker_command);
    for (;;) {
      std::size_t i = next++;
      if (i >= files.size()) return;
      std::string name = std::filesystem::path(files[i]).filename().string();
      FileResult r;
      try {
        if (!worker.running()) worker.start(startup_s);
        Reply reply =
            worker.request(std::filesystem::absolute(files[i]).string(), options.timeout_s);
        if (reply.line) {
          r = parse_reply(name, *reply.line);
        } else {
          r.file = name;
          r.status = Status::failed;
          r.reason = reply.failure;
          r.seconds = reply.timed_out ? options.timeout_s : 0;
          worker.stop();
        }
      } catch (...) {
        std::lock_guard lock(mu);
        if (!fatal) fatal = std::current_exception();
        next = files.size();
        return;
      }
      std::lock_guard lock(mu);
      report.results[i] = r;
      ++done;
      if (options.progress) options.progress(r, done, files.size());
    }
  };
  int jobs = std::min<int>(options.jobs, std::max<std::size_t>(files.size(), 1));
  std::vector<std::thread> threads;
  for (int j = 0; j < jobs; ++j) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  if (fatal) std::rethrow_exception(fatal);
  for (const FileResult& r : report.results) {
    if (r.status == Status::passed)
      ++report.passed;
    else if (r.status == Status::unsupported)
      ++report.unsupported;
    else
      ++report.failed;
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return report;
}

Report run_corpus(const std::string& dir, const RunnerOptions& options) {
  std::vector<std::string> files = list_corpus(dir, options.filter);
  if (files.empty())
    throw Error(fmt::format("conformance: no .mlir file in '{}'{}", dir,
                            options.filter.empty() ? "" : " matches --filter " + options.filter));
  return run_files(files, options);
}

}  // namespace hhlo::conformance
