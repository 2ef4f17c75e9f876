// Runs a conformance corpus in worker processes (see worker.h): per-file timeout, crash isolation
// (a crashed or timed-out worker is killed and restarted; the plugin is never loaded in the parent,
// which stays fork-safe), several workers in parallel, and the pass/fail/unsupported report.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "conformance/worker.h"

namespace hhlo::conformance {

/// How to run a corpus.
struct RunnerOptions {
  /// Command line of one worker process, e.g. {"/path/to/hhlo", "conformance-worker",
  /// "--check-mode", "ffi"}; it must speak worker_main()'s protocol.
  std::vector<std::string> worker_command;
  /// Seconds one file may take (compile + execute) before its worker is killed.
  double timeout_s = 60;
  /// Worker processes run in parallel (>= 1).
  int jobs = 2;
  /// ECMAScript regex searched in each file name; empty runs every *.mlir file.
  std::string filter;
  /// Called after each file (from worker threads, serialized): result, files done, total.
  std::function<void(const FileResult&, std::size_t, std::size_t)> progress;
};

/// Results of a corpus run.
struct Report {
  /// One per file, sorted by file name.
  std::vector<FileResult> results;
  std::size_t passed = 0, failed = 0, unsupported = 0;
  /// Wall time of the whole run.
  double seconds = 0;
  std::size_t total() const { return results.size(); }
  /// "conformance: P passed, F failed, U unsupported of N".
  std::string summary() const;
};

/// Sorted paths of the *.mlir files in `dir` whose names match `filter` (empty: all).
/// Throws hhlo::IoError when `dir` is not a readable directory, hhlo::Error for a bad regex.
std::vector<std::string> list_corpus(const std::string& dir, const std::string& filter = "");

/// Runs `files` (paths) per `options`. Throws hhlo::Error when a worker cannot start (the message
/// is the worker's own, e.g. the plugin failed to load) or the options are invalid.
Report run_files(const std::vector<std::string>& files, const RunnerOptions& options);

/// list_corpus(dir, options.filter) then run_files. Throws hhlo::Error when nothing matches.
Report run_corpus(const std::string& dir, const RunnerOptions& options);

}  // namespace hhlo::conformance
