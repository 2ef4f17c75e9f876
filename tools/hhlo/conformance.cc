// `hhlo conformance DIR [--timeout-s N] [--jobs N] [--filter REGEX] [--check-mode ffi|outputs]
// [--markdown FILE] [--verbose] [--reprint]`: runs every StableHLO file of a conformance corpus in
// worker processes and reports pass/fail/unsupported. `hhlo conformance-worker` (hidden) is the
// worker.
#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "commands.h"
#include "conformance/runner.h"

namespace hhlo::cli {
namespace {

using namespace hhlo::conformance;

struct ConformanceOptions {
  std::string dir;
  double timeout_s = 60;
  int jobs = static_cast<int>(std::max(1u, std::min(4u, std::thread::hardware_concurrency())));
  std::string filter;
  std::string check_mode;
  std::string markdown;
  bool verbose = false;
  bool reprint = false;
};

std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw Error("conformance: cannot find the hhlo executable (/proc/self/exe)");
  return std::string(buf, n);
}

void write_markdown(const std::string& path, const std::string& dir, const Report& report,
                    CheckMode mode) {
  std::ofstream out(path);
  if (!out) throw IoError(fmt::format("cannot write '{}'", path));
  out << fmt::format(
      "`{}` (checks: {}; {:.0f} s)\n\n", report.summary(),
      mode == CheckMode::ffi ? "our XLA FFI handlers" : "extra outputs compared on the host",
      report.seconds);
  out << fmt::format("Corpus: `{}`.\n\n", dir);
  for (Status s : {Status::failed, Status::unsupported}) {
    out << fmt::format("### {}\n\n", s == Status::failed ? "Failed" : "Unsupported");
    bool any = false;
    for (const FileResult& r : report.results)
      if (r.status == s) {
        out << fmt::format("- `{}`: {}\n", r.file, r.reason);
        any = true;
      }
    out << (any ? "\n" : "None.\n\n");
  }
}

int run_conformance(const ConformanceOptions& o) {
  CheckMode mode = o.check_mode.empty() ? default_check_mode() : parse_check_mode(o.check_mode);
  RunnerOptions ro;
  ro.worker_command = {self_path(), "conformance-worker", "--check-mode",
                       mode == CheckMode::ffi ? "ffi" : "outputs"};
  if (o.reprint) ro.worker_command.push_back("--reprint");
  ro.timeout_s = o.timeout_s;
  ro.jobs = o.jobs;
  ro.filter = o.filter;
  ro.progress = [&](const FileResult& r, std::size_t done, std::size_t total) {
    if (o.verbose)
      fmt::print(stderr, "[{}/{}] {} {} ({:.2f} s){}\n", done, total, status_name(r.status), r.file,
                 r.seconds, r.reason.empty() ? "" : ": " + r.reason);
    else if (done % 100 == 0 || done == total)
      fmt::print(stderr, "[{}/{}]\n", done, total);
  };
  Report report = run_corpus(o.dir, ro);
  for (Status s : {Status::failed, Status::unsupported})
    for (const FileResult& r : report.results)
      if (r.status == s) fmt::print("{:<11} {}: {}\n", status_name(s), r.file, r.reason);
  fmt::print("{}\n", report.summary());
  if (!o.markdown.empty()) write_markdown(o.markdown, o.dir, report, mode);
  return report.failed == 0 ? 0 : 1;
}

const bool registered = register_command({
    .name = "conformance",
    .description = "Run a StableHLO conformance corpus (files with check.* custom calls)",
    .setup = [](CLI::App& sub) -> Action {
      auto o = std::make_shared<ConformanceOptions>();
      sub.add_option("dir", o->dir, "Corpus folder (e.g. ../shared/conformance/stablehlo-testdata)")
          ->required();
      sub.add_option("--timeout-s", o->timeout_s, "Seconds per file before its worker is killed")
          ->check(CLI::PositiveNumber);
      sub.add_option("--jobs,-j", o->jobs, "Worker processes in parallel")
          ->check(CLI::Range(1, 256));
      sub.add_option("--filter", o->filter, "Only files whose name matches this regex");
      sub.add_option("--check-mode", o->check_mode,
                     "How check.* calls run: ffi (our FFI handlers; default when built) or "
                     "outputs (extra outputs compared on the host)")
          ->check(CLI::IsMember({"ffi", "outputs"}));
      sub.add_option("--markdown", o->markdown, "Also write the report as Markdown to FILE");
      sub.add_flag("--verbose,-v", o->verbose, "Print every file's result as it finishes");
      sub.add_flag("--reprint", o->reprint,
                   "Parse each program with our parser and run our printer's text of it instead");
      return [o] { return run_conformance(*o); };
    },
});

const bool registered_worker = register_command({
    .name = "conformance-worker",
    .description = "Internal: conformance worker process (reads file paths on stdin)",
    .setup = [](CLI::App& sub) -> Action {
      auto mode = std::make_shared<std::string>("outputs");
      auto reprint = std::make_shared<bool>(false);
      sub.add_option("--check-mode", *mode)->check(CLI::IsMember({"ffi", "outputs"}));
      sub.add_flag("--reprint", *reprint);
      return [mode, reprint] { return worker_main(parse_check_mode(*mode), *reprint); };
    },
    .hidden = true,
});

}  // namespace
}  // namespace hhlo::cli
