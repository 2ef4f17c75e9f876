// rewrite_report.h: the lines of the program stage's opt-in rewrites.
#include "rewrite_report.h"

#include <fmt/format.h>

#include <cstdio>

namespace hhlo::cli {
namespace {

/// " (the first: REASON)" when `kept` is not 0, else "".
std::string first_kept(int kept, const std::string& reason) {
  return kept == 0 ? "" : " (the first: " + reason + ")";
}

}  // namespace

std::vector<std::string> rewrite_lines(const PreparedFacts& program,
                                       const PrepareOptions& prepare) {
  std::vector<std::string> lines;
  if (prepare.unroll_loops != 0)
    lines.push_back(fmt::format("loops: {} unrolled by up to {}, {} kept{}", program.loops_unrolled,
                                prepare.unroll_loops, program.loops_kept,
                                first_kept(program.loops_kept, program.loops_kept_reason)));
  if (prepare.onednn.any())
    lines.push_back(fmt::format("oneDNN {}: {} rewritten, {} kept{}", prepare.onednn.describe(),
                                program.onednn_rewritten, program.onednn_kept,
                                first_kept(program.onednn_kept, program.onednn_kept_reason)));
  return lines;
}

void print_rewrites(const PreparedFacts& program, const PrepareOptions& prepare) {
  for (const std::string& line : rewrite_lines(program, prepare)) fmt::print(stderr, "{}\n", line);
}

}  // namespace hhlo::cli
