#include "cli_util.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <vector>

extern char** environ;

namespace hhlo::test {

namespace {

/// The environment of this process with `extra` NAME=VALUE entries added or replacing.
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& x : extra) replaced |= x.substr(0, x.find('=')) == name;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

ProcessResult run_process(std::vector<std::string> argv, const ProcessOptions& options) {
  int fds[2];
  if (pipe(fds)) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, options.cwd.c_str());
  std::vector<std::string> env = environment_with(options.env);
  std::vector<char*> args = pointers(argv), envp = pointers(env);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw std::runtime_error("cannot start " + argv[0]);
  }
  ProcessResult r;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) r.output.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace

ProcessResult run_hhlo(const std::vector<std::string>& args, const ProcessOptions& options) {
  std::vector<std::string> all{HHLO_CLI_PATH};
  all.insert(all.end(), args.begin(), args.end());
  return run_process(all, options);
}

ProcessResult run_shell(const std::string& script, const ProcessOptions& options) {
  ProcessOptions o = options;
  o.env.push_back(std::string("HHLO=") + HHLO_CLI_PATH);
  return run_process({"/bin/sh", "-c", script}, o);
}

namespace {

/// The folders temp_dir made in this process, removed when it exits (a test run leaves nothing in
/// the temporary folder). HHLO_KEEP_TEST_DIRS=1 keeps them, to look at a failed test's files.
struct TempDirs {
  std::vector<std::filesystem::path> dirs;
  ~TempDirs() {
    if (const char* keep = std::getenv("HHLO_KEEP_TEST_DIRS"); keep && std::string(keep) == "1")
      return;
    std::error_code ec;
    for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
  }
};

TempDirs& temp_dirs() {
  static TempDirs dirs;
  return dirs;
}

}  // namespace

std::string temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("hhlo_test_" + std::to_string(getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  temp_dirs().dirs.push_back(dir);
  return dir.string();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace hhlo::test
